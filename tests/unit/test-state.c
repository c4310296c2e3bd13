/*
 * veil_state_parse and the commands it gives back (module/state/state_read.c): what the writer
 * writes comes back as the command it was (settings, workspace settings, transition defaults, fps
 * and battery policies); every kind of bad file is refused with a reason; and
 * `veil restore [FALLBACK...]` parses. Prints one line per failure and a summary.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "module/words/command.h"
#include "module/state/look_json.h"
#include "module/state/state.h"
#include "check.h"

static struct json_object *parse(const char *text, char **why) {
	return veil_state_parse(text, strlen(text), why);
}

/* A member of a parsed root (borrowed), NULL when it has none. */
static struct json_object *member(struct json_object *root, const char *name) {
	struct json_object *obj = NULL;
	return root != NULL && json_object_object_get_ex(root, name, &obj) ? obj : NULL;
}

static void refused(const char *text, size_t len, const char *reason) {
	char *why = NULL;
	struct json_object *root = veil_state_parse(text, len, &why);
	CHECK(root == NULL && why != NULL && strstr(why, reason) != NULL,
		"'%.60s': %s (wanted: %s)", text, why != NULL ? why : "(accepted)", reason);
	json_object_put(root);
	free(why);
}

#define REFUSED(text, reason) refused(text, strlen(text), reason)

