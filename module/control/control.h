/*
 * The server side of veil-control-unstable-v1: a global through which clients such as veilctl
 * run commands on the scene and read its status. The scene owns it (scene->control).
 */
#ifndef VEIL_MODULE_CONTROL_H
#define VEIL_MODULE_CONTROL_H

struct veil_control;

/*
 * Removes the global and sets scene->control to NULL. Clients keep their objects, which fail
 * every command from then on. NULL is allowed. Called when the scene is finished.
 */
void veil_control_destroy(struct veil_control *control);

#endif
