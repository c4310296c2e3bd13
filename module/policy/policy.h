/*
 * Frame rate and battery policies (`veil fps ...`, `veil battery ...`), per output name or
 * "*", and what they make of each video: a frame rate cap, or held (paused by the policy).
 */
#ifndef VEIL_MODULE_POLICY_H
#define VEIL_MODULE_POLICY_H

#include <stdbool.h>

struct veil_scene;
struct veil_scene_options;
struct veil_command;
struct json_object;

/* At veil_scene_create: the empty table and the power supply watch. false without memory. */
bool veil_policy_init(struct veil_scene *scene, const struct veil_scene_options *options);
/* At the scene's end: before the worker goes (a power supply read may be queued). */
void veil_policy_finish(struct veil_scene *scene);
/* A VEIL_COMMAND_FPS or VEIL_COMMAND_BATTERY for an output name or "*": 0 or -ENOMEM. */
int veil_policy_set(struct veil_scene *scene, const char *name, const struct veil_command *cmd);
/*
 * Gives every source the cap and the hold its outputs' policies make now: after a command, a
 * change of outputs or of what they show, or of the power supply. Cheap; changes only what
 * changed.
 */
void veil_policy_apply(struct veil_scene *scene);
/*
 * For the state file (module/state/state.c): {name: {"fps": N, "battery": "play"|"pause"|"fps",
 * "battery_fps": N}}, each member only when that policy was given for the name.
 */
struct json_object *veil_policy_state(struct veil_scene *scene);

#endif
