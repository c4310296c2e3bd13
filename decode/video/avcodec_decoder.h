/*
 * veil's own video decoder element over libavcodec (avcodec_decoder.c): H.264, HEVC, VP8 and
 * VP9 decoded by libav and pushed as libav's own pictures, without gst-libav. Knows nothing of
 * sources or processes.
 */
#ifndef VEIL_DECODE_VIDEO_AVCODEC_DECODER_H
#define VEIL_DECODE_VIDEO_AVCODEC_DECODER_H

#include <stdbool.h>

/* The element's factory name: the status's `decoder` field. */
#define VEIL_AVCODEC_DECODER_NAME "veilavdec"

/*
 * Registers the element for this process, ranked above gst-libav's avdec_* (hardware decoders
 * are put first by choose.c). Any thread, after GStreamer is initialised; later calls return
 * at once. Returns false if GStreamer refused it (decodebin then takes avdec as before).
 */
bool veil_avcodec_decoder_register(void);

#endif
