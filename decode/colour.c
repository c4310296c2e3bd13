#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include "veil-config.h"
#include "decode/colour.h"
#include "util/message.h"
#include "util/read.h"
#if VEIL_HAVE_LCMS2
#include <lcms2.h>
#endif

static void say(struct veil_colour_result *result, bool fell_back, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct veil_colour_result *result, bool fell_back, const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	vsnprintf(result->said, sizeof(result->said), fmt, args);
	va_end(args);
	result->fell_back = fell_back;
}

bool veil_colour_set_icc(struct veil_image_colour *colour, const void *data, size_t len) {
	free(colour->icc);
	colour->icc = NULL;
	colour->icc_len = 0;
	if (data == NULL || len == 0) {
		return true;
	}
	colour->icc_len = len;
	if (len > VEIL_COLOUR_MAX_ICC) {
		return true;
	}
	colour->icc = malloc(len);
	if (colour->icc == NULL) {
		colour->icc_len = 0;
		return false;
	}
	memcpy(colour->icc, data, len);
	return true;
}

/* APP2 segments: "ICC_PROFILE\0", the chunk's number (from 1), the number of chunks. */
static const char icc_marker[12] = "ICC_PROFILE";
#define JPEG_MAX_SEGMENTS 4096

int veil_colour_read_jpeg_icc(int fd, struct veil_image_colour *colour) {
	uint8_t head[4];
	if (veil_read_at(fd, head, 2, 0) != 2 || head[0] != 0xff || head[1] != 0xd8) {
		return 0;
	}
	/* Where each chunk's bytes are in the file, by its number. */
	off_t chunk_offset[256] = {0};
	size_t chunk_len[256] = {0};
	int chunks = 0;
	off_t offset = 2;
	for (int segments = 0; segments < JPEG_MAX_SEGMENTS; segments++) {
		if (veil_read_at(fd, head, 2, offset) != 2 || head[0] != 0xff) {
			break;
		}
		uint8_t marker = head[1];
		if (marker == 0xff) {
			offset++; /* a fill byte */
			continue;
		}
		if (marker == 0xd9 || marker == 0xda) {
			break; /* the end, or the first scan: no profile comes after */
		}
		if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
			offset += 2;
			continue;
		}
		if (veil_read_at(fd, head, 2, offset + 2) != 2) {
			break;
		}
		size_t len = (size_t)head[0] << 8 | head[1];
		if (len < 2) {
			break;
		}
		uint8_t app2[14];
		if (marker == 0xe2 && len >= 2 + sizeof(app2) &&
				veil_read_at(fd, app2, sizeof(app2), offset + 4) ==
				(ssize_t)sizeof(app2) &&
				memcmp(app2, icc_marker, sizeof(icc_marker)) == 0) {
			uint8_t seq = app2[12];
			if (seq > 0 && chunk_len[seq] == 0) {
				chunk_offset[seq] = offset + 4 + (off_t)sizeof(app2);
				chunk_len[seq] = len - 2 - sizeof(app2);
				chunks++;
			}
		}
		offset += 2 + (off_t)len;
	}
	if (chunks == 0) {
		return 0;
	}
	/* The chunks in their order; a missing one leaves a profile lcms2 will refuse. */
	size_t total = 0;
	for (int i = 1; i < 256; i++) {
		total += chunk_len[i];
	}
	free(colour->icc);
	colour->icc = NULL;
	colour->icc_len = total;
	if (total > VEIL_COLOUR_MAX_ICC) {
		return 0;
	}
	uint8_t *icc = malloc(total > 0 ? total : 1);
	if (icc == NULL) {
		colour->icc_len = 0;
		return -ENOMEM;
	}
	size_t at = 0;
	for (int i = 1; i < 256; i++) {
		if (chunk_len[i] == 0) {
			continue;
		}
		ssize_t n = veil_read_at(fd, icc + at, chunk_len[i], chunk_offset[i]);
		if (n < 0) {
			free(icc);
			colour->icc_len = 0;
			return (int)n;
		}
		at += (size_t)n;
	}
	colour->icc = icc;
	colour->icc_len = at;
	return 0;
}

