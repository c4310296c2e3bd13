/*
 * A look's members as the state file's entry and an output's status write them, and as the
 * words a state file's entry gives the command parser: one row each. A new look word is a row
 * here (and its parsing and its handler elsewhere); the writer, the reader's check and its words
 * all follow the table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "module/state/look_json.h"
#include "util/ease.h"
#include "util/image.h"
#include "util/mode.h"

static struct json_object *color_json(uint32_t color) {
	char word[8];
	snprintf(word, sizeof(word), "#%06" PRIx32, color & 0xffffff);
	return json_object_new_string(word);
}

static struct json_object *write_mode(const struct veil_look *look, bool status) {
	return json_object_new_string(veil_mode_name(look->mode));
}

static struct json_object *write_color(const struct veil_look *look, bool status) {
	return color_json(look->color);
}

/* `dark <file|#rrggbb>`: the dark scheme's picture, by its path, or its colour. */
static struct json_object *write_dark(const struct veil_look *look, bool status) {
	if (look->has_dark_color) {
		return color_json(look->dark_color);
	}
	return look->dark_path != NULL ? json_object_new_string(look->dark_path) : NULL;
}

static void words_dark(struct veil_state_words *w, struct json_object *value) {
	const char *dark = json_object_get_string(value);
	veil_state_words_add(w, "dark");
	/* A path goes in after the parser, as the file's does (the parser expands names). */
	veil_state_words_add(w, dark[0] == '#' ? dark : "/");
}

static struct json_object *write_transition(const struct veil_look *look, bool status) {
	return look->has_transition ? veil_state_transition_json(&look->transition) : NULL;
}

static void words_transition(struct veil_state_words *w, struct json_object *value) {
	veil_state_words_add(w, "transition");
	veil_state_words_add_transition(w, value);
}

/* The state file has it when it is not the default; the status always. */
static struct json_object *write_filter(const struct veil_look *look, bool status) {
	return status || look->filter != VEIL_IMAGE_FILTER_SMOOTH ?
		json_object_new_string(veil_image_filter_name(look->filter)) : NULL;
}

static void words_filter(struct veil_state_words *w, struct json_object *value) {
	veil_state_words_add(w, "filter");
	veil_state_words_add(w, json_object_get_string(value));
}

/* `location <lat> <lon>`: the setting's own place. */
static struct json_object *write_location(const struct veil_look *look, bool status) {
	if (!look->has_location) {
		return NULL;
	}
	struct json_object *place = json_object_new_array();
	json_object_array_add(place, json_object_new_double(look->latitude));
	json_object_array_add(place, json_object_new_double(look->longitude));
	return place;
}

static const char *check_location(struct json_object *value) {
	if (!json_object_is_type(value, json_type_array) || json_object_array_length(value) != 2 ||
			!json_object_is_type(json_object_array_get_idx(value, 0), json_type_double) ||
			!json_object_is_type(json_object_array_get_idx(value, 1), json_type_double)) {
		return "a location that is not two numbers";
	}
	return NULL;
}

static void words_location(struct veil_state_words *w, struct json_object *value) {
	veil_state_words_add(w, "location");
	for (size_t i = 0; i < 2; i++) {
		if (w->n_buf < 8) {
			snprintf(w->buf[w->n_buf], sizeof(w->buf[0]), "%.6f",
				json_object_get_double(json_object_array_get_idx(value, i)));
			veil_state_words_add(w, w->buf[w->n_buf++]);
		}
	}
}

/* The state file has 0 for none; the status null. */
static struct json_object *write_loopfade(const struct veil_look *look, bool status) {
	return !status || look->loopfade_ms > 0 ? json_object_new_int(look->loopfade_ms) : NULL;
}

static void words_loopfade(struct veil_state_words *w, struct json_object *value) {
	if (json_object_get_int64(value) != 0) {
		veil_state_words_add(w, "loopfade");
		veil_state_words_add_number(w, json_object_get_int64(value), "");
	}
}

static struct json_object *write_span(const struct veil_look *look, bool status) {
	return json_object_new_boolean(look->span);
}