static void test_round_trip(void) {
	char *why = NULL;
	struct json_object *root = parse("{\"version\":1,\"outputs\":{"
		"\"HDMI-A-1\":{\"mode\":\"fit\",\"color\":\"#102030\","
		"\"file\":{\"path\":\"/w/$HOME/~a b.png\",\"size\":10,\"mtime_ns\":5},"
		"\"transition\":{\"kind\":\"grow\",\"ms\":1200,\"at\":[\"50%\",\"100%\"]},"
		"\"span\":true,\"loopfade_ms\":300,\"filter\":\"nearest\"},"
		"\"*\":{\"mode\":\"fill\",\"color\":\"#000000\",\"slideshow\":{\"directory\":\"/w\","
		"\"file\":\"/w/2.png\",\"position\":2,\"order\":\"shuffle\",\"recursive\":true,"
		"\"every\":30,\"seen\":[\"/w/1.png\",\"/w/2.png\"]},"
		"\"transition\":{\"kind\":\"wipe\",\"ms\":300,\"from\":\"top\"}},"
		"\"DP-1\":{\"mode\":\"solid_color\",\"color\":\"#abcdef\",\"dark\":\"#010203\"},"
		"\"DP-4\":{\"mode\":\"fit\",\"color\":\"#000000\",\"file\":{\"path\":\"/l.png\"},"
		"\"dark\":\"#0a0b0c\"},"
		"\"DP-2\":{\"off\":true},"
		"\"DP-3\":{\"mode\":\"fill\",\"color\":\"#000000\",\"file\":{\"path\":\"/l.png\"},"
		"\"dark\":\"/$d/d.png\",\"transition\":{\"kind\":\"fade\",\"ms\":400,"
		"\"ease\":\"cubic-bezier(0.2,0.9,0.3,1)\"}}}}", &why);
	CHECK(root != NULL, "%s", why != NULL ? why : "");
	free(why);
	if (root == NULL) {
		return;
	}
	struct json_object *outputs = member(root, "outputs");
	struct json_object *entry;
	struct veil_command cmd;
	json_object_object_get_ex(outputs, "HDMI-A-1", &entry);
	CHECK(veil_state_command(entry, &cmd, &why) == 0, "%s", why);
	/* The path as written, not expanded as the user's words would be. */
	CHECK(cmd.kind == VEIL_COMMAND_SET && strcmp(cmd.path, "/w/$HOME/~a b.png") == 0 &&
		cmd.look.mode == VEIL_MODE_FIT && cmd.look.color == 0x102030 && cmd.look.span &&
		cmd.look.loopfade_ms == 300 && cmd.look.has_transition &&
		cmd.look.filter == VEIL_IMAGE_FILTER_NEAREST &&
		cmd.look.transition.kind == VEIL_TRANSITION_GROW && cmd.look.transition.ms == 1200 &&
		cmd.look.transition.at_y.value == 100 && cmd.look.transition.at_y.percent, "%s", cmd.path);
	veil_command_finish(&cmd);

	json_object_object_get_ex(outputs, "*", &entry);
	CHECK(veil_state_command(entry, &cmd, &why) == 0, "%s", why);
	CHECK(cmd.kind == VEIL_COMMAND_SET && strcmp(cmd.path, "/w") == 0 && cmd.has_slideshow &&
		cmd.slideshow.order == VEIL_SLIDESHOW_SHUFFLE && cmd.slideshow.recursive &&
		cmd.slideshow.every_s == 30 && cmd.look.transition.kind == VEIL_TRANSITION_WIPE &&
		cmd.look.transition.side == VEIL_SIDE_TOP);
	veil_command_finish(&cmd);

	json_object_object_get_ex(outputs, "DP-1", &entry);
	CHECK(veil_state_command(entry, &cmd, &why) == 0, "%s", why);
	CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.look.mode == VEIL_MODE_SOLID_COLOR &&
		cmd.look.color == 0xabcdef && cmd.path == NULL && cmd.look.has_dark_color &&
		cmd.look.dark_color == 0x010203 && cmd.look.dark_path == NULL);
	veil_command_finish(&cmd);

	/* A picture's dark colour. */
	json_object_object_get_ex(outputs, "DP-4", &entry);
	CHECK(veil_state_command(entry, &cmd, &why) == 0, "%s", why);
	CHECK(cmd.kind == VEIL_COMMAND_SET && strcmp(cmd.path, "/l.png") == 0 &&
		cmd.look.mode == VEIL_MODE_FIT && cmd.look.has_dark_color &&
		cmd.look.dark_color == 0x0a0b0c && cmd.look.dark_path == NULL);
	veil_command_finish(&cmd);

	json_object_object_get_ex(outputs, "DP-2", &entry);
	CHECK(veil_state_command(entry, &cmd, &why) == 0 && cmd.kind == VEIL_COMMAND_OFF);
	veil_command_finish(&cmd);

	/* The dark picture as written, and the transition's curve. */
	json_object_object_get_ex(outputs, "DP-3", &entry);
	CHECK(veil_state_command(entry, &cmd, &why) == 0, "%s", why);
	CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.look.dark_path != NULL &&
		strcmp(cmd.look.dark_path, "/$d/d.png") == 0 &&
		cmd.look.transition.kind == VEIL_TRANSITION_FADE &&
		cmd.look.transition.ease.kind == VEIL_EASE_BEZIER && cmd.look.transition.ease.x1 == 0.2 &&
		cmd.look.transition.ease.y2 == 1.0, "%s",
		cmd.look.dark_path != NULL ? cmd.look.dark_path : "no dark");
	CHECK(cmd.look.filter == VEIL_IMAGE_FILTER_SMOOTH, "no filter written: the default");
	veil_command_finish(&cmd);
	json_object_put(root);

	/* A filter word the parser refuses: the setting is refused with its reason. */
	root = parse("{\"version\":1,\"outputs\":{\"A\":{\"mode\":\"fill\","
		"\"color\":\"#000000\",\"file\":{\"path\":\"/l.png\"},\"filter\":\"lanczos\"}}}",
		&why);
	CHECK(root != NULL, "%s", why != NULL ? why : "");
	free(why);
	why = NULL;
	entry = member(member(root, "outputs"), "A");
	if (entry != NULL) {
		CHECK(veil_state_command(entry, &cmd, &why) < 0 && why != NULL &&
			strstr(why, "Invalid filter 'lanczos'") != NULL, "%s", why != NULL ? why : "");
		free(why);
	}
	json_object_put(root);
}

