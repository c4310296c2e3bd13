/*
 * The words of a command whose file is given as a descriptor (the control protocol's set_media):
 * read exactly as the words after the file in `output <name> veil <file> ...`, by the same parser.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "module/words/command.h"
#include "util/message.h"

/* Stands for the file while the words are parsed; no word after a file can expand to it. */
static char placeholder[] = "/";

int veil_command_parse_media(int argc, char *argv[], struct veil_command *cmd, char **message) {
	struct veil_command parsed = {0};
	if (message != NULL) {
		*message = NULL;
	}
	*cmd = parsed;
	if (argc < 0 || (argc > 0 && argv == NULL)) {
		return -EINVAL;
	}
	for (int i = 0; i < argc; i++) {
		enum veil_mode mode;
		if (argv[i] != NULL && veil_mode_from_name(argv[i], &mode) &&
				mode == VEIL_MODE_SOLID_COLOR) {
			if (message != NULL) {
				*message = veil_message("solid_color shows a colour, not a file: "
					"`#rrggbb solid_color` names no file");
			}
			return -EINVAL;
		}
	}
	char **words = calloc((size_t)argc + 2, sizeof(*words));
	if (words == NULL) {
		return -ENOMEM;
	}
	/* `workspace <ws>` first: the file is that workspace's. */
	int n = 0, from = 0;
	words[n++] = "veil";
	if (argc >= 2 && argv[0] != NULL && strcasecmp(argv[0], "workspace") == 0) {
		words[n++] = argv[0];
		words[n++] = argv[1];
		from = 2;
	}
	words[n++] = placeholder;
	for (int i = from; i < argc; i++) {
		words[n++] = argv[i];
	}
	int ret = veil_command_parse(n, words, &parsed, message);
	free(words);
	if (ret < 0) {
		return ret;
	}
	/* A word the parser took as part of the file's name is one the file cannot have. */
	if (parsed.kind != VEIL_COMMAND_SET || parsed.path == NULL ||
			strcmp(parsed.path, placeholder) != 0) {
		veil_command_finish(&parsed);
		char shown[VEIL_QUOTE_SIZE];
		return veil_message_fail(message, -EINVAL, "Unexpected word '%s' after the file: "
			"expected a mode, a colour or an option",
			veil_message_quote(shown, argc > 0 && argv[0] != NULL ? argv[0] : ""));
	}
	free(parsed.path);
	parsed.path = NULL;
	*cmd = parsed;
	return 0;
}