static void words_span(struct veil_state_words *w, struct json_object *value) {
	if (json_object_get_boolean(value)) {
		veil_state_words_add(w, "span");
	}
}

static const struct member {
	const char *key; /* in the state file */
	const char *status_key; /* in the status; NULL: not there */
	const char *wrong; /* the state file's member of another type */
	enum json_type type;
	/* Mode and colour: in the status where a setting shows, and in a solid colour's entry. */
	bool basic;
	/* Also in a solid colour's entry (its dark colour). */
	bool solid;
	/* The value as form writes it; NULL: left out of the state file, null in the status. */
	struct json_object *(*write)(const struct veil_look *look, bool status);
	/* NULL when the value is good, of its type included; NULL: its type is checked alone. */
	const char *(*check)(struct json_object *value);
	/* Its words for the parser; NULL: the command's own (state_read.c puts them first). */
	void (*words)(struct veil_state_words *w, struct json_object *value);
} members[] = {
#define MEMBER(name, status_name, json, ...) { .key = name, .status_key = status_name, \
	.wrong = "a setting's " name " of the wrong type", .type = json, __VA_ARGS__ }
	/* In the order the parser takes the words: dark before the words it takes off the end. */
	MEMBER("mode", "mode", json_type_string, .basic = true, .write = write_mode),
	MEMBER("color", "color", json_type_string, .basic = true, .write = write_color),
	MEMBER("dark", NULL, json_type_string, .solid = true, .write = write_dark,
		.words = words_dark),
	MEMBER("transition", NULL, json_type_object, .write = write_transition,
		.check = veil_state_check_transition, .words = words_transition),
	MEMBER("filter", "filter", json_type_string, .write = write_filter,
		.words = words_filter),
	MEMBER("location", "location", json_type_array, .write = write_location,
		.check = check_location, .words = words_location),
	MEMBER("loopfade_ms", "loopfade", json_type_int, .write = write_loopfade,
		.words = words_loopfade),
	MEMBER("span", NULL, json_type_boolean, .write = write_span, .words = words_span),
#undef MEMBER
};

#define N_MEMBERS (sizeof(members) / sizeof(members[0]))

void veil_look_to_json(const struct veil_look *look, enum veil_look_json form,
		struct json_object *obj) {
	bool status = form != VEIL_LOOK_JSON_STATE;
	for (size_t i = 0; i < N_MEMBERS; i++) {
		const struct member *m = &members[i];
		if (status && (m->status_key == NULL ||
				(form == VEIL_LOOK_JSON_STATUS_UNSET && m->basic))) {
			continue;
		}
		/* A solid colour is its colour (and its dark colour) alone. */
		if (!status && look->mode == VEIL_MODE_SOLID_COLOR && !m->basic && !m->solid) {
			continue;
		}
		struct json_object *value = m->write(look, status);
		if (value != NULL || status) {
			json_object_object_add(obj, status ? m->status_key : m->key, value);
		}
	}
}

const char *veil_look_check_json(struct json_object *entry) {
	for (size_t i = 0; i < N_MEMBERS; i++) {
		const struct member *m = &members[i];
		struct json_object *value;
		if (!json_object_object_get_ex(entry, m->key, &value)) {
			continue;
		}
		if (m->check != NULL) {
			const char *why = m->check(value);
			if (why != NULL) {
				return why;
			}
		} else if (!json_object_is_type(value, m->type)) {
			return m->wrong;
		}
	}
	return NULL;
}

void veil_look_from_json(struct json_object *entry, struct veil_state_words *w) {
	for (size_t i = 0; i < N_MEMBERS; i++) {
		const struct member *m = &members[i];
		struct json_object *value;
		if (m->words != NULL && json_object_object_get_ex(entry, m->key, &value) &&
				json_object_is_type(value, m->type)) {
			m->words(w, value);
		}
	}
}

/* ---- The words, and the transition's member ---- */

void veil_state_words_add(struct veil_state_words *w, const char *word) {
	if (w->argc < VEIL_STATE_MAX_WORDS && word != NULL) {
		w->argv[w->argc++] = (char *)word;
	}
}