#if VEIL_HAVE_LCMS2

/* What lcms2 complained of last, on this conversion's own context. */
struct lcms_errors {
	char text[64];
};

static void lcms_error(cmsContext ctx, cmsUInt32Number code, const char *text) {
	(void)code;
	struct lcms_errors *errors = cmsGetContextUserData(ctx);
	if (errors != NULL && errors->text[0] == '\0') {
		snprintf(errors->text, sizeof(errors->text), "%s", text);
		/*
		 * lcms2 may quote the profile's bytes (a tag's signature), and the cut may split
		 * a character: the status carries it.
		 */
		veil_message_sanitize(errors->text);
	}
}

/* ITU-T H.273 colour primaries: R, G, B and white, x and y. */
struct cicp_primaries {
	uint8_t code;
	const char *name;
	double xy[8];
};

static const struct cicp_primaries primaries_table[] = {
	{ 1, "BT.709", { 0.640, 0.330, 0.300, 0.600, 0.150, 0.060, 0.3127, 0.3290 } },
	{ 4, "BT.470M", { 0.670, 0.330, 0.210, 0.710, 0.140, 0.080, 0.310, 0.316 } },
	{ 5, "BT.601 625", { 0.640, 0.330, 0.290, 0.600, 0.150, 0.060, 0.3127, 0.3290 } },
	{ 6, "BT.601 525", { 0.630, 0.340, 0.310, 0.595, 0.155, 0.070, 0.3127, 0.3290 } },
	{ 7, "SMPTE 240M", { 0.630, 0.340, 0.310, 0.595, 0.155, 0.070, 0.3127, 0.3290 } },
	{ 9, "BT.2020", { 0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290 } },
	{ 11, "DCI-P3", { 0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.314, 0.351 } },
	{ 12, "Display P3", { 0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290 } },
};

static const struct cicp_primaries *find_primaries(uint8_t code) {
	if (code == 2) {
		code = 1; /* unspecified: BT.709's, sRGB's own */
	}
	for (size_t i = 0; i < sizeof(primaries_table) / sizeof(primaries_table[0]); i++) {
		if (primaries_table[i].code == code) {
			return &primaries_table[i];
		}
	}
	return NULL;
}

/*
 * A transfer function as lcms2's parametric curve of type 4 (Y = (aX + b)^g above d, cX
 * below); its name in the status, "" for sRGB's own. false for ones veil does not convert.
 */
static bool find_transfer(uint8_t code, double params[5], const char **name) {
	static const double srgb[5] = { 2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045 };
	static const double bt709[5] = { 1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081 };
	switch (code) {
	case 2: /* unspecified */
	case 13:
		memcpy(params, srgb, sizeof(srgb));
		*name = "";
		return true;
	case 1:
	case 6:
	case 14:
	case 15:
		memcpy(params, bt709, sizeof(bt709));
		*name = ", BT.709 transfer";
		return true;
	case 4:
	case 5:
	case 8: {
		double gamma = code == 4 ? 2.2 : code == 5 ? 2.8 : 1.0;
		double pure[5] = { gamma, 1, 0, 0, 0 };
		memcpy(params, pure, sizeof(pure));
		*name = code == 4 ? ", gamma 2.2" : code == 5 ? ", gamma 2.8" : ", linear";
		return true;
	}
	default:
		return false;
	}
}

/* An RGB profile of primaries and white xy, one tone curve for the three channels. */
static cmsHPROFILE rgb_profile_of(cmsContext ctx, const double xy[8], cmsToneCurve *tone) {
	cmsCIExyY white = { xy[6], xy[7], 1.0 };
	cmsCIExyYTRIPLE rgb = {
		{ xy[0], xy[1], 1.0 }, { xy[2], xy[3], 1.0 }, { xy[4], xy[5], 1.0 },
	};
	cmsToneCurve *curves[3] = { tone, tone, tone };
	return cmsCreateRGBProfileTHR(ctx, &white, &rgb, curves);
}

