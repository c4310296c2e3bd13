/*
 * veil-control's snapshot request (module/control/control.c creates the object and checks the
 * client): the picture an output's wallpaper shows, read back on the scene's worker into a sealed
 * memfd.
 */
#ifndef VEIL_MODULE_SNAPSHOT_H
#define VEIL_MODULE_SNAPSHOT_H

#include <stdint.h>

struct veil_scene;
struct wl_client;
struct wl_resource;

/* A zveil_control_snapshot_v1 object. NULL when memory is short (posted to the client). */
struct wl_resource *veil_snapshot_resource_create(struct wl_client *client, int version,
	uint32_t id);
/* Sends failed (a zveil_control_result_v1 reason); the client destroys the object. */
void veil_snapshot_fail(struct wl_resource *resource, uint32_t reason, const char *message);
/*
 * Takes the frame output_name (NULL: the only output) shows and reads it back on the worker;
 * the object gets ready or failed then, or failed at once.
 */
void veil_snapshot_start(struct veil_scene *scene, struct wl_resource *resource,
	const char *output_name, uint32_t max_width, uint32_t max_height);

#endif