/* Types right, values the parser refuses: refused when turned into a command. */
static void test_values(void) {
	static const char *const entries[] = {
		"{\"mode\":\"sideways\",\"file\":{\"path\":\"/a.png\"}}",
		"{\"mode\":\"fill\",\"color\":\"red\",\"file\":{\"path\":\"/a.png\"}}",
		"{\"mode\":\"fill\",\"file\":{\"path\":\"/a.png\"},"
			"\"transition\":{\"kind\":\"explode\",\"ms\":1}}",
		"{\"mode\":\"fill\",\"file\":{\"path\":\"/a.png\"},"
			"\"transition\":{\"kind\":\"fade\",\"ms\":99999999}}",
		"{\"mode\":\"fill\",\"slideshow\":{\"directory\":\"/w\",\"every\":-5}}",
		"{\"mode\":\"fill\",\"slideshow\":{\"directory\":\"/w\",\"order\":\"chaos\"}}",
		"{\"mode\":\"fill\"}",
	};
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		char text[512], *why = NULL;
		snprintf(text, sizeof(text), "{\"version\":1,\"outputs\":{\"X\":%s}}", entries[i]);
		struct json_object *root = parse(text, &why);
		CHECK(root != NULL, "%s: %s", entries[i], why);
		free(why);
		why = NULL;
		struct json_object *entry = member(member(root, "outputs"), "X");
		struct veil_command cmd;
		if (entry != NULL) {
			CHECK(veil_state_command(entry, &cmd, &why) < 0 && why != NULL, "%s",
				entries[i]);
		}
		free(why);
		json_object_put(root);
	}
}

static void test_refused(void) {
	REFUSED("", "empty");
	REFUSED("not json", "not whole JSON");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"mode\":\"fi", "ends too early");
	REFUSED("{\"version\":1,\"outputs\":{}} trailing", "follows");
	refused("{\"version\":1,\0\"outputs\":{}}", 26, "NUL");
	REFUSED("[1,2]", "no version");
	REFUSED("{\"version\":\"1\",\"outputs\":{}}", "no version");
	REFUSED("{\"version\":2,\"outputs\":{}}", "version 2");
	REFUSED("{\"version\":1,\"outputs\":[]}", "outputs");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":[]}}", "not an object");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"mode\":1}}}", "wrong type");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"filter\":2}}}", "wrong type");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"file\":{\"path\":\"a.png\"}}}}",
		"absolute");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"file\":{\"path\":\"/a\",\"size\":-1}}}}",
		"size");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"file\":{\"path\":\"/a\\u0000b\"}}}}",
		"absolute");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"slideshow\":{\"directory\":\"/w\","
		"\"seen\":[1]}}}}", "seen");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"transition\":{\"at\":[\"1\"]}}}}", "at");
	REFUSED("{\"version\":1,\"outputs\":{\"\":{}}}", "name");

	/* Deep nesting stops at the tokenizer's depth, without recursion to the bottom. */
	size_t depth = 100000;
	char *deep = malloc(2 * depth + 1);
	memset(deep, '[', depth);
	memset(deep + depth, ']', depth);
	deep[2 * depth] = '\0';
	refused(deep, 2 * depth, "too deep");
	free(deep);

	size_t big = VEIL_STATE_MAX_SIZE + 10;
	char *huge = malloc(big);
	memset(huge, ' ', big);
	refused(huge, big, "larger");
	free(huge);
}