static cmsHPROFILE rgb_profile(cmsContext ctx, const double xy[8], const double curve[5]) {
	cmsToneCurve *tone = cmsBuildParametricToneCurve(ctx, 4, curve);
	if (tone == NULL) {
		return NULL;
	}
	cmsHPROFILE profile = rgb_profile_of(ctx, xy, tone);
	cmsFreeToneCurve(tone);
	return profile;
}

/*
 * A grey profile's curve as an RGB profile with sRGB's primaries: what a grey picture's pixels
 * (R = G = B, as decoders expand it) are in. NULL when it has no grey curve.
 */
static cmsHPROFILE grey_as_rgb(cmsContext ctx, cmsHPROFILE grey) {
	cmsToneCurve *tone = cmsReadTag(grey, cmsSigGrayTRCTag);
	if (tone == NULL) {
		return NULL;
	}
	return rgb_profile_of(ctx, find_primaries(1)->xy, tone);
}

/*
 * Whether an ICC profile calls itself sRGB: its description, without building a transform. The
 * description is text from the file: kept for the status only when it is printable UTF-8
 * (util/message.h), else left empty ("unnamed"); a corrupt profile's bytes never reach it.
 */
static bool describe_icc(cmsHPROFILE profile, char *name, size_t size) {
	name[0] = '\0';
	char text[256] = "";
#if LCMS_VERSION >= 2160
	cmsGetProfileInfoUTF8(profile, cmsInfoDescription, "en", "US", text, sizeof(text));
#else
	cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", text, sizeof(text));
#endif
	text[sizeof(text) - 1] = '\0';
	/* A description longer than the buffer may end in a cut character: not shown either. */
	if (!veil_utf8_printable(text)) {
		return false;
	}
	/* Whole characters only, as many as fit. */
	size_t len = 0;
	const unsigned char *p = (const unsigned char *)text;
	while (p[len] != '\0') {
		size_t n = veil_utf8_length(p + len);
		if (len + n >= size) {
			break;
		}
		len += n;
	}
	memcpy(name, text, len);
	name[len] = '\0';
	return strncmp(name, "sRGB", 4) == 0;
}

/*
 * Matrix-shaper to matrix-shaper (every RGB profile a camera or phone writes, and every one veil
 * makes of CICP or gAMA): the same conversion lcms2 makes, its parts taken from lcms2 (the
 * profiles' curves and colourants), run as tables and a fixed-point matrix. lcms2's own 8-bit
 * path costs 14 ns a pixel here, 29 ms for 1080p; this one a third of that
 * (docs/measurements.md, "Colour profiles").
 */
#define LINEAR_ONE 32768 /* 1.0 in the linear values (Q15) */
#define MATRIX_ONE 16384 /* 1.0 in the matrix (Q14) */
#define ENCODE_BITS 14 /* the linear value's bits that index the sRGB table */

struct shaper {
	int32_t linear[3][256]; /* the input's 8-bit values through its curves, Q15 */
	int32_t matrix[3][3]; /* input's linear RGB to sRGB's linear RGB, Q14 */
	/*
	 * Their products, the matrix's column c times the input's channel c, down to
	 * ENCODE_BITS: [output channel][input channel][8-bit value]. A pixel is then nine
	 * loads and six additions.
	 */
	int32_t product[3][3][256];
	uint8_t encode[(1 << ENCODE_BITS) + 1]; /* sRGB's linear values to 8 bits */
};

static bool colourants(cmsHPROFILE profile, double m[3][3]) {
	static const cmsTagSignature tags[3] = {
		cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag,
	};
	for (int c = 0; c < 3; c++) {
		const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[c]);
		if (xyz == NULL) {
			return false;
		}
		m[0][c] = xyz->X;
		m[1][c] = xyz->Y;
		m[2][c] = xyz->Z;
	}
	return true;
}

static bool invert(const double m[3][3], double inv[3][3]) {
	double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
		m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
		m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
	if (det > -1e-9 && det < 1e-9) {
		return false;
	}
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 3; c++) {
			/* The cofactor of (c, r), over the determinant. */
			int r0 = (c + 1) % 3, r1 = (c + 2) % 3, c0 = (r + 1) % 3, c1 = (r + 2) % 3;
			inv[r][c] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
		}
	}
	return true;
}

