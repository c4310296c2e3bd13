/* What a file holds, from its first bytes, before any decoder is built. */
#ifndef VEIL_DECODE_SNIFF_H
#define VEIL_DECODE_SNIFF_H

enum veil_media_kind {
	VEIL_MEDIA_UNKNOWN, /* no type found: left to GStreamer's image decoders to refuse */
	VEIL_MEDIA_PNG, /* libpng decodes it */
	VEIL_MEDIA_HEIF, /* an AVIF or HEIC still (ftyp brands avif, heic, mif1, mif2, msf1, ...) */
	VEIL_MEDIA_WEBP, /* RIFF WEBP, still or animated */
	VEIL_MEDIA_TIFF, /* TIFF or BigTIFF */
	VEIL_MEDIA_IMAGE, /* a still GStreamer decodes (JPEG, a still GIF, BMP, ...) */
	VEIL_MEDIA_VIDEO, /* moving pictures: a container, an elementary stream, an animated GIF */
	VEIL_MEDIA_AUDIO, /* sound and no picture */
	/* Last, so that the kinds before keep their numbers on the wire (wire.h). */
	VEIL_MEDIA_JXL, /* JPEG XL: a bare codestream or its ISO BMFF container */
	VEIL_MEDIA_SVG, /* an XML document whose root is <svg>, or one gzipped (SVGZ) */
	VEIL_MEDIA_JPEG, /* FF D8 FF: a JPEG (libjpeg-turbo's, else GStreamer's) */
};

/*
 * Types the file open at fd (read from offset 0, the offset is left alone): the signatures of the
 * formats veil has a decoder of its own for, then GStreamer's typefinders on its first 64 KiB.
 * *type, when not NULL, is set to GStreamer's media type (a static string, "" when none was
 * found).
 */
enum veil_media_kind veil_media_sniff(int fd, const char **type);

#endif