/* Workspace settings, transition defaults, policies, a video's position and filter. */
static void test_extras(void) {
	char *why = NULL;
	struct json_object *root = parse("{\"version\":1,\"outputs\":{"
		"\"*\":{\"mode\":\"fill\",\"file\":{\"path\":\"/v.mp4\"},\"filter\":\"nearest\","
		"\"paused\":true,\"position_ms\":1500}},"
		"\"workspaces\":{\"*\":{\"2\":{\"mode\":\"fit\",\"color\":\"#010203\","
		"\"file\":{\"path\":\"/two.png\"},\"transition\":{\"kind\":\"slide\",\"ms\":300}},"
		"\"mail\":{\"mode\":\"solid_color\",\"color\":\"#abcdef\"}}},"
		"\"transitions\":{\"*\":{\"kind\":\"wipe\",\"ms\":250,\"from\":\"top\","
		"\"ease\":\"in\"}},"
		"\"policies\":{\"*\":{\"fps\":24,\"battery\":\"fps\",\"battery_fps\":10},"
		"\"DP-1\":{\"fps\":0,\"battery\":\"pause\"},\"DP-2\":{}}}", &why);
	CHECK(root != NULL, "%s", why != NULL ? why : "");
	free(why);
	why = NULL;
	if (root == NULL) {
		return;
	}
	struct veil_command cmd;
	CHECK(veil_state_command(member(member(root, "outputs"), "*"), &cmd, &why) == 0 &&
		cmd.look.filter == VEIL_IMAGE_FILTER_NEAREST && strcmp(cmd.path, "/v.mp4") == 0, "%s",
		why != NULL ? why : "");
	veil_command_finish(&cmd);

	struct json_object *spaces = member(member(root, "workspaces"), "*");
	CHECK(veil_state_command(member(spaces, "2"), &cmd, &why) == 0 &&
		cmd.kind == VEIL_COMMAND_SET && strcmp(cmd.path, "/two.png") == 0 &&
		cmd.look.mode == VEIL_MODE_FIT && cmd.look.color == 0x010203 &&
		cmd.look.transition.kind == VEIL_TRANSITION_SLIDE && !cmd.look.transition.side_given, "%s",
		why);
	veil_command_finish(&cmd);
	CHECK(veil_state_command(member(spaces, "mail"), &cmd, &why) == 0 &&
		cmd.look.mode == VEIL_MODE_SOLID_COLOR && cmd.look.color == 0xabcdef, "%s", why);
	veil_command_finish(&cmd);

	CHECK(veil_state_transition_command(member(member(root, "transitions"), "*"), &cmd,
		&why) == 0 && cmd.kind == VEIL_COMMAND_TRANSITION &&
		cmd.look.transition.kind == VEIL_TRANSITION_WIPE && cmd.look.transition.ms == 250 &&
		cmd.look.transition.side == VEIL_SIDE_TOP &&
		cmd.look.transition.ease.kind != VEIL_EASE_LINEAR,
		"%s", why);
	veil_command_finish(&cmd);

	struct json_object *policies = member(root, "policies");
	CHECK(veil_state_policy_command(member(policies, "*"), false, &cmd, &why) == 0 &&
		cmd.kind == VEIL_COMMAND_FPS && cmd.fps == 24, "%s", why);
	veil_command_finish(&cmd);
	CHECK(veil_state_policy_command(member(policies, "*"), true, &cmd, &why) == 0 &&
		cmd.kind == VEIL_COMMAND_BATTERY && cmd.battery == VEIL_BATTERY_FPS &&
		cmd.battery_fps == 10, "%s", why);
	veil_command_finish(&cmd);
	CHECK(veil_state_policy_command(member(policies, "DP-1"), false, &cmd, &why) == 0 &&
		cmd.kind == VEIL_COMMAND_FPS && cmd.fps == 0, "fps off: %s", why);
	veil_command_finish(&cmd);
	CHECK(veil_state_policy_command(member(policies, "DP-1"), true, &cmd, &why) == 0 &&
		cmd.battery == VEIL_BATTERY_PAUSE, "%s", why);
	veil_command_finish(&cmd);
	CHECK(veil_state_policy_command(member(policies, "DP-2"), false, &cmd, &why) == 1 &&
		veil_state_policy_command(member(policies, "DP-2"), true, &cmd, &why) == 1,
		"an empty policy has neither");
	json_object_put(root);

	/* Values of the right type the parser refuses. */
	root = parse("{\"version\":1,\"outputs\":{},\"transitions\":{\"*\":{\"kind\":"
		"\"explode\"}},\"policies\":{\"*\":{\"fps\":100000,\"battery\":\"dance\"}}}",
		&why);
	CHECK(root != NULL, "%s", why);
	CHECK(veil_state_transition_command(member(member(root, "transitions"), "*"), &cmd,
		&why) < 0 && why != NULL);
	free(why);
	why = NULL;
	policies = member(root, "policies");
	CHECK(veil_state_policy_command(member(policies, "*"), false, &cmd, &why) < 0 &&
		why != NULL);
	free(why);
	why = NULL;
	CHECK(veil_state_policy_command(member(policies, "*"), true, &cmd, &why) < 0 &&
		why != NULL);
	free(why);
	json_object_put(root);

	REFUSED("{\"version\":1,\"outputs\":{},\"workspaces\":[]}", "workspaces");
	REFUSED("{\"version\":1,\"outputs\":{},\"workspaces\":{\"*\":{\"2\":{\"mode\":1}}}}",
		"wrong type");
	REFUSED("{\"version\":1,\"outputs\":{},\"workspaces\":{\"*\":{\"2\":{"
		"\"slideshow\":{\"directory\":\"/w\"}}}}}", "one picture");
	REFUSED("{\"version\":1,\"outputs\":{},\"workspaces\":{\"*\":{\"\":{}}}}",
		"workspace's name");
	REFUSED("{\"version\":1,\"outputs\":{},\"transitions\":{\"*\":[]}}", "transition");
	REFUSED("{\"version\":1,\"outputs\":{},\"policies\":{\"*\":{\"fps\":\"24\"}}}",
		"policy");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"position_ms\":-4}}}", "position_ms");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"position_ms\":1.5}}}", "position_ms");
}