/* false when either profile is no matrix-shaper, or its parts make no sense. */
static bool shaper_build(struct shaper *s, cmsHPROFILE in, cmsHPROFILE out) {
	if (!cmsIsMatrixShaper(in) || !cmsIsMatrixShaper(out) ||
			cmsGetColorSpace(in) != cmsSigRgbData) {
		return false;
	}
	static const cmsTagSignature trc[3] = {
		cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag,
	};
	for (int c = 0; c < 3; c++) {
		const cmsToneCurve *curve = cmsReadTag(in, trc[c]);
		if (curve == NULL) {
			return false;
		}
		for (int v = 0; v < 256; v++) {
			float y = cmsEvalToneCurveFloat(curve, (float)v / 255.0f);
			y = y < 0 ? 0 : y > 1 ? 1 : y;
			s->linear[c][v] = (int32_t)(y * LINEAR_ONE + 0.5f);
		}
	}
	double m_in[3][3], m_out[3][3], inv[3][3];
	if (!colourants(in, m_in) || !colourants(out, m_out) || !invert(m_out, inv)) {
		return false;
	}
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 3; c++) {
			double v = inv[r][0] * m_in[0][c] + inv[r][1] * m_in[1][c] +
				inv[r][2] * m_in[2][c];
			if (v < -8 || v > 8) {
				return false;
			}
			s->matrix[r][c] = (int32_t)(v * MATRIX_ONE + (v < 0 ? -0.5 : 0.5));
		}
	}
	for (int o = 0; o < 3; o++) {
		for (int c = 0; c < 3; c++) {
			for (int v = 0; v < 256; v++) {
				/* Q15 x Q14 down to ENCODE_BITS, rounded. */
				int64_t x = (int64_t)s->matrix[o][c] * s->linear[c][v];
				s->product[o][c][v] = (int32_t)((x + (1 << (28 - ENCODE_BITS))) >>
					(29 - ENCODE_BITS));
			}
		}
	}
	/* sRGB's encoding: the inverse of its red curve (the three are one). */
	const cmsToneCurve *curve = cmsReadTag(out, cmsSigRedTRCTag);
	cmsToneCurve *reverse = curve != NULL ? cmsReverseToneCurve(curve) : NULL;
	if (reverse == NULL) {
		return false;
	}
	for (int i = 0; i <= 1 << ENCODE_BITS; i++) {
		float y = cmsEvalToneCurveFloat(reverse, (float)i / (1 << ENCODE_BITS));
		y = y < 0 ? 0 : y > 1 ? 1 : y;
		s->encode[i] = (uint8_t)(y * 255.0f + 0.5f);
	}
	cmsFreeToneCurve(reverse);
	return true;
}

static inline uint8_t shaper_channel(const struct shaper *s, int o, uint8_t r, uint8_t g,
		uint8_t b) {
	/* The encoding table's index, clipped to sRGB's gamut. */
	int32_t v = s->product[o][0][r] + s->product[o][1][g] + s->product[o][2][b];
	v = v < 0 ? 0 : v;
	v = v > 1 << ENCODE_BITS ? 1 << ENCODE_BITS : v;
	return s->encode[v];
}

/* Opaque B, G, R, X pixels in place; the fourth byte is left alone. */
static void shaper_run(const struct shaper *s, uint8_t *data, int width, int height,
		int stride) {
	for (int y = 0; y < height; y++) {
		uint8_t *p = data + (size_t)y * (size_t)stride;
		for (int x = 0; x < width; x++, p += 4) {
			uint8_t r = p[2], g = p[1], b = p[0];
			p[2] = shaper_channel(s, 0, r, g, b);
			p[1] = shaper_channel(s, 1, r, g, b);
			p[0] = shaper_channel(s, 2, r, g, b);
		}
	}
}

