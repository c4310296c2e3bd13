/*
 * veil_command_parse: the words of `output <name> veil ...` as sway hands them over, split and
 * unquoted. The input is those words after "veil", separated by NUL bytes (the one byte a word
 * cannot hold). Beyond the sanitizers' findings, a run stops when the parser breaks its contract:
 * an unknown errno, a failure without a message, a message that is not a clean sentence, a path
 * with a control character or longer than PATH_MAX, or an environment that changed (file names
 * are expanded with wordexp(), which must run nothing and assign nothing in the compositor).
 */
#define _GNU_SOURCE
#include <limits.h>
#include "fuzz-common.h"
#include "module/words/command.h"

#define MAX_WORDS 64

extern char **environ;

/* The environment after setup, to tell that parsing changed none of it. */
static char **saved_env;
static size_t saved_env_len;

static void set(const char *name, const char *value) {
	FUZZ_CHECK(setenv(name, value, 1) == 0, "setenv %s", name);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
	/* Variables of every kind expansion meets: set, empty, split, with a control character. */
	set("HOME", "/home/fuzz");
	set("VEIL_FUZZ_DIR", "/srv/wallpapers");
	set("VEIL_FUZZ_EMPTY", "");
	set("VEIL_FUZZ_WORDS", "two  words\tand more");
	set("VEIL_FUZZ_CTRL", "line\nbreak");
	static char long_value[5000];
	memset(long_value, 'l', sizeof(long_value) - 1);
	set("VEIL_FUZZ_LONG", long_value);
	unsetenv("VEIL_FUZZ_UNSET");

	for (saved_env_len = 0; environ[saved_env_len] != NULL; saved_env_len++) {
	}
	saved_env = calloc(saved_env_len + 1, sizeof(*saved_env));
	FUZZ_CHECK(saved_env != NULL, "calloc");
	for (size_t i = 0; i < saved_env_len; i++) {
		saved_env[i] = strdup(environ[i]);
		FUZZ_CHECK(saved_env[i] != NULL, "strdup");
	}
	return 0;
}

static void check_environment(void) {
	size_t len = 0;
	for (; environ[len] != NULL; len++) {
		FUZZ_CHECK(len < saved_env_len && strcmp(environ[len], saved_env[len]) == 0,
			"the environment changed: '%s'", environ[len]);
	}
	FUZZ_CHECK(len == saved_env_len, "the environment lost variables (%zu of %zu)", len,
		saved_env_len);
}

