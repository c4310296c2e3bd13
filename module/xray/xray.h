/*
 * xray (include/veil/veil.h): `veil xray on|off` and `veil blur <px>` per output name or "*",
 * the compositor's xray nodes, and the one blurred picture of each output they share.
 */
#ifndef VEIL_MODULE_XRAY_H
#define VEIL_MODULE_XRAY_H

#include <stdbool.h>

struct veil_scene;
struct veil_command;
struct json_object;
struct wlr_output;

/* At veil_scene_create: the empty tables (scene->xray). false without memory. */
bool veil_xray_init(struct veil_scene *scene);
/*
 * At the scene's end, before the worker goes: the nodes show nothing from now on (they stay
 * the compositor's to destroy), the blurred pictures are let go.
 */
void veil_xray_finish(struct veil_scene *scene);
/* A VEIL_COMMAND_XRAY or VEIL_COMMAND_BLUR for an output name or "*": 0 or -ENOMEM. */
int veil_xray_set(struct veil_scene *scene, const char *name, const struct veil_command *cmd);
/*
 * The status's "xray" of an output: {"on": bool, "blur": px, "nodes": N, "shown": N,
 * "size": [w, h], "blurs": N, "worker_ms": ms}.
 */
struct json_object *veil_xray_status(struct veil_scene *scene, struct wlr_output *output);
/* For the state file: {name: {"xray": bool, "blur": px}}, each member only when given. */
struct json_object *veil_xray_state(struct veil_scene *scene);

#endif
