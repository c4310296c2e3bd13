/*
 * A look (struct veil_look, module/words/command.h) as the state file's entry and an output's
 * status write it, and back from the state file as the words the command parser reads: one
 * table of its members (look_json.c), each named once.
 */
#ifndef VEIL_MODULE_STATE_LOOK_JSON_H
#define VEIL_MODULE_STATE_LOOK_JSON_H

#include <stdint.h>
#include "module/words/command.h"

struct json_object;

enum veil_look_json {
	VEIL_LOOK_JSON_STATE, /* a state file's entry (module/state/write.c) */
	VEIL_LOOK_JSON_STATUS, /* an output's status (module/control/status.c) */
	/* An output's status where no setting, or `off`, shows: without mode and colour. */
	VEIL_LOOK_JSON_STATUS_UNSET,
};

/* Adds the look's members to obj, as form names and writes them. */
void veil_look_to_json(const struct veil_look *look, enum veil_look_json form,
	struct json_object *obj);
/* NULL when a state file's entry has the look's members of the writer's types, else what not. */
const char *veil_look_check_json(struct json_object *entry);

#define VEIL_STATE_MAX_WORDS 28

/* The words of a command made from a state file's entry (module/state/state_read.c). */
struct veil_state_words {
	char *argv[VEIL_STATE_MAX_WORDS];
	int argc;
	char buf[8][32]; /* numbers written for the words */
	int n_buf;
};

/*
 * Adds the words of a state file's entry's look after its file, mode and colour, in the table's
 * order: dark (a colour, or "/" for a path put in after the parser), then the words the parser
 * takes off the end. A checked entry (veil_look_check_json) is assumed.
 */
void veil_look_from_json(struct json_object *entry, struct veil_state_words *w);

/* A word (NULL: none); words past VEIL_STATE_MAX_WORDS are dropped. */
void veil_state_words_add(struct veil_state_words *w, const char *word);
/* A number as a word, followed by unit ("s", or ""). */
void veil_state_words_add_number(struct veil_state_words *w, int64_t value, const char *unit);
/* A transition's words after `transition`: kind, ms, from, at, ease. */
void veil_state_words_add_transition(struct veil_state_words *w, struct json_object *tr);
/* A transition as the state file has it. */
struct json_object *veil_state_transition_json(const struct veil_transition_spec *spec);
/* NULL when tr is a transition of the state file's shape, else what is wrong with it. */
const char *veil_state_check_transition(struct json_object *tr);

#endif
