/*
 * veil_state_parse and the commands made of what it accepts (veil_state_command for outputs and
 * workspaces, veil_state_transition_command, veil_state_policy_command): a state file's text, as
 * a hostile or broken file may hold it. Beyond the sanitizers' findings, a run stops when the
 * reader breaks its contract: a refusal without a reason, a reason that is not a line of text, a
 * command of the wrong kind, or a setting it accepted whose command names a path that is not
 * absolute (the writer writes only absolute ones).
 */
#define _GNU_SOURCE
#include <json-c/json.h>
#include "fuzz-common.h"
#include "module/words/command.h"
#include "module/state/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reason(const char *why) {
	FUZZ_CHECK(why != NULL && why[0] != '\0', "a refusal without a reason");
	FUZZ_CHECK(strchr(why, '\n') == NULL, "a reason of several lines: %s", why);
}

static void check_command(int ret, struct veil_command *cmd, char *why) {
	if (ret < 0) {
		check_reason(why);
		free(why);
		return;
	}
	FUZZ_CHECK(why == NULL, "a command with a reason: %s", why);
	if (ret == 0) {
		FUZZ_CHECK(cmd->path == NULL || cmd->path[0] == '/', "a relative path: %s",
			cmd->path);
		veil_command_finish(cmd);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char *why = NULL;
	struct json_object *root = veil_state_parse((const char *)data, size, &why);
	if (root == NULL) {
		check_reason(why);
		free(why);
		return 0;
	}
	FUZZ_CHECK(why == NULL, "accepted with a reason: %s", why);
	struct json_object *outputs, *member;
	FUZZ_CHECK(json_object_object_get_ex(root, "outputs", &outputs) &&
		json_object_is_type(outputs, json_type_object), "accepted without outputs");
	struct veil_command cmd;
	json_object_object_foreach(outputs, name, entry) {
		(void)name;
		int ret = veil_state_command(entry, &cmd, &why);
		FUZZ_CHECK(ret < 0 || cmd.kind == VEIL_COMMAND_SET || cmd.kind == VEIL_COMMAND_OFF,
			"a setting that is not one: %d", (int)cmd.kind);
		check_command(ret, &cmd, why);
		why = NULL;
	}
	if (json_object_object_get_ex(root, "workspaces", &member)) {
		json_object_object_foreach(member, owner, spaces) {
			(void)owner;
			json_object_object_foreach(spaces, ws, ws_entry) {
				(void)ws;
				int ret = veil_state_command(ws_entry, &cmd, &why);
				FUZZ_CHECK(ret < 0 || cmd.kind == VEIL_COMMAND_SET ||
					cmd.kind == VEIL_COMMAND_OFF, "a workspace setting that is not one");
				check_command(ret, &cmd, why);
				why = NULL;
			}
		}
	}
	if (json_object_object_get_ex(root, "transitions", &member)) {
		json_object_object_foreach(member, tr_name, tr) {
			(void)tr_name;
			int ret = veil_state_transition_command(tr, &cmd, &why);
			FUZZ_CHECK(ret < 0 || cmd.kind == VEIL_COMMAND_TRANSITION,
				"a transition that is not one");
			check_command(ret, &cmd, why);
			why = NULL;
		}
	}
	if (json_object_object_get_ex(root, "policies", &member)) {
		json_object_object_foreach(member, policy_name, policy) {
			(void)policy_name;
			for (int battery = 0; battery < 2; battery++) {
				int ret = veil_state_policy_command(policy, battery, &cmd, &why);
				FUZZ_CHECK(ret != 0 || cmd.kind == (battery ? VEIL_COMMAND_BATTERY :
					VEIL_COMMAND_FPS), "a policy that is not one");
				check_command(ret, &cmd, why);
				why = NULL;
			}
		}
	}
	json_object_put(root);
	return 0;
}