static bool has_control(const char *s) {
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			return true;
		}
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	/* A copy with a terminating NUL, so that the last word ends too. */
	char *text = malloc(size + 1);
	FUZZ_CHECK(text != NULL, "malloc");
	memcpy(text, data, size);
	text[size] = '\0';

	char *argv[MAX_WORDS + 1];
	int argc = 0;
	argv[argc++] = "veil";
	if (size > 0) {
		char *word = text;
		while (argc < MAX_WORDS) {
			argv[argc++] = word;
			char *end = memchr(word, '\0', (size_t)(text + size - word));
			if (end == NULL || end == text + size) {
				break;
			}
			word = end + 1;
		}
	}
	argv[argc] = NULL;

	for (int i = 1; i < argc; i++) {
		uint32_t rgb = 0;
		if (veil_color_parse(argv[i], &rgb)) {
			FUZZ_CHECK(rgb <= 0xffffff, "colour '%s' gave 0x%x", argv[i], rgb);
		}
		enum veil_mode mode;
		if (veil_mode_from_name(argv[i], &mode)) {
			FUZZ_CHECK(mode >= VEIL_MODE_STRETCH && mode <= VEIL_MODE_INTEGER,
				"mode %d", (int)mode);
		}
	}

	struct veil_command cmd;
	char *message = NULL;
	int ret = veil_command_parse(argc, argv, &cmd, &message);
	if (ret < 0) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENAMETOOLONG || ret == -ENOMEM,
			"unexpected errno %d", ret);
		FUZZ_CHECK(message != NULL, "failure %d without a message", ret);
		FUZZ_CHECK(fuzz_message_ok(message, true), "bad message '%s'", message);
		FUZZ_CHECK(cmd.path == NULL && cmd.look.dark_path == NULL, "failure left a path");
		FUZZ_CHECK(cmd.workspace == NULL, "failure left a workspace");
	} else {
		FUZZ_CHECK(ret == 0, "positive return %d", ret);
		FUZZ_CHECK(message == NULL, "success with a message '%s'", message);
		FUZZ_CHECK(cmd.kind >= VEIL_COMMAND_SET && cmd.kind <= VEIL_COMMAND_RESTORE,
			"kind %d", (int)cmd.kind);
		/* `restore FALLBACK...`: the fallback is a setting of its own, a file or a colour. */
		const struct veil_command *fallback = cmd.fallback;
		if (fallback != NULL) {
			FUZZ_CHECK(cmd.kind == VEIL_COMMAND_RESTORE && fallback->kind == VEIL_COMMAND_SET,
				"fallback of kind %d for kind %d", (int)fallback->kind, (int)cmd.kind);
			FUZZ_CHECK(fallback->look.mode == VEIL_MODE_SOLID_COLOR ? fallback->path == NULL :
				fallback->path != NULL && fallback->path[0] != '\0' &&
				strlen(fallback->path) < PATH_MAX && !has_control(fallback->path),
				"fallback path for mode %d", (int)fallback->look.mode);
		}
		/* `workspace <ws> ...`: a SET or an OFF, for a name a person could have typed. */
		if (cmd.workspace != NULL) {
			FUZZ_CHECK(cmd.kind == VEIL_COMMAND_SET || cmd.kind == VEIL_COMMAND_OFF,
				"workspace for kind %d", (int)cmd.kind);
			FUZZ_CHECK(cmd.workspace[0] != '\0' &&
				strlen(cmd.workspace) <= VEIL_WORKSPACE_NAME_MAX &&
				!has_control(cmd.workspace), "workspace name '%s'", cmd.workspace);
		}
		if (cmd.look.dark_path != NULL) {
			FUZZ_CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.look.mode != VEIL_MODE_SOLID_COLOR &&
				!cmd.has_slideshow, "dark for kind %d mode %d", (int)cmd.kind,
				(int)cmd.look.mode);
			FUZZ_CHECK(cmd.look.dark_path[0] != '\0' && strlen(cmd.look.dark_path) < PATH_MAX &&
				!has_control(cmd.look.dark_path), "dark path '%s'", cmd.look.dark_path);
		}
		/* A curve's control points: x within [0,1], so that time runs one way. */
		const struct veil_ease *ease = &cmd.look.transition.ease;
		FUZZ_CHECK(ease->kind == VEIL_EASE_LINEAR || (ease->x1 >= 0.0 && ease->x1 <= 1.0 &&
			ease->x2 >= 0.0 && ease->x2 <= 1.0), "curve x %g %g", ease->x1, ease->x2);
		FUZZ_CHECK(cmd.look.color <= 0xffffff, "colour 0x%x", cmd.look.color);
		FUZZ_CHECK(cmd.fps >= 0 && cmd.fps <= VEIL_FPS_MAX && cmd.battery_fps >= 0 &&
			cmd.battery_fps <= VEIL_FPS_MAX, "fps %d, battery fps %d", cmd.fps,
			cmd.battery_fps);
		if (cmd.kind == VEIL_COMMAND_SET && cmd.look.mode != VEIL_MODE_SOLID_COLOR) {
			FUZZ_CHECK(cmd.path != NULL && cmd.path[0] != '\0', "SET without a path");
			FUZZ_CHECK(strlen(cmd.path) < PATH_MAX, "path of %zu bytes",
				strlen(cmd.path));
			FUZZ_CHECK(!has_control(cmd.path), "path with a control character");
		} else {
			FUZZ_CHECK(cmd.path == NULL, "a path for kind %d mode %d", (int)cmd.kind,
				(int)cmd.look.mode);
		}
	}
	check_environment();
	veil_command_finish(&cmd);
	free(message);

	/* The same words after a file given as a descriptor (the control protocol's set_media). */
	message = NULL;
	ret = veil_command_parse_media(argc - 1, argv + 1, &cmd, &message);
	if (ret < 0) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENAMETOOLONG || ret == -ENOMEM,
			"media: unexpected errno %d", ret);
		FUZZ_CHECK(message != NULL && fuzz_message_ok(message, true),
			"media: failure %d without a good message", ret);
	} else {
		FUZZ_CHECK(ret == 0 && message == NULL, "media: %d, '%s'", ret, message);
		FUZZ_CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.look.mode != VEIL_MODE_SOLID_COLOR,
			"media: kind %d mode %d", (int)cmd.kind, (int)cmd.look.mode);
	}
	FUZZ_CHECK(cmd.path == NULL, "media: a path");
	veil_command_finish(&cmd);
	free(message);
	free(text);
	return 0;
}
