/*
 * veil_state_parse and veil_state_command: a state file's text, as a hostile or broken file may
 * hold it. Beyond the sanitizers' findings, a run stops when the reader breaks its contract: a
 * refusal without a reason, a reason that is not a line of text, or a setting it accepted whose
 * command names a path that is not absolute (the writer writes only absolute ones).
 */
#define _GNU_SOURCE
#include <json-c/json.h>
#include "fuzz-common.h"
#include "module/command.h"
#include "module/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reason(const char *why) {
	FUZZ_CHECK(why != NULL && why[0] != '\0', "a refusal without a reason");
	FUZZ_CHECK(strchr(why, '\n') == NULL, "a reason of several lines: %s", why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char *why = NULL;
	struct json_object *outputs = veil_state_parse((const char *)data, size, &why);
	if (outputs == NULL) {
		check_reason(why);
		free(why);
		return 0;
	}
	FUZZ_CHECK(why == NULL, "accepted with a reason: %s", why);
	json_object_object_foreach(outputs, name, entry) {
		(void)name;
		struct veil_command cmd;
		int ret = veil_state_command(entry, &cmd, &why);
		if (ret < 0) {
			check_reason(why);
			free(why);
			why = NULL;
			continue;
		}
		FUZZ_CHECK(cmd.kind == VEIL_COMMAND_SET || cmd.kind == VEIL_COMMAND_OFF,
			"a setting that is not one: %d", (int)cmd.kind);
		FUZZ_CHECK(cmd.path == NULL || cmd.path[0] == '/', "a relative path: %s", cmd.path);
		veil_command_finish(&cmd);
	}
	json_object_put(outputs);
	return 0;
}