void veil_state_words_add_number(struct veil_state_words *w, int64_t value, const char *unit) {
	if (w->n_buf < 8) {
		snprintf(w->buf[w->n_buf], sizeof(w->buf[0]), "%lld%s", (long long)value, unit);
		veil_state_words_add(w, w->buf[w->n_buf++]);
	}
}

static const char *get_string(struct json_object *obj, const char *name) {
	struct json_object *member;
	return json_object_object_get_ex(obj, name, &member) &&
		json_object_is_type(member, json_type_string) ? json_object_get_string(member) : NULL;
}

void veil_state_words_add_transition(struct veil_state_words *w, struct json_object *tr) {
	const char *kind = get_string(tr, "kind");
	veil_state_words_add(w, kind != NULL ? kind : "none");
	struct json_object *ms;
	veil_state_words_add_number(w, json_object_object_get_ex(tr, "ms", &ms) &&
		json_object_is_type(ms, json_type_int) ? json_object_get_int64(ms) :
		VEIL_TRANSITION_DEFAULT_MS, "");
	if (get_string(tr, "from") != NULL) {
		veil_state_words_add(w, "from");
		veil_state_words_add(w, get_string(tr, "from"));
	}
	struct json_object *at;
	if (json_object_object_get_ex(tr, "at", &at)) {
		veil_state_words_add(w, "at");
		veil_state_words_add(w, json_object_get_string(json_object_array_get_idx(at, 0)));
		veil_state_words_add(w, json_object_get_string(json_object_array_get_idx(at, 1)));
	}
	if (get_string(tr, "ease") != NULL) {
		veil_state_words_add(w, "ease");
		veil_state_words_add(w, get_string(tr, "ease"));
	}
}

struct json_object *veil_state_transition_json(const struct veil_transition_spec *spec) {
	struct json_object *obj = json_object_new_object();
	json_object_object_add(obj, "kind",
		json_object_new_string(veil_transition_name(spec->kind)));
	json_object_object_add(obj, "ms", json_object_new_int(spec->ms));
	if (spec->kind == VEIL_TRANSITION_WIPE || spec->kind == VEIL_TRANSITION_SLIDE) {
		json_object_object_add(obj, "from",
			json_object_new_string(veil_side_name(spec->side)));
	}
	if (spec->kind == VEIL_TRANSITION_GROW) {
		struct json_object *at = json_object_new_array();
		const struct veil_coord *coords[2] = { &spec->at_x, &spec->at_y };
		for (int i = 0; i < 2; i++) {
			char word[24];
			snprintf(word, sizeof(word), "%d%s", coords[i]->value,
				coords[i]->percent ? "%" : "");
			json_object_array_add(at, json_object_new_string(word));
		}
		json_object_object_add(obj, "at", at);
	}
	if (spec->ease.kind != VEIL_EASE_LINEAR) {
		char curve[64];
		veil_ease_format(&spec->ease, curve, sizeof(curve));
		json_object_object_add(obj, "ease", json_object_new_string(curve));
	}
	return obj;
}

static bool is_type(struct json_object *obj, const char *name, enum json_type type) {
	struct json_object *member;
	return !json_object_object_get_ex(obj, name, &member) ||
		json_object_is_type(member, type);
}

const char *veil_state_check_transition(struct json_object *tr) {
	if (!json_object_is_type(tr, json_type_object)) {
		return "a transition that is not an object";
	}
	struct json_object *at;
	if (!is_type(tr, "kind", json_type_string) || !is_type(tr, "ms", json_type_int) ||
			!is_type(tr, "from", json_type_string) || !is_type(tr, "ease", json_type_string)) {
		return "a transition's kind, ms, from or ease of the wrong type";
	}
	if (json_object_object_get_ex(tr, "at", &at) && (!json_object_is_type(at,
			json_type_array) || json_object_array_length(at) != 2 ||
			!json_object_is_type(json_object_array_get_idx(at, 0), json_type_string) ||
			!json_object_is_type(json_object_array_get_idx(at, 1), json_type_string))) {
		return "a transition's at that is not two words";
	}
	return NULL;
}
