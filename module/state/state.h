/*
 * What the user set, kept across restarts (module/state/state.c): a JSON file the compositor names
 * (veil_scene_set_state_path()), written on a worker when a setting changes, at most once a
 * second, atomically; read once on a worker, and used by `veil restore [FALLBACK ...]`.
 *
 * module/state/state_read.c reads and checks the file's text: pure, no file opened, no scene
 * touched (the fuzzer's target and the unit test's subject).
 */
#ifndef VEIL_MODULE_STATE_H
#define VEIL_MODULE_STATE_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct veil_command;
struct veil_output;
struct veil_scene;

/* The file's version: another is ignored, as a foreign file. */
#define VEIL_STATE_VERSION 1
/* A larger file is not read (a state is a few hundred bytes an output). */
#define VEIL_STATE_MAX_SIZE (1 << 20)

/*
 * Parses and checks a state file's text: the root object, whose members have the types and
 * ranges the writer gives them:
 *   "outputs": {name: setting} for each setting name (an output's or "*");
 *   "workspaces": {name: {workspace: setting}} (optional);
 *   "transitions": {name: transition}, the `veil transition` defaults (optional);
 *   "policies": {name: {"fps", "battery", "battery_fps"}}, `veil fps` and `veil battery`
 *   (optional);
 *   "xray": {name: {"xray", "blur"}}, `veil xray` and `veil blur` (optional).
 * NULL, with *why a malloc()ed reason, for anything else (not JSON, truncated, too deep, another
 * version, a wrong type).
 */
struct json_object *veil_state_parse(const char *text, size_t len, char **why);

/*
 * A setting of the parsed state as a command, read by veil_command_parse() as the user's words
 * would be (so a value the parser refuses is refused here too). 0, or a negative errno with
 * *why a malloc()ed reason.
 */
int veil_state_command(struct json_object *entry, struct veil_command *cmd, char **why);
/* A "transitions" entry as `veil transition ...`: the same contract. */
int veil_state_transition_command(struct json_object *tr, struct veil_command *cmd,
	char **why);
/*
 * A "policies" entry's `veil fps ...` (battery false) or `veil battery ...`: 0 and the command,
 * 1 when the entry has none of that kind, or a negative errno with *why.
 */
int veil_state_policy_command(struct json_object *policy, bool battery,
	struct veil_command *cmd, char **why);

/*
 * An "xray" entry's `veil xray on|off` (blur false) or `veil blur <px>`: the same contract
 * (a blur out of range is refused as the user's word would be).
 */
int veil_state_xray_command(struct json_object *xray, bool blur, struct veil_command *cmd,
	char **why);

/* module/state/state.c */
/*
 * The scene ends: what changed since the last write (a setting changed less than a second ago,
 * a video's position) is written once more, here, synchronously; then everything goes.
 */
void veil_state_destroy(struct veil_scene *scene);
/*
 * `veil restore` and what a command does to a restore (module/state/restore.c) are heard on the
 * scene's command signal (veil_scene.events.command), from the state's create to its destroy.
 */
/* The status's "restored" and "restore_reason"; nothing when no restore applies. */
void veil_state_status(struct veil_output *output, struct json_object *obj);

#endif
