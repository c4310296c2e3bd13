/*
 * `output <name|*> <subcommand>...`: sway's output command, for what a headless test bed
 * changes at run time, plus `veil ...`, which takes the rest of the words and goes to veil.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <veil/veil.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/wayland.h>
#include <wlr/config.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/log.h>
#if WLR_HAS_X11_BACKEND
#include <wlr/backend/x11.h>
#endif
#include "tinywl.h"

#define MAX_MODE_SIZE 16384
#define MAX_SCALE 32.0f

enum power_request {
	POWER_KEEP,
	POWER_ON,
	POWER_OFF,
	POWER_TOGGLE,
};

struct output_request {
	int enabled; // -1 when not asked for
	enum power_request power;
	bool set_mode;
	bool mode_custom;
	int width, height, refresh_mhz;
	bool set_scale;
	float scale;
	bool set_transform;
	enum wl_output_transform transform;
	bool set_position;
	int x, y;
	bool unplug;
	int veil_argc; // the words from "veil" on
	char **veil_argv;
};

/* Each parser gets the words from its subcommand's name on and says how many it used. */
typedef struct cmd_result (*subcommand_parser)(struct output_request *req,
	int argc, char **argv, int *used);

static struct cmd_result parse_mode(struct output_request *req, int argc, char **argv,
		int *used) {
	int i = 1;
	req->mode_custom = false;
	if (i < argc && strcmp(argv[i], "--custom") == 0) {
		req->mode_custom = true;
		i++;
	}
	if (i >= argc) {
		return cmd_result_new(CMD_INVALID, "Missing mode argument.");
	}

	char *end;
	long width = strtol(argv[i], &end, 10), height;
	float refresh = 0;
	if (*end == 'x') {
		/* WxH[@R[Hz]] */
		height = strtol(end + 1, &end, 10);
		if (*end == '@') {
			refresh = strtof(end + 1, &end);
			if (*end != '\0' && strcasecmp(end, "Hz") != 0) {
				return cmd_result_new(CMD_INVALID, "Invalid mode refresh rate.");
			}
		} else if (*end != '\0') {
			return cmd_result_new(CMD_INVALID, "Invalid mode height.");
		}
		i++;
	} else if (*end == '\0') {
		/* W H */
		if (++i >= argc) {
			return cmd_result_new(CMD_INVALID, "Missing mode argument (height).");
		}
		height = strtol(argv[i], &end, 10);
		if (*end != '\0') {
			return cmd_result_new(CMD_INVALID, "Invalid mode height.");
		}
		i++;
	} else {
		return cmd_result_new(CMD_INVALID, "Invalid mode width.");
	}

	if (width <= 0 || width > MAX_MODE_SIZE || height <= 0 || height > MAX_MODE_SIZE) {
		return cmd_result_new(CMD_INVALID, "Invalid mode size %ldx%ld (1 to %d pixels a side).",
			width, height, MAX_MODE_SIZE);
	}
	if (!(refresh >= 0 && refresh <= 1000)) {
		return cmd_result_new(CMD_INVALID, "Invalid mode refresh rate.");
	}
	req->set_mode = true;
	req->width = width;
	req->height = height;
	req->refresh_mhz = (int)roundf(refresh * 1000);
	*used = i;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result parse_scale(struct output_request *req, int argc, char **argv,
		int *used) {
	if (argc < 2) {
		return cmd_result_new(CMD_INVALID, "Missing scale argument.");
	}
	char *end;
	float scale = strtof(argv[1], &end);
	if (*end != '\0' || !(scale > 0 && scale <= MAX_SCALE)) {
		return cmd_result_new(CMD_INVALID, "Invalid scale.");
	}
	req->set_scale = true;
	req->scale = scale;
	*used = 2;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result parse_transform(struct output_request *req, int argc, char **argv,
		int *used) {
	if (argc < 2) {
		return cmd_result_new(CMD_INVALID, "Missing transform argument.");
	}
	/*
	 * sway's rotations are clockwise, wl_output's counter-clockwise: "90" is
	 * WL_OUTPUT_TRANSFORM_270, as in sway.
	 */
	static const struct {
		const char *name;
		enum wl_output_transform transform;
	} transforms[] = {
		{ "normal", WL_OUTPUT_TRANSFORM_NORMAL },
		{ "0", WL_OUTPUT_TRANSFORM_NORMAL },
		{ "90", WL_OUTPUT_TRANSFORM_270 },
		{ "180", WL_OUTPUT_TRANSFORM_180 },
		{ "270", WL_OUTPUT_TRANSFORM_90 },
		{ "flipped", WL_OUTPUT_TRANSFORM_FLIPPED },
		{ "flipped-90", WL_OUTPUT_TRANSFORM_FLIPPED_270 },
		{ "flipped-180", WL_OUTPUT_TRANSFORM_FLIPPED_180 },
		{ "flipped-270", WL_OUTPUT_TRANSFORM_FLIPPED_90 },
	};
	for (size_t i = 0; i < sizeof(transforms) / sizeof(transforms[0]); i++) {
		if (strcmp(argv[1], transforms[i].name) == 0) {
			req->set_transform = true;
			req->transform = transforms[i].transform;
			*used = 2;
			return cmd_result_new(CMD_SUCCESS, NULL);
		}
	}
	return cmd_result_new(CMD_INVALID, "Invalid output transform.");
}

static bool parse_coordinate(const char *text, char **end, int *value) {
	long v = strtol(text, end, 10);
	if (*end == text || v < INT_MIN / 2 || v > INT_MAX / 2) {
		return false;
	}
	*value = v;
	return true;
}

static struct cmd_result parse_position(struct output_request *req, int argc, char **argv,
		int *used) {
	if (argc < 2) {
		return cmd_result_new(CMD_INVALID, "Missing position argument.");
	}
	char *end;
	if (!parse_coordinate(argv[1], &end, &req->x)) {
		return cmd_result_new(CMD_INVALID, "Invalid position x.");
	}
	if (*end == ',') {
		/* X,Y */
		if (!parse_coordinate(end + 1, &end, &req->y) || *end != '\0') {
			return cmd_result_new(CMD_INVALID, "Invalid position y.");
		}
		*used = 2;
	} else if (*end == '\0') {
		/* X Y */
		if (argc < 3) {
			return cmd_result_new(CMD_INVALID, "Missing position argument (y).");
		}
		if (!parse_coordinate(argv[2], &end, &req->y) || *end != '\0') {
			return cmd_result_new(CMD_INVALID, "Invalid position y.");
		}
		*used = 3;
	} else {
		return cmd_result_new(CMD_INVALID, "Invalid position x.");
	}
	req->set_position = true;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result parse_enable(struct output_request *req, int argc, char **argv,
		int *used) {
	req->enabled = 1;
	*used = 1;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result parse_disable(struct output_request *req, int argc, char **argv,
		int *used) {
	req->enabled = 0;
	*used = 1;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result parse_power(struct output_request *req, int argc, char **argv,
		int *used) {
	if (argc < 2) {
		return cmd_result_new(CMD_INVALID, "Missing power argument");
	}
	static const char *const on[] = { "on", "yes", "true", "enable", "enabled", "1" };
	static const char *const off[] = { "off", "no", "false", "disable", "disabled", "0" };
	req->power = POWER_KEEP;
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		if (strcasecmp(argv[1], on[i]) == 0) {
			req->power = POWER_ON;
		} else if (strcasecmp(argv[1], off[i]) == 0) {
			req->power = POWER_OFF;
		}
	}
	if (strcasecmp(argv[1], "toggle") == 0) {
		req->power = POWER_TOGGLE;
	}
	if (req->power == POWER_KEEP) {
		return cmd_result_new(CMD_INVALID, "Invalid power argument '%s' (on, off or toggle)",
			argv[1]);
	}
	*used = 2;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result parse_unplug(struct output_request *req, int argc, char **argv,
		int *used) {
	req->unplug = true;
	*used = 1;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result parse_veil(struct output_request *req, int argc, char **argv,
		int *used) {
	/* veil's words may be anything, file names included: they end the command. */
	req->veil_argc = argc;
	req->veil_argv = argv;
	*used = argc;
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static const struct {
	const char *name;
	subcommand_parser parse;
} subcommands[] = {
	{ "disable", parse_disable },
	{ "dpms", parse_power },
	{ "enable", parse_enable },
	{ "mode", parse_mode },
	{ "pos", parse_position },
	{ "position", parse_position },
	{ "power", parse_power },
	{ "res", parse_mode },
	{ "resolution", parse_mode },
	{ "scale", parse_scale },
	{ "transform", parse_transform },
	{ "unplug", parse_unplug },
	{ "veil", parse_veil },
};

static struct cmd_result parse_request(struct output_request *req, int argc, char **argv) {
	while (argc > 0) {
		subcommand_parser parse = NULL;
		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
			if (strcasecmp(argv[0], subcommands[i].name) == 0) {
				parse = subcommands[i].parse;
				break;
			}
		}
		if (parse == NULL) {
			return cmd_result_new(CMD_INVALID, "Invalid output subcommand: %s.", argv[0]);
		}
		int used = 0;
		struct cmd_result result = parse(req, argc, argv, &used);
		if (result.status != CMD_SUCCESS) {
			return result;
		}
		argc -= used;
		argv += used;
	}
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static bool has_output_settings(const struct output_request *req) {
	return req->enabled >= 0 || req->power != POWER_KEEP || req->set_mode || req->set_scale ||
		req->set_transform || req->set_position || req->unplug;
}

/* Like sway: the mode of that size closest in refresh, or a custom mode where modes are free. */
static void set_mode(struct tw_output *output, struct wlr_output_state *state) {
	struct wlr_output *wlr_output = output->wlr_output;
	if (output->mode_custom || wl_list_empty(&wlr_output->modes)) {
		wlr_output_state_set_custom_mode(state, output->mode_width, output->mode_height,
			output->mode_refresh);
		return;
	}
	int wanted = output->mode_refresh > 0 ? output->mode_refresh : INT_MAX;
	struct wlr_output_mode *mode, *best = NULL;
	wl_list_for_each(mode, &wlr_output->modes, link) {
		if (mode->width == output->mode_width && mode->height == output->mode_height &&
				(best == NULL || abs(mode->refresh - wanted) < abs(best->refresh - wanted))) {
			best = mode;
		}
	}
	if (best == NULL) {
		best = wlr_output_preferred_mode(wlr_output);
		wlr_log(WLR_INFO, "%s: no %dx%d mode, using the preferred one", wlr_output->name,
			output->mode_width, output->mode_height);
	}
	if (best != NULL) {
		wlr_output_state_set_mode(state, best);
	}
}

static bool unplug_allowed(struct wlr_output *wlr_output) {
#if WLR_HAS_X11_BACKEND
	if (wlr_output_is_x11(wlr_output)) {
		return true;
	}
#endif
	return wlr_output_is_headless(wlr_output) || wlr_output_is_wl(wlr_output);
}

static struct cmd_result apply(struct tw_output *output, const struct output_request *req) {
	struct wlr_output *wlr_output = output->wlr_output;

	if (req->unplug) {
		if (!unplug_allowed(wlr_output)) {
			return cmd_result_new(CMD_INVALID,
				"Can only unplug outputs with headless, wayland or x11 backend");
		}
		/* Frees output through its destroy listener. */
		wlr_output_destroy(wlr_output);
		return cmd_result_new(CMD_SUCCESS, NULL);
	}

	bool enabled = req->enabled >= 0 ? req->enabled : output->enabled;
	bool power = output->power;
	if (req->power == POWER_TOGGLE) {
		power = !power;
	} else if (req->power != POWER_KEEP) {
		power = req->power == POWER_ON;
	}
	/* A mode can only be set on a lit output: keep it until the output is on again. */
	if (req->set_mode) {
		output->pending_mode = true;
		output->mode_custom = req->mode_custom;
		output->mode_width = req->width;
		output->mode_height = req->height;
		output->mode_refresh = req->refresh_mhz;
	}

	bool on = enabled && power;
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	if (on != wlr_output->enabled) {
		wlr_output_state_set_enabled(&state, on);
	}
	if (on && output->pending_mode) {
		set_mode(output, &state);
	}
	if (req->set_scale) {
		/* Scales are sent to clients in 1/120ths (fractional-scale-v1). */
		wlr_output_state_set_scale(&state, roundf(req->scale * 120) / 120);
	}
	if (req->set_transform) {
		wlr_output_state_set_transform(&state, req->transform);
	}
	bool ok = state.committed == 0 || (wlr_output_test_state(wlr_output, &state) &&
		wlr_output_commit_state(wlr_output, &state));
	wlr_output_state_finish(&state);
	if (!ok) {
		return cmd_result_new(CMD_FAILURE, "Failed to apply the configuration of output %s",
			wlr_output->name);
	}
	if (on) {
		output->pending_mode = false;
	}
	output->power = power;

	if (req->set_position) {
		output->has_position = true;
		output->x = req->x;
		output->y = req->y;
	}
	/* The layout follows mode, scale and transform by itself; position and enable are ours. */
	if (enabled != output->enabled || (enabled && req->set_position)) {
		output_set_enabled_in_layout(output, enabled);
	}
	return cmd_result_new(CMD_SUCCESS, NULL);
}

static struct cmd_result run_veil(struct tw_server *server, const char *name,
		const struct output_request *req) {
	char *message = NULL;
	int ret = veil_scene_command(server->veil, name, req->veil_argc, req->veil_argv, &message);
	struct cmd_result result;
	if (ret >= 0) {
		result = cmd_result_new(CMD_SUCCESS, NULL);
	} else {
		/* Words veil cannot parse are a parse error; a file it cannot show is a failure. */
		result = cmd_result_new(ret == -EINVAL ? CMD_INVALID : CMD_FAILURE, "%s",
			message != NULL ? message : strerror(-ret));
	}
	free(message);
	return result;
}

struct cmd_result cmd_output(struct tw_server *server, int argc, char **argv) {
	if (argc < 1) {
		return cmd_result_new(CMD_INVALID,
			"Invalid output command (expected at least 1 argument, got 0)");
	}
	const char *name = argv[0];
	struct output_request req = { .enabled = -1 };
	struct cmd_result result = parse_request(&req, argc - 1, argv + 1);
	if (result.status != CMD_SUCCESS) {
		return result;
	}

	bool all = strcmp(name, "*") == 0;
	if (all) {
		if (req.unplug) {
			return cmd_result_new(CMD_INVALID, "Won't unplug all outputs");
		}
		if (req.power == POWER_TOGGLE) {
			return cmd_result_new(CMD_INVALID, "Cannot apply toggle to all outputs");
		}
		struct tw_output *output, *tmp;
		wl_list_for_each_safe(output, tmp, &server->outputs, link) {
			struct cmd_result one = apply(output, &req);
			if (one.status != CMD_SUCCESS && result.status == CMD_SUCCESS) {
				result = one;
			} else {
				free(one.error);
			}
		}
		if (result.status != CMD_SUCCESS) {
			return result;
		}
	} else {
		struct tw_output *output = output_by_name(server, name);
		if (output != NULL) {
			result = apply(output, &req);
			if (result.status != CMD_SUCCESS) {
				return result;
			}
		} else if (req.unplug) {
			return cmd_result_new(CMD_INVALID, "Cannot unplug unknown output %s", name);
		} else if (has_output_settings(&req) || req.veil_argc == 0) {
			return cmd_result_new(CMD_FAILURE, "Unknown output %s", name);
		}
		/* veil keeps settings for outputs that have not appeared yet. */
	}

	if (req.veil_argc > 0) {
		return run_veil(server, name, &req);
	}
	return result;
}
