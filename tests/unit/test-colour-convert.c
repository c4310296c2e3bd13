/*
 * decode/colour.c against lcms2's own unoptimised transform (floating point, no 8-bit tables:
 * cmsFLAGS_NOOPTIMIZE) on a 64x64x64 grid of RGB values: within 1 level for opaque pictures
 * (veil's tables and fixed-point matrix) and premultiplied ones (lcms2's 8-bit path), for
 * Display P3 and Adobe RGB ICC profiles, Display P3 as CICP code points; sRGB and no profile
 * untouched; broken profiles leave the pixels as they are and say so.
 */
#include <drm_fourcc.h>
#include <lcms2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode/colour.h"
#include "util/pixels.h"
#include "check.h"

#define GRID 64
#define W (GRID * GRID)
#define H GRID

static uint8_t level(int i) {
	return (uint8_t)((i * 255 + (GRID - 1) / 2) / (GRID - 1));
}

/* B, G, R, A pixels of every grid point, alpha 255. */
static struct veil_image grid_image(uint32_t format) {
	struct veil_image image = {
		.width = W, .height = H, .stride = W * 4, .drm_format = format,
		.data = veil_pixels_alloc((size_t)W * H * 4),
	};
	uint8_t *p = image.data;
	for (int r = 0; r < GRID; r++) {
		for (int g = 0; g < GRID; g++) {
			for (int b = 0; b < GRID; b++, p += 4) {
				p[0] = level(b);
				p[1] = level(g);
				p[2] = level(r);
				p[3] = 0xff;
			}
		}
	}
	return image;
}

static uint8_t *read_file(const char *path, size_t *len) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		return NULL;
	}
	uint8_t *data = malloc(1 << 20);
	*len = fread(data, 1, 1 << 20, f);
	fclose(f);
	return data;
}

