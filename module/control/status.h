/*
 * module/control/status.c: what an output shows as one typed state, which the status JSON and
 * the control protocol's events (module/control/control.c) both say.
 */
#ifndef VEIL_MODULE_CONTROL_STATUS_H
#define VEIL_MODULE_CONTROL_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include "module/core/scene.h"

struct json_object;

enum veil_output_kind {
	VEIL_OUTPUT_NONE,
	VEIL_OUTPUT_OFF,
	VEIL_OUTPUT_COLOR,
	VEIL_OUTPUT_IMAGE,
	VEIL_OUTPUT_VIDEO,
};

/* What a person sees on the output now, even while another wallpaper loads. */
enum veil_output_shown {
	VEIL_SHOWN_OFF,
	VEIL_SHOWN_SHOWN,
	VEIL_SHOWN_PAUSED,
	VEIL_SHOWN_HIDDEN,
};

/*
 * An output's state, as the status JSON (module/control/status.c) and the control protocol's events
 * (module/control/control.c) both say it. Strings point into the output, its setting and its
 * source: valid until they change.
 */
struct veil_output_state {
	const char *name;
	enum veil_output_kind kind;
	enum veil_output_shown shown;
	const char *loading; /* the file on its way, NULL when none */
	const char *setting; /* the name of the setting shown ("*" or the output's), or NULL */
	const char *setting_workspace; /* the workspace that setting is for, or NULL */
	const char *workspace; /* the workspace the output shows, or NULL */
	bool has_mode;
	enum veil_mode mode;
	uint32_t color; /* 0xRRGGBB */
	struct veil_source *source; /* shown, or NULL; the fields below only with it */
	const char *file;
	int width, height; /* of the frames */
	bool paused; /* by the user */
	bool held; /* by a policy: on battery */
	int viewers; /* outputs on which the source is visible */
	struct veil_source_info info;
	int nodes;
	uint64_t frames; /* put on this output's nodes */
	const char *error;
	bool has_transition; /* one runs: the two fields below say which and how far */
	enum veil_transition_kind transition;
	float transition_progress; /* 0 to 1: the time elapsed, as a fraction */
	float transition_eased; /* the progress drawn: transition_progress through the curve */
	const struct veil_transition_spec *transition_spec; /* its words (side, centre) */
	bool transition_random; /* `transition random` picked its kind */
};

void veil_output_get_state(struct veil_output *output, struct veil_output_state *state);
struct json_object *veil_output_status(struct veil_output *output);

#endif
