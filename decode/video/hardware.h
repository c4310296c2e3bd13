/*
 * Whether GStreamer can decode video on hardware here: the compositor plays videos where such a
 * decoder can reach the GPU (module/core/decoders.c).
 */
#ifndef VEIL_DECODE_VIDEO_HARDWARE_H
#define VEIL_DECODE_VIDEO_HARDWARE_H

#include <sys/stat.h>

/*
 * The name of a hardware video decoder GStreamer's registry holds (VA, V4L2, NVDEC, ...: those
 * plugins register elements only for the devices they found), malloc()ed; NULL when there is
 * none. GStreamer must be initialised. A registry lookup, no element made: 0.1 to 0.2 ms.
 */
char *veil_hardware_decoder_find(void);

/*
 * The GPU behind a DRM node (a character device, as stat() gives it): its sysfs device, the same
 * for the primary and the render node of one GPU, malloc()ed; NULL when st is no device.
 */
char *veil_hardware_drm_device(const struct stat *st);

#endif
