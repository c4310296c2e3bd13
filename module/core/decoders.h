/*
 * Where the scene's wallpapers are decoded: in veil-decoder processes (source/remote/, helper/)
 * or in the compositor's, from the build, the compositor's options, the environment and what
 * GStreamer can decode on hardware.
 */
#ifndef VEIL_MODULE_DECODERS_H
#define VEIL_MODULE_DECODERS_H

struct veil_scene;
struct veil_scene_options;

/*
 * At veil_scene_create, once the worker is there: chooses from the options and the
 * environment's overrides, starts the spare helper, logs.
 */
void veil_decoders_init(struct veil_scene *scene, const struct veil_scene_options *options);
/* At the scene's end, after the worker: no decode uses the spare any more. */
void veil_decoders_finish(struct veil_scene *scene);

#endif