static void test_restore_words(void) {
	struct veil_command cmd;
	char *message = NULL;
	CHECK(veil_command_parse(2, (char *[]){ "veil", "restore" }, &cmd, &message) == 0 &&
		cmd.kind == VEIL_COMMAND_RESTORE && cmd.fallback == NULL);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(5, (char *[]){ "veil", "restore", "/a.png", "fit", "#010203" },
		&cmd, &message) == 0 && cmd.kind == VEIL_COMMAND_RESTORE && cmd.fallback != NULL &&
		strcmp(cmd.fallback->path, "/a.png") == 0 && cmd.fallback->look.mode == VEIL_MODE_FIT &&
		cmd.fallback->look.color == 0x010203);
	veil_command_finish(&cmd);
	CHECK(cmd.fallback == NULL && cmd.path == NULL);
	CHECK(veil_command_parse(4, (char *[]){ "veil", "restore", "#102030", "solid_color" },
		&cmd, &message) == 0 && cmd.fallback != NULL &&
		cmd.fallback->look.mode == VEIL_MODE_SOLID_COLOR);
	veil_command_finish(&cmd);
	CHECK(veil_command_parse(3, (char *[]){ "veil", "restore", "next" }, &cmd, &message) ==
		-EINVAL && message != NULL && strstr(message, "fallback") != NULL, "%s", message);
	free(message);
	message = NULL;
	CHECK(veil_command_parse(4, (char *[]){ "veil", "restore", "restore", "/a.png" }, &cmd,
		&message) < 0, "a restore in a restore");
	free(message);
}

/* The member's text in obj ("" when absent, "null" for null). */
static const char *text_of(struct json_object *obj, const char *name) {
	struct json_object *value = NULL;
	if (!json_object_object_get_ex(obj, name, &value)) {
		return "";
	}
	return value != NULL ? json_object_to_json_string(value) : "null";
}

/*
 * One look through the table (module/state/look_json.c): written as the state file has it, it
 * comes back through the reader's words as it was; the status names its members its own way.
 */