/* The largest difference between the image and lcms2's float transform of the grid. */
static int worst_against(const struct veil_image *image, cmsHPROFILE in) {
	cmsHPROFILE srgb = cmsCreate_sRGBProfile();
	cmsHTRANSFORM t = cmsCreateTransform(in, TYPE_BGRA_8, srgb, TYPE_BGRA_8,
		INTENT_PERCEPTUAL, cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
	struct veil_image ref = grid_image(DRM_FORMAT_XRGB8888);
	cmsDoTransform(t, ref.data, ref.data, W * H);
	int worst = 0;
	const uint8_t *a = image->data, *b = ref.data;
	for (size_t i = 0; i < (size_t)W * H * 4; i++) {
		if (i % 4 == 3) {
			continue;
		}
		int d = abs((int)a[i] - (int)b[i]);
		worst = d > worst ? d : worst;
	}
	veil_image_finish(&ref);
	cmsDeleteTransform(t);
	cmsCloseProfile(srgb);
	return worst;
}

static void check_icc(const char *path, const char *said) {
	size_t len;
	uint8_t *icc = read_file(path, &len);
	if (!CHECK(icc != NULL, "%s is installed (icc-profiles-free, colord-data)", path)) {
		return;
	}
	cmsHPROFILE in = cmsOpenProfileFromMem(icc, (cmsUInt32Number)len);
	for (int premultiplied = 0; premultiplied < 2; premultiplied++) {
		struct veil_image image = grid_image(premultiplied ? DRM_FORMAT_ARGB8888 :
			DRM_FORMAT_XRGB8888);
		CHECK(veil_colour_set_icc(&image.colour, icc, len));
		struct veil_colour_result result;
		veil_colour_to_srgb(&image, &result);
		CHECK(strcmp(result.said, said) == 0 && !result.fell_back, "%s: \"%s\"", path,
			result.said);
		CHECK(image.colour.icc == NULL, "the profile is used up");
		int worst = worst_against(&image, in);
		CHECK(worst <= 1, "%s (%s): worst difference %d levels", path,
			premultiplied ? "premultiplied" : "opaque", worst);
		veil_image_finish(&image);
	}
	cmsCloseProfile(in);
	free(icc);
}

/*
 * Premultiplied pixels at alpha 128 through the P3 profile, against what each premultiplied
 * byte holds, unpremultiplied and converted by lcms2's float transform and multiplied by the
 * alpha again: within 3 levels (veil unpremultiplies to 8 bits, and the conversion's steep
 * parts near black stretch that rounding). Against the file's own unpremultiplied values the
 * error is larger (7 levels here): the decoders premultiply before the conversion
 * (docs/architecture.md, "Colour").
 */
static void check_translucent(const char *path) {
	size_t len;
	uint8_t *icc = read_file(path, &len);
	if (!CHECK(icc != NULL, "%s is installed", path)) {
		return;
	}
	struct veil_image image = grid_image(DRM_FORMAT_ARGB8888);
	uint8_t *p = image.data;
	for (size_t i = 0; i < (size_t)W * H; i++, p += 4) {
		for (int c = 0; c < 3; c++) {
			p[c] = (uint8_t)((p[c] * 128 + 127) / 255);
		}
		p[3] = 128;
	}
	CHECK(veil_colour_set_icc(&image.colour, icc, len));
	struct veil_colour_result result;
	veil_colour_to_srgb(&image, &result);
	CHECK(!result.fell_back, "\"%s\"", result.said);

	cmsHPROFILE in = cmsOpenProfileFromMem(icc, (cmsUInt32Number)len);
	cmsHPROFILE srgb = cmsCreate_sRGBProfile();
	cmsHTRANSFORM t = cmsCreateTransform(in, TYPE_RGB_DBL, srgb, TYPE_RGB_DBL,
		INTENT_PERCEPTUAL, cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
	int worst = 0;
	bool alpha_kept = true;
	p = image.data;
	struct veil_image ref = grid_image(DRM_FORMAT_XRGB8888);
	const uint8_t *q = ref.data;
	for (size_t i = 0; i < (size_t)W * H; i++, p += 4, q += 4) {
		/* What the premultiplied byte holds, unpremultiplied in floating point. */
		double rgb[3], out[3];
		for (int c = 0; c < 3; c++) {
			uint8_t stored = (uint8_t)((q[2 - c] * 128 + 127) / 255);
			rgb[c] = stored / 128.0;
			rgb[c] = rgb[c] > 1 ? 1 : rgb[c];
		}
		cmsDoTransform(t, rgb, out, 1);
		for (int c = 0; c < 3; c++) {
			double v = out[c] < 0 ? 0 : out[c] > 1 ? 1 : out[c];
			int expected = (int)(v * 128 + 0.5);
			int d = abs((int)p[2 - c] - expected);
			if (d > worst && d > 3 && worst <= 3) {
				fprintf(stderr, "pixel %zu channel %d: %d, expected %d (stored %d %d %d)\n",
					i, c, p[2 - c], expected, q[2], q[1], q[0]);
			}
			worst = d > worst ? d : worst;
		}
		alpha_kept = alpha_kept && p[3] == 128;
	}
	CHECK(alpha_kept, "alpha 128 kept");
	CHECK(worst <= 3, "%s, alpha 128: worst difference %d levels", path, worst);
	veil_image_finish(&ref);
	veil_image_finish(&image);
	cmsDeleteTransform(t);
	cmsCloseProfile(srgb);
	cmsCloseProfile(in);
	free(icc);
}

/*
 * A profile's description is text from the file: a Display P3 matrix-shaper made here with
 * the given description reaches the status as it is when printable UTF-8, else not at all.
 */
static void check_description(const char *description, bool utf8, const char *said) {
	cmsCIExyY white = { 0.3127, 0.3290, 1.0 };
	cmsCIExyYTRIPLE p3 = { { 0.680, 0.320, 1.0 }, { 0.265, 0.690, 1.0 },
		{ 0.150, 0.060, 1.0 } };
	cmsToneCurve *curve = cmsBuildGamma(NULL, 2.2);
	cmsToneCurve *curves[3] = { curve, curve, curve };
	cmsHPROFILE profile = cmsCreateRGBProfile(&white, &p3, curves);
	cmsFreeToneCurve(curve);
	cmsMLU *mlu = cmsMLUalloc(NULL, 1);
#if LCMS_VERSION >= 2160
	if (utf8) {
		cmsMLUsetUTF8(mlu, "en", "US", description);
	} else
#endif
	{
		cmsMLUsetASCII(mlu, "en", "US", description);
	}
	cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
	cmsMLUfree(mlu);
	cmsUInt32Number len = 0;
	cmsSaveProfileToMem(profile, NULL, &len);
	void *icc = malloc(len);
	cmsSaveProfileToMem(profile, icc, &len);
	cmsCloseProfile(profile);
	struct veil_image image = grid_image(DRM_FORMAT_XRGB8888);
	CHECK(veil_colour_set_icc(&image.colour, icc, len));
	struct veil_colour_result result;
	veil_colour_to_srgb(&image, &result);
	CHECK(strcmp(result.said, said) == 0, "description \"%s\": said \"%s\", expected \"%s\"",
		description, result.said, said);
	veil_image_finish(&image);
	free(icc);
}

int main(void) {
	check_icc("/usr/share/color/icc/DisplayP3-v4.icc", "sP3 (ICC) -> sRGB");
	check_icc("/usr/share/color/icc/colord/AdobeRGB1998.icc",
		"Compatible with Adobe RGB (1998) (ICC) -> sRGB");
	check_translucent("/usr/share/color/icc/DisplayP3-v4.icc");
	check_description("Wide P3", false, "Wide P3 (ICC) -> sRGB");
	check_description("Bad\x01\x02name", false, "unnamed (ICC) -> sRGB");
#if LCMS_VERSION >= 2160
	/* "Écran ☀" */
	check_description("\xc3\x89" "cran \xe2\x98\x80", true,
		"\xc3\x89" "cran \xe2\x98\x80 (ICC) -> sRGB");
#endif

	/* CICP 12/13: Display P3, within 1 level of the ICC profile's conversion. */
	size_t len;
	uint8_t *icc = read_file("/usr/share/color/icc/DisplayP3-v4.icc", &len);
	if (CHECK(icc != NULL)) {
		cmsHPROFILE in = cmsOpenProfileFromMem(icc, (cmsUInt32Number)len);
		struct veil_image image = grid_image(DRM_FORMAT_XRGB8888);
		image.colour.has_cicp = true;
		image.colour.cicp_primaries = 12;
		image.colour.cicp_transfer = 13;
		struct veil_colour_result result;
		veil_colour_to_srgb(&image, &result);
		CHECK(strcmp(result.said, "Display P3 (CICP) -> sRGB") == 0, "\"%s\"", result.said);
		int worst = worst_against(&image, in);
		CHECK(worst <= 1, "CICP 12/13: worst difference %d levels", worst);
		veil_image_finish(&image);
		cmsCloseProfile(in);
	}

	/*
	 * Nothing said, sRGB said, a broken profile, or HDR: the pixels stay as they are; HDR in
	 * primaries wlroots names says its transfer function and primaries for the renderer.
	 */
	struct veil_image plain = grid_image(DRM_FORMAT_XRGB8888);
	struct {
		const char *what, *said;
		bool fell_back;
		struct veil_image_colour colour;
		enum veil_transfer transfer;
		enum veil_primaries primaries;
	} cases[] = {
		{ "nothing", "none (sRGB assumed)", false, {0} },
		{ "sRGB chunk", "sRGB", false, { .srgb = true } },
		{ "CICP 1/13", "sRGB (CICP)", false, { .has_cicp = true, .cicp_primaries = 1,
			.cicp_transfer = 13 } },
		{ "CICP PQ", "BT.2020 PQ (CICP): HDR", false, { .has_cicp = true,
			.cicp_primaries = 9, .cicp_transfer = 16 }, VEIL_TRANSFER_PQ,
			VEIL_PRIMARIES_BT2020 },
		{ "CICP HLG", "BT.709 HLG (CICP): HDR", false, { .has_cicp = true,
			.cicp_primaries = 1, .cicp_transfer = 18 }, VEIL_TRANSFER_HLG,
			VEIL_PRIMARIES_BT709 },
		{ "CICP PQ in Display P3", "Display P3 PQ (CICP): HDR, not converted (sRGB assumed)",
			false, { .has_cicp = true, .cicp_primaries = 12, .cicp_transfer = 16 } },
		{ "CICP nonsense", NULL, true, { .has_cicp = true, .cicp_primaries = 200,
			.cicp_transfer = 13 } },
		{ "ICC truncated", NULL, true, {0} },
		{ "ICC too large", NULL, true, { .icc_len = VEIL_COLOUR_MAX_ICC + 1 } },
		{ "gAMA of 0", NULL, true, { .has_gamma = true, .gamma = 0 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct veil_image image = grid_image(DRM_FORMAT_XRGB8888);
		image.colour = cases[i].colour;
		if (strcmp(cases[i].what, "ICC truncated") == 0 && icc != NULL) {
			CHECK(veil_colour_set_icc(&image.colour, icc, len / 2));
		}
		struct veil_colour_result result;
		veil_colour_to_srgb(&image, &result);
		CHECK(cases[i].said == NULL || strcmp(result.said, cases[i].said) == 0,
			"%s: \"%s\"", cases[i].what, result.said);
		CHECK(strstr(result.said, cases[i].transfer != VEIL_TRANSFER_SDR ? "HDR" : "sRGB") !=
			NULL, "%s: \"%s\"", cases[i].what, result.said);
		CHECK(result.space.transfer == cases[i].transfer &&
			result.space.primaries == cases[i].primaries, "%s: transfer %d, primaries %d",
			cases[i].what, result.space.transfer, result.space.primaries);
		CHECK(result.fell_back == cases[i].fell_back, "%s: fell back %d", cases[i].what,
			result.fell_back);
		CHECK(memcmp(image.data, plain.data, (size_t)W * H * 4) == 0,
			"%s: the pixels are unchanged", cases[i].what);
		veil_image_finish(&image);
	}
	veil_image_finish(&plain);
	free(icc);
	return check_summary("colour-convert");
}
