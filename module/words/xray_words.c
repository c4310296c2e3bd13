/*
 * The xray words of `output <name> veil ...`:
 *   veil xray on|off
 *   veil blur <px>
 * Parsed here and called from veil_command_parse (module/words/command.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "module/words/command.h"
#include "util/blur.h"
#include "util/message.h"

static const char xray_usage[] = "`veil xray on|off`";
static const char blur_usage[] = "`veil blur <1-200>`";

static int parse_xray(int argc, char *argv[], struct veil_command *cmd, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (argc != 2) {
		return veil_message_fail(message, -EINVAL, "xray takes one word, on or off: %s",
			xray_usage);
	}
	if (strcasecmp(argv[1], "on") == 0) {
		cmd->xray = true;
	} else if (strcasecmp(argv[1], "off") != 0) {
		return veil_message_fail(message, -EINVAL, "Unknown xray word '%s': expected on or off",
			veil_message_quote(shown, argv[1]));
	}
	cmd->kind = VEIL_COMMAND_XRAY;
	return 0;
}

static int parse_blur(int argc, char *argv[], struct veil_command *cmd, char **message) {
	char shown[VEIL_QUOTE_SIZE];
	if (argc != 2) {
		return veil_message_fail(message, -EINVAL, "blur takes one number of logical pixels: %s",
			blur_usage);
	}
	const char *word = argv[1];
	size_t len = strlen(word);
	/* "20px" is read as 20, as CSS writes it. */
	if (len > 2 && strcasecmp(word + len - 2, "px") == 0) {
		len -= 2;
	}
	long value = 0;
	bool digits = len > 0;
	for (size_t i = 0; i < len; i++) {
		if (word[i] < '0' || word[i] > '9') {
			digits = false;
			break;
		}
		/* Stops growing past the bound: a long run of digits is too large, not 0. */
		value = value > VEIL_BLUR_MAX ? value : value * 10 + (word[i] - '0');
	}
	if (!digits) {
		return veil_message_fail(message, -EINVAL, "Invalid blur '%s': expected logical pixels "
			"from 1 to %d", veil_message_quote(shown, word), VEIL_BLUR_MAX);
	}
	if (value < 1 || value > VEIL_BLUR_MAX) {
		return veil_message_fail(message, -EINVAL, "Blur '%s' is out of range: expected 1 to "
			"%d logical pixels (`veil xray off` shows no blur)",
			veil_message_quote(shown, word), VEIL_BLUR_MAX);
	}
	cmd->kind = VEIL_COMMAND_BLUR;
	cmd->blur = (int)value;
	return 0;
}

int veil_xray_words_parse(int argc, char *argv[], struct veil_command *cmd, char **message) {
	struct veil_command parsed = { .kind = VEIL_COMMAND_XRAY };
	int ret;
	if (strcasecmp(argv[0], "xray") == 0) {
		ret = parse_xray(argc, argv, &parsed, message);
	} else {
		ret = parse_blur(argc, argv, &parsed, message);
	}
	if (ret == 0) {
		*cmd = parsed;
	}
	return ret;
}