static void test_look_table(void) {
	struct veil_look look = {
		.mode = VEIL_MODE_FIT, .color = 0x102030, .has_transition = true,
		.transition = { .kind = VEIL_TRANSITION_GROW, .ms = 700,
			.at_x = { .value = 25, .percent = true }, .at_y = { .value = 40 } },
		.span = true, .loopfade_ms = 450, .filter = VEIL_IMAGE_FILTER_NEAREST,
		.has_location = true, .latitude = 51.5, .longitude = -0.125,
		.dark_path = "/d/dark one.png",
	};
	struct json_object *entry = json_object_new_object();
	veil_look_to_json(&look, VEIL_LOOK_JSON_STATE, entry);
	struct json_object *file = json_object_new_object();
	json_object_object_add(file, "path", json_object_new_string("/l.png"));
	json_object_object_add(entry, "file", file);
	CHECK(veil_look_check_json(entry) == NULL, "%s", json_object_to_json_string(entry));
	CHECK(strcmp(text_of(entry, "loopfade_ms"), "450") == 0 &&
		strcmp(text_of(entry, "filter"), "\"nearest\"") == 0 &&
		strcmp(text_of(entry, "span"), "true") == 0, "%s", json_object_to_json_string(entry));
	struct veil_command cmd;
	char *why = NULL;
	CHECK(veil_state_command(entry, &cmd, &why) == 0, "%s", why);
	CHECK(cmd.kind == VEIL_COMMAND_SET && strcmp(cmd.path, "/l.png") == 0 &&
		cmd.look.mode == VEIL_MODE_FIT && cmd.look.color == 0x102030 &&
		cmd.look.has_transition && cmd.look.transition.kind == VEIL_TRANSITION_GROW &&
		cmd.look.transition.ms == 700 && cmd.look.transition.at_x.value == 25 &&
		cmd.look.transition.at_x.percent && cmd.look.transition.at_y.value == 40 &&
		!cmd.look.transition.at_y.percent && cmd.look.span && cmd.look.loopfade_ms == 450 &&
		cmd.look.filter == VEIL_IMAGE_FILTER_NEAREST && cmd.look.has_location &&
		cmd.look.latitude == 51.5 && cmd.look.longitude == -0.125 &&
		cmd.look.dark_path != NULL && strcmp(cmd.look.dark_path, "/d/dark one.png") == 0,
		"%s", json_object_to_json_string(entry));
	veil_command_finish(&cmd);
	free(why);

	/* The status: its own names, null for what is not set, no state-only member. */
	struct json_object *status = json_object_new_object();
	look.loopfade_ms = 0;
	look.has_location = false;
	veil_look_to_json(&look, VEIL_LOOK_JSON_STATUS, status);
	CHECK(strcmp(text_of(status, "mode"), "\"fit\"") == 0 &&
		strcmp(text_of(status, "color"), "\"#102030\"") == 0 &&
		strcmp(text_of(status, "filter"), "\"nearest\"") == 0 &&
		strcmp(text_of(status, "loopfade"), "null") == 0 &&
		strcmp(text_of(status, "location"), "null") == 0 &&
		json_object_object_length(status) == 5, "%s", json_object_to_json_string(status));
	json_object_put(status);
	status = json_object_new_object();
	veil_look_to_json(&look, VEIL_LOOK_JSON_STATUS_UNSET, status);
	CHECK(strcmp(text_of(status, "mode"), "") == 0 && strcmp(text_of(status, "color"), "") == 0 &&
		json_object_object_length(status) == 3, "%s", json_object_to_json_string(status));
	json_object_put(status);

	/* A solid colour's entry is its colour alone, */
	json_object_put(entry);
	entry = json_object_new_object();
	look.mode = VEIL_MODE_SOLID_COLOR;
	look.dark_path = NULL;
	veil_look_to_json(&look, VEIL_LOOK_JSON_STATE, entry);
	CHECK(json_object_object_length(entry) == 2 &&
		strcmp(text_of(entry, "color"), "\"#102030\"") == 0, "%s",
		json_object_to_json_string(entry));
	json_object_put(entry);
	/* and its dark colour, read back as the words gave it (`#102030 solid_color dark #010203`). */
	entry = json_object_new_object();
	look.has_dark_color = true;
	look.dark_color = 0x010203;
	veil_look_to_json(&look, VEIL_LOOK_JSON_STATE, entry);
	CHECK(json_object_object_length(entry) == 3 &&
		strcmp(text_of(entry, "dark"), "\"#010203\"") == 0, "%s",
		json_object_to_json_string(entry));
	CHECK(veil_state_command(entry, &cmd, &why) == 0, "%s", why);
	CHECK(cmd.kind == VEIL_COMMAND_SET && cmd.look.mode == VEIL_MODE_SOLID_COLOR &&
		cmd.look.color == 0x102030 && cmd.look.has_dark_color &&
		cmd.look.dark_color == 0x010203, "%s", json_object_to_json_string(entry));
	veil_command_finish(&cmd);
	free(why);
	why = NULL;
	json_object_put(entry);

	/* A member of another type is refused, by its name. */
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"loopfade_ms\":\"1\"}}}", "loopfade_ms");
	REFUSED("{\"version\":1,\"outputs\":{\"A\":{\"location\":[1]}}}", "two numbers");
}

int main(void) {
	test_round_trip();
	test_values();
	test_refused();
	test_extras();
	test_restore_words();
	test_look_table();
	return check_summary("state");
}
