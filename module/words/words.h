/* Inside module/words/: what its files share beyond command.h. */
#ifndef VEIL_MODULE_WORDS_WORDS_H
#define VEIL_MODULE_WORDS_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include "module/words/command.h"

/* path_words.c: a file name's words. The first control character in s, or NULL. */
const char *veil_words_find_control(const char *s);
/* A character a $VAR's name may start with (ASCII only, whatever the locale). */
bool veil_words_is_name_start(char c);
/* Words joined with single spaces, empty ones left out; malloc()ed, NULL without memory. */
char *veil_words_join(char *const words[], size_t count);
/*
 * ~ and $VAR expanded with wordexp(), commands refused; relative names stay relative. 0 with
 * *path malloc()ed, or a negative errno with *message.
 */
int veil_words_expand_name(const char *name, char **path, char **message);

/* transition_words.c. Milliseconds from 0 to max: false for anything else. */
bool veil_words_parse_ms(const char *word, int max, int *out);
/*
 * The words after `transition`: how many it took (all of them: argc), or a negative errno with
 * *message set.
 */
int veil_words_parse_transition(int argc, char *argv[], struct veil_transition_spec *spec,
	char **message);

#endif
