/*
 * The policy words of `output <name> veil ...`:
 *   veil fps <N>|off
 *   veil battery play|pause|fps <N>
 * Parsed here and called from veil_command_parse (module/words/command.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "module/words/command.h"
#include "util/message.h"

static const char fps_usage[] = "`veil fps <1-240>|off`";
static const char battery_usage[] = "`veil battery play|pause|fps <1-240>`";

/* A frame rate from 1 to VEIL_FPS_MAX, digits only; false for anything else. */
static bool parse_rate(const char *word, int *fps) {
	long value = 0;
	if (*word == '\0') {
		return false;
	}
	for (const char *p = word; *p != '\0'; p++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
		/* Stops growing past the bound: a long run of digits is too large, not 0. */
		value = value > VEIL_FPS_MAX ? value : value * 10 + (*p - '0');
	}
	if (value < 1 || value > VEIL_FPS_MAX) {
		return false;
	}
	*fps = (int)value;
	return true;
}

static int parse_fps(int argc, char *argv[], struct veil_command *cmd, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (argc < 2) {
		return veil_message_fail(message, -EINVAL, "fps needs a frame rate or off: %s", fps_usage);
	}
	if (argc > 2) {
		return veil_message_fail(message, -EINVAL, "Unexpected word '%s' after the frame rate: %s",
			veil_message_quote(shown, argv[2]), fps_usage);
	}
	int fps = 0;
	if (strcasecmp(argv[1], "off") != 0 && !parse_rate(argv[1], &fps)) {
		return veil_message_fail(message, -EINVAL, "Invalid frame rate '%s': expected frames a "
			"second from 1 to %d, or off", veil_message_quote(shown, argv[1]), VEIL_FPS_MAX);
	}
	cmd->kind = VEIL_COMMAND_FPS;
	cmd->fps = fps;
	return 0;
}

static int parse_battery(int argc, char *argv[], struct veil_command *cmd, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (argc < 2) {
		return veil_message_fail(message, -EINVAL, "battery needs what videos do on battery: %s",
			battery_usage);
	}
	int words = 2;
	if (strcasecmp(argv[1], "play") == 0) {
		cmd->battery = VEIL_BATTERY_PLAY;
	} else if (strcasecmp(argv[1], "pause") == 0) {
		cmd->battery = VEIL_BATTERY_PAUSE;
	} else if (strcasecmp(argv[1], "fps") == 0) {
		if (argc < 3) {
			return veil_message_fail(message, -EINVAL, "`battery fps` needs a frame rate: %s",
				battery_usage);
		}
		if (!parse_rate(argv[2], &cmd->battery_fps)) {
			return veil_message_fail(message, -EINVAL, "Invalid frame rate '%s': expected frames "
				"a second from 1 to %d", veil_message_quote(shown, argv[2]), VEIL_FPS_MAX);
		}
		cmd->battery = VEIL_BATTERY_FPS;
		words = 3;
	} else {
		return veil_message_fail(message, -EINVAL, "Unknown battery action '%s': expected play, "
			"pause or fps <N>", veil_message_quote(shown, argv[1]));
	}
	if (argc > words) {
		return veil_message_fail(message, -EINVAL,
			"Unexpected word '%s' after the battery action: %s",
			veil_message_quote(shown, argv[words]), battery_usage);
	}
	cmd->kind = VEIL_COMMAND_BATTERY;
	return 0;
}

int veil_policy_words_parse(int argc, char *argv[], struct veil_command *cmd, char **message) {
	struct veil_command parsed = { .kind = VEIL_COMMAND_FPS };
	int ret;
	if (strcasecmp(argv[0], "fps") == 0) {
		ret = parse_fps(argc, argv, &parsed, message);
	} else {
		ret = parse_battery(argc, argv, &parsed, message);
	}
	if (ret == 0) {
		*cmd = parsed;
	}
	return ret;
}