/*
 * Premultiplied pixels: each colour divided by its alpha, converted, multiplied again (lcms2's
 * TYPE_BGRA_8_PREMUL gave a premultiplied (0, 0, 2) at alpha 128 a blue of 128 here).
 * lcms2's transform when s is NULL (t then set), else the tables. Opaque pixels go straight
 * through; transparent ones are left alone.
 */
static void run_premultiplied(const struct shaper *s, cmsHTRANSFORM t, uint8_t *data,
		int width, int height, int stride) {
	for (int y = 0; y < height; y++) {
		uint8_t *p = data + (size_t)y * (size_t)stride;
		for (int x = 0; x < width; x++, p += 4) {
			unsigned a = p[3];
			if (a == 0) {
				continue;
			}
			uint8_t px[4] = { p[0], p[1], p[2], 0xff };
			if (a < 255) {
				for (int c = 0; c < 3; c++) {
					unsigned v = (p[c] * 255u + a / 2) / a;
					px[c] = (uint8_t)(v > 255 ? 255 : v);
				}
			}
			if (s != NULL) {
				uint8_t r = px[2], g = px[1], b = px[0];
				px[2] = shaper_channel(s, 0, r, g, b);
				px[1] = shaper_channel(s, 1, r, g, b);
				px[0] = shaper_channel(s, 2, r, g, b);
			} else {
				cmsDoTransform(t, px, px, 1);
			}
			for (int c = 0; c < 3; c++) {
				p[c] = a == 255 ? px[c] : (uint8_t)((px[c] * a + 127) / 255);
			}
		}
	}
}

/*
 * libpng's tolerances for a gAMA and cHRM that say sRGB (png.c, png_colorspace_set_sRGB): a
 * gamma within 5 % of 0.45455 (PNG_GAMMA_THRESHOLD_FIXED), each x and y within 0.001.
 */
static bool png_gamma_is_srgb(double gamma) {
	double ratio = gamma / 0.45455;
	return ratio >= 0.95 && ratio <= 1.05;
}

static bool png_xy_is_srgb(const double xy[8], const double srgb_xy[8]) {
	/* Both R, G, B and white, x and y (decode/png.c reads cHRM in this order). */
	for (int i = 0; i < 8; i++) {
		double d = xy[i] - srgb_xy[i];
		if (d < -0.001 || d > 0.001) {
			return false;
		}
	}
	return true;
}

