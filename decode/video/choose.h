/*
 * Which video decoder decodebin tries first, and which it must not try: hardware decoders (VA,
 * V4L2, NVDEC) before software ones, and a VA decoder only on the renderer's GPU. Decided from
 * a factory's name, class and device alone, so that the choice and its fallbacks are tested from
 * a list of factories without any device (tests/unit/test-choose.c); decoder.c feeds it
 * decodebin's factories.
 */
#ifndef VEIL_DECODE_VIDEO_CHOOSE_H
#define VEIL_DECODE_VIDEO_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>

enum veil_decoder_family {
	VEIL_DECODER_NONE, /* not a decoder (a parser, a demuxer, ...) */
	VEIL_DECODER_SOFTWARE,
	VEIL_DECODER_VA, /* GStreamer's va plugin: one element set per render node */
	VEIL_DECODER_VAAPI, /* the older gstreamer-vaapi plugin */
	VEIL_DECODER_V4L2, /* stateful (v4l2h264dec) and stateless (v4l2slh264dec) */
	VEIL_DECODER_NVDEC, /* nvcodec: nvh264dec, nvh264sldec, ... */
	VEIL_DECODER_OTHER_HARDWARE, /* a class that says Hardware */
};

/* A factory decodebin offers, as the choice sees it. */
struct veil_decoder_candidate {
	const char *name; /* the factory's name: vah264dec, varenderD129h264dec, avdec_h264 */
	const char *klass; /* its class metadata: "Codec/Decoder/Video/Hardware" */
	/* VA only (NULL for the others, or when unknown): the render node it runs on ... */
	const char *device_path;
	/* ... and that node's sysfs device, which primary and render nodes of one GPU share. */
	const char *device;
};

enum veil_decoder_family veil_decoder_family(const char *name, const char *klass);
bool veil_decoder_is_hardware(const char *name, const char *klass);

/*
 * decodebin's candidates in the order to try them: hardware decoders first, then the rest, each
 * group in decodebin's own (rank) order. Fills order with n indices into candidates. Returns
 * whether it differs from decodebin's order (false: nothing to re-sort).
 */
bool veil_decoder_order(const struct veil_decoder_candidate *candidates, size_t n,
	size_t *order);

/*
 * Why candidate must be skipped (a sentence to free), NULL when it may be tried. render_device
 * is the sysfs device of the renderer's DRM node, NULL when the renderer has none (pixman): then
 * decoded frames go to system memory anyway and the first VA device will do, but not another.
 * A VA decoder on another GPU than the renderer's would hand it dmabufs it cannot import.
 */
char *veil_decoder_skip_reason(const struct veil_decoder_candidate *candidate,
	const char *render_device);

#endif