static void convert(struct veil_image *image, struct veil_colour_result *result) {
	struct veil_image_colour *colour = &image->colour;
	struct lcms_errors errors = {0};
	cmsContext ctx = cmsCreateContext(NULL, &errors);
	if (ctx == NULL) {
		say(result, true, "not converted: out of memory (sRGB assumed)");
		return;
	}
	cmsSetLogErrorHandlerTHR(ctx, lcms_error);
	cmsHPROFILE in = NULL, out = NULL;
	cmsHTRANSFORM transform = NULL;
	char from[64] = "";

	if (colour->has_cicp) {
		const struct cicp_primaries *primaries = find_primaries(colour->cicp_primaries);
		double curve[5];
		const char *transfer_name = NULL;
		if (colour->cicp_primaries == 1 || colour->cicp_primaries == 2) {
			if (colour->cicp_transfer == 13 || colour->cicp_transfer == 2) {
				say(result, false, "sRGB (CICP)");
				goto out;
			}
		}
		if (colour->cicp_transfer == 16 || colour->cicp_transfer == 18) {
			say(result, false, "%s %s (CICP): HDR, not converted (sRGB assumed)",
				primaries != NULL ? primaries->name : "?",
				colour->cicp_transfer == 16 ? "PQ" : "HLG");
			goto out;
		}
		if (primaries == NULL || !find_transfer(colour->cicp_transfer, curve,
				&transfer_name)) {
			say(result, true, "CICP %u/%u/%u not supported (sRGB assumed)",
				colour->cicp_primaries, colour->cicp_transfer, colour->cicp_matrix);
			goto out;
		}
		snprintf(from, sizeof(from), "%s%s (CICP)", primaries->name, transfer_name);
		in = rgb_profile(ctx, primaries->xy, curve);
	} else if (colour->icc_len > 0) {
		if (colour->icc == NULL) {
			say(result, true, "ICC profile of %zu bytes, larger than veil reads "
				"(sRGB assumed)", colour->icc_len);
			goto out;
		}
		in = cmsOpenProfileFromMemTHR(ctx, colour->icc, (cmsUInt32Number)colour->icc_len);
		if (in == NULL) {
			say(result, true, "ICC profile unusable: %s (sRGB assumed)",
				errors.text[0] != '\0' ? errors.text : "not a profile");
			goto out;
		}
		char name[40];
		if (describe_icc(in, name, sizeof(name))) {
			say(result, false, "sRGB (ICC)");
			goto out;
		}
		if (cmsGetColorSpace(in) == cmsSigGrayData) {
			cmsHPROFILE grey = grey_as_rgb(ctx, in);
			cmsCloseProfile(in);
			in = grey;
			if (in == NULL) {
				say(result, true, "grey ICC profile \"%s\" has no curve veil reads "
					"(sRGB assumed)", name);
				goto out;
			}
		} else if (cmsGetColorSpace(in) != cmsSigRgbData) {
			say(result, true, "ICC profile \"%s\" is not an RGB profile (sRGB assumed)",
				name);
			goto out;
		}
		snprintf(from, sizeof(from), "%s (ICC)", name[0] != '\0' ? name : "unnamed");
	} else if (colour->srgb) {
		say(result, false, "sRGB");
		goto out;
	} else if (colour->has_gamma || colour->has_chromaticities) {
		/* PNG's gAMA and cHRM (decode/png.c read nothing ranked above them). */
		const double *srgb_xy = find_primaries(1)->xy;
		double gamma = colour->gamma;
		if (!colour->has_gamma) {
			/*
			 * cHRM alone says nothing of the transfer: taken for sRGB and left alone,
			 * as libpng, ImageMagick and swaybg do (ImageMagick writes sRGB's cHRM
			 * alone in its palette PNGs).
			 */
			say(result, false, "cHRM without gAMA: sRGB");
			goto out;
		}
		if (gamma <= 0.01 || gamma > 10) {
			say(result, true, "gAMA of %g unusable (sRGB assumed)", gamma);
			goto out;
		}
		bool srgb_gamma = png_gamma_is_srgb(gamma);
		bool srgb_primaries = !colour->has_chromaticities ||
			png_xy_is_srgb(colour->chromaticities, srgb_xy);
		if (srgb_gamma && srgb_primaries) {
			say(result, false, "gAMA %.5g%s: sRGB's, left alone", gamma,
				colour->has_chromaticities ? " and cHRM" : "");
			goto out;
		}
		/*
		 * The specification's conversion: a sample is light to the power gamma (gAMA's
		 * value / 100000: 2.5 in PngSuite's g25 files, 0.45455 for a 2.2 display), so
		 * light is the sample to the power 1 / gamma; within libpng's tolerance of
		 * 0.45455 the curve is sRGB's own.
		 */
		double curve[5] = { 1 / gamma, 1, 0, 0, 0 };
		const char *unused;
		if (srgb_gamma) {
			find_transfer(13, curve, &unused);
		}
		snprintf(from, sizeof(from), "gAMA %.5g%s", gamma,
			srgb_primaries ? "" : "+cHRM");
		in = rgb_profile(ctx, srgb_primaries ? srgb_xy : colour->chromaticities, curve);
	} else {
		say(result, false, "none (sRGB assumed)");
		goto out;
	}
	if (in == NULL) {
		say(result, true, "%s unusable: %s (sRGB assumed)", from,
			errors.text[0] != '\0' ? errors.text : "no profile made");
		goto out;
	}

	out = cmsCreate_sRGBProfileTHR(ctx);
	bool premultiplied = image->drm_format == DRM_FORMAT_ARGB8888;
	if (out != NULL) {
		struct shaper *shaper = malloc(sizeof(*shaper));
		bool built = shaper != NULL && shaper_build(shaper, in, out);
		if (built && premultiplied) {
			run_premultiplied(shaper, NULL, image->data, image->width, image->height,
				image->stride);
		} else if (built) {
			shaper_run(shaper, image->data, image->width, image->height, image->stride);
		}
		free(shaper);
		if (built) {
			say(result, false, "%s -> sRGB", from);
			goto out;
		}
	}
	/*
	 * Other profiles (LUTs) through lcms2's transform, the fourth byte left as it is in place
	 * (cmsFLAGS_COPY_ALPHA costs 20 to 70 % more).
	 */
	if (out != NULL) {
		transform = cmsCreateTransformTHR(ctx, in, TYPE_BGRA_8, out, TYPE_BGRA_8,
			INTENT_PERCEPTUAL, 0);
	}
	if (transform == NULL) {
		say(result, true, "%s unusable: %s (sRGB assumed)", from,
			errors.text[0] != '\0' ? errors.text : "no transform");
		goto out;
	}
	if (premultiplied) {
		run_premultiplied(NULL, transform, image->data, image->width, image->height,
			image->stride);
	} else {
		cmsDoTransformLineStride(transform, image->data, image->data,
			(cmsUInt32Number)image->width, (cmsUInt32Number)image->height,
			(cmsUInt32Number)image->stride, (cmsUInt32Number)image->stride, 0, 0);
	}
	say(result, false, "%s -> sRGB", from);

out:
	if (transform != NULL) {
		cmsDeleteTransform(transform);
	}
	if (in != NULL) {
		cmsCloseProfile(in);
	}
	if (out != NULL) {
		cmsCloseProfile(out);
	}
	cmsDeleteContext(ctx);
}

#endif

/*
 * An HDR still in primaries wlroots names (BT.709/sRGB, BT.2020): its pixels are kept as they
 * are and result->space says what they are in, for the renderer. Other HDR code points go on
 * to convert(), which says they are not converted.
 */
static bool keep_hdr(const struct veil_image_colour *colour, struct veil_colour_result *result) {
	if (!colour->has_cicp || (colour->cicp_transfer != 16 && colour->cicp_transfer != 18)) {
		return false;
	}
	/* 2 is "unspecified": taken as BT.709's, as for SDR. */
	bool bt2020 = colour->cicp_primaries == 9;
	if (!bt2020 && colour->cicp_primaries != 1 && colour->cicp_primaries != 2) {
		return false;
	}
	bool pq = colour->cicp_transfer == 16;
	result->space = (struct veil_colour_space){
		.transfer = pq ? VEIL_TRANSFER_PQ : VEIL_TRANSFER_HLG,
		.primaries = bt2020 ? VEIL_PRIMARIES_BT2020 : VEIL_PRIMARIES_BT709,
	};
	say(result, false, "%s %s (CICP): HDR", bt2020 ? "BT.2020" : "BT.709", pq ? "PQ" : "HLG");
	return true;
}

static bool says_nothing(const struct veil_image_colour *colour) {
	return !colour->has_cicp && colour->icc_len == 0 && !colour->has_gamma &&
		!colour->has_chromaticities;
}

void veil_colour_to_srgb(struct veil_image *image, struct veil_colour_result *result) {
	*result = (struct veil_colour_result){0};
	struct veil_image_colour *colour = &image->colour;
	/* The common case costs two comparisons: no profile, or PNG's sRGB chunk alone. */
	if (says_nothing(colour)) {
		say(result, false, colour->srgb ? "sRGB" : "none (sRGB assumed)");
	} else if (keep_hdr(colour, result)) {
		/* The pixels stay as they are: the buffer says PQ or HLG to the renderer. */
	} else if (image->data == NULL || image->mapped_size > 0 || image->release != NULL ||
			(image->drm_format != DRM_FORMAT_ARGB8888 &&
			image->drm_format != DRM_FORMAT_XRGB8888)) {
		say(result, true, "not converted: pixels not writable (sRGB assumed)");
	} else {
#if VEIL_HAVE_LCMS2
		convert(image, result);
#else
		say(result, false, "not converted: veil built without lcms2 (sRGB assumed)");
#endif
	}
	free(colour->icc);
	*colour = (struct veil_image_colour){0};
}
