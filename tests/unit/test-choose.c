/*
 * decode/video/choose.c: which video decoder decodebin tries, from lists of factories as a
 * machine with VA, V4L2 or NVDEC decoders would offer them (names and classes as GStreamer 1.28's
 * va, v4l2codecs, video4linux2, nvcodec, vaapi and libav plugins register them), without any
 * device. Each choice is made the way decodebin makes it: the candidates in veil's order, the
 * first that veil does not skip. What runs after that (a hardware decoder that fails to open
 * its device, and decodebin's move to the next candidate) needs the device and is not tested
 * here; nothing of it has run on a GPU.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "decode/video/choose.h"
#include "check.h"

#define HW "Codec/Decoder/Video/Hardware"
#define SW "Codec/Decoder/Video"

/* Two GPUs' sysfs devices and their render nodes. */
#define GPU_A "/sys/devices/pci0000:00/0000:00:02.0"
#define GPU_B "/sys/devices/pci0000:00/0000:01:00.0"
#define NODE_A "/dev/dri/renderD128"
#define NODE_B "/dev/dri/renderD129"

#define N(array) (sizeof(array) / sizeof((array)[0]))

/* decodebin's choice: the first candidate in veil's order that veil does not skip. */
static const char *choose(const struct veil_decoder_candidate *candidates, size_t n,
		const char *render_device) {
	size_t order[16];
	if (n > N(order)) {
		return NULL;
	}
	veil_decoder_order(candidates, n, order);
	for (size_t i = 0; i < n; i++) {
		char *why = veil_decoder_skip_reason(&candidates[order[i]], render_device);
		if (why == NULL) {
			return candidates[order[i]].name;
		}
		free(why);
	}
	return NULL;
}

static void check_choice(int line, const struct veil_decoder_candidate *candidates, size_t n,
		const char *render_device, const char *want) {
	const char *got = choose(candidates, n, render_device);
	bool same = got != NULL && want != NULL ? strcmp(got, want) == 0 : got == want;
	CHECK_LINE(line, same, "chose %s, want %s (renderer on %s)", got ? got : "nothing",
		want ? want : "nothing", render_device ? render_device : "no DRM device");
}
#define CHECK_CHOICE(c, device, want) check_choice(__LINE__, c, N(c), device, want)

static void test_families(void) {
	static const struct {
		const char *name, *klass;
		enum veil_decoder_family family;
	} cases[] = {
		{ "vah264dec", HW, VEIL_DECODER_VA },
		{ "varenderD129h265dec", HW, VEIL_DECODER_VA },
		{ "vaav1dec", HW, VEIL_DECODER_VA },
		{ "vaapih264dec", "Codec/Decoder/Video", VEIL_DECODER_VAAPI },
		{ "v4l2slh264dec", HW, VEIL_DECODER_V4L2 },
		{ "v4l2h264dec", "Codec/Decoder/Video", VEIL_DECODER_V4L2 },
		{ "nvh264dec", HW, VEIL_DECODER_NVDEC },
		{ "nvh265sldec", HW, VEIL_DECODER_NVDEC },
		{ "msdkh264dec", HW, VEIL_DECODER_OTHER_HARDWARE },
		{ "avdec_h264", SW, VEIL_DECODER_SOFTWARE },
		{ "veilavdec", SW, VEIL_DECODER_SOFTWARE },
		{ "vp9dec", SW, VEIL_DECODER_SOFTWARE },
		{ "dav1ddec", SW, VEIL_DECODER_SOFTWARE },
		/* Not decoders: never re-sorted, never skipped. */
		{ "h264parse", "Codec/Parser/Converter/Video", VEIL_DECODER_NONE },
		{ "vah264enc", "Codec/Encoder/Video/Hardware", VEIL_DECODER_NONE },
		{ "vapostproc", "Video/Converter/Filter/Colorspace/Scaler/Hardware",
			VEIL_DECODER_NONE },
		{ "nvh264dec", NULL, VEIL_DECODER_NONE },
	};
	for (size_t i = 0; i < N(cases); i++) {
		enum veil_decoder_family family = veil_decoder_family(cases[i].name, cases[i].klass);
		CHECK(family == cases[i].family, "%s (%s): family %d, want %d", cases[i].name,
			cases[i].klass ? cases[i].klass : "no class", family, cases[i].family);
		bool hw = cases[i].family != VEIL_DECODER_NONE &&
			cases[i].family != VEIL_DECODER_SOFTWARE;
		CHECK(veil_decoder_is_hardware(cases[i].name, cases[i].klass) == hw,
			"%s: hardware %d", cases[i].name, hw);
	}
}

static void test_order(void) {
	/*
	 * decodebin's rank order: software primary first (veil's own over libavcodec, ranked
	 * above avdec, then libav), hardware below.
	 */
	const struct veil_decoder_candidate c[] = {
		{ "veilavdec", SW, NULL, NULL },
		{ "avdec_h264", SW, NULL, NULL },
		{ "openh264dec", SW, NULL, NULL },
		{ "vah264dec", HW, NODE_A, GPU_A },
		{ "v4l2slh264dec", HW, NULL, NULL },
		{ "nvh264dec", HW, NULL, NULL },
	};
	size_t order[N(c)];
	CHECK(veil_decoder_order(c, N(c), order), "a re-sort is needed");
	const size_t want[] = { 3, 4, 5, 0, 1, 2 };
	for (size_t i = 0; i < N(c); i++) {
		CHECK(order[i] == want[i], "position %zu: %s, want %s", i, c[order[i]].name,
			c[want[i]].name);
	}

	/* Software only, or hardware already first: decodebin's order stands. */
	const struct veil_decoder_candidate sw[] = {
		{ "avdec_h264", SW, NULL, NULL },
		{ "openh264dec", SW, NULL, NULL },
	};
	size_t sw_order[N(sw)];
	CHECK(!veil_decoder_order(sw, N(sw), sw_order), "software only: no re-sort");
	CHECK(sw_order[0] == 0 && sw_order[1] == 1, "software only: the same order");
	const struct veil_decoder_candidate first[] = {
		{ "vah264dec", HW, NODE_A, GPU_A },
		{ "avdec_h264", SW, NULL, NULL },
	};
	size_t first_order[N(first)];
	CHECK(!veil_decoder_order(first, N(first), first_order), "hardware first: no re-sort");
}

static void test_choices(void) {
	/* One GPU, the renderer's: its VA decoder. */
	const struct veil_decoder_candidate one_gpu[] = {
		{ "avdec_h264", SW, NULL, NULL },
		{ "vah264dec", HW, NODE_A, GPU_A },
	};
	CHECK_CHOICE(one_gpu, GPU_A, "vah264dec");

	/* Two GPUs, the renderer on the second: the VA element of the second. */
	const struct veil_decoder_candidate two_gpus[] = {
		{ "avdec_h264", SW, NULL, NULL },
		{ "vah264dec", HW, NODE_A, GPU_A },
		{ "varenderD129h264dec", HW, NODE_B, GPU_B },
	};
	CHECK_CHOICE(two_gpus, GPU_B, "varenderD129h264dec");
	CHECK_CHOICE(two_gpus, GPU_A, "vah264dec");
	/* No DRM renderer (pixman): frames go to memory anyway, the first VA device does. */
	CHECK_CHOICE(two_gpus, NULL, "vah264dec");

	/* The renderer on a GPU without VA (NVIDIA's proprietary driver): software. */
	CHECK_CHOICE(one_gpu, GPU_B, "avdec_h264");

	/* ... or NVDEC, when it is there: tried before software. */
	const struct veil_decoder_candidate nvidia[] = {
		{ "avdec_h265", SW, NULL, NULL },
		{ "vah265dec", HW, NODE_A, GPU_A },
		{ "nvh265dec", HW, NULL, NULL },
	};
	CHECK_CHOICE(nvidia, GPU_B, "nvh265dec");

	/* An ARM board: V4L2 stateless, then stateful, then software. */
	const struct veil_decoder_candidate arm[] = {
		{ "avdec_h264", SW, NULL, NULL },
		{ "v4l2slh264dec", HW, NULL, NULL },
		{ "v4l2h264dec", SW, NULL, NULL },
	};
	CHECK_CHOICE(arm, GPU_A, "v4l2slh264dec");
	CHECK_CHOICE(arm, NULL, "v4l2slh264dec");

	/* Only the second GPU's VA element and no DRM renderer: skipped, software instead. */
	const struct veil_decoder_candidate second_only[] = {
		{ "avdec_h264", SW, NULL, NULL },
		{ "varenderD129h264dec", HW, NODE_B, GPU_B },
	};
	CHECK_CHOICE(second_only, NULL, "avdec_h264");

	/* A VA element whose device cannot be told, or whose node has no sysfs device. */
	const struct veil_decoder_candidate unknown[] = {
		{ "avdec_vp9", SW, NULL, NULL },
		{ "vavp9dec", HW, NULL, NULL },
	};
	CHECK_CHOICE(unknown, GPU_A, "avdec_vp9");
	CHECK_CHOICE(unknown, NULL, "vavp9dec");
	const struct veil_decoder_candidate no_sysfs[] = {
		{ "avdec_vp9", SW, NULL, NULL },
		{ "vavp9dec", HW, NODE_A, NULL },
	};
	CHECK_CHOICE(no_sysfs, GPU_A, "avdec_vp9");

	/* The old vaapi plugin is not checked for its device (it copies to memory itself). */
	const struct veil_decoder_candidate vaapi[] = {
		{ "avdec_h264", SW, NULL, NULL },
		{ "vaapih264dec", HW, NULL, NULL },
	};
	CHECK_CHOICE(vaapi, GPU_B, "vaapih264dec");

	/* Nothing usable at all: decodebin gets nothing to try (the missing-plugin error). */
	const struct veil_decoder_candidate none[] = {
		{ "varenderD129h264dec", HW, NODE_B, GPU_B },
	};
	CHECK_CHOICE(none, GPU_A, NULL);

	/* Software only: decodebin's first. */
	const struct veil_decoder_candidate sw[] = {
		{ "vp9dec", SW, NULL, NULL },
		{ "avdec_vp9", SW, NULL, NULL },
	};
	CHECK_CHOICE(sw, GPU_A, "vp9dec");
	CHECK_CHOICE(sw, NULL, "vp9dec");
}

static void test_reasons(void) {
	const struct veil_decoder_candidate other = { "vah264dec", HW, NODE_A, GPU_A };
	char *why = veil_decoder_skip_reason(&other, GPU_B);
	CHECK(why != NULL && strstr(why, NODE_A) != NULL && strstr(why, GPU_B) != NULL,
		"the reason names both devices: %s", why ? why : "(none)");
	free(why);
	const struct veil_decoder_candidate second = { "varenderD129h264dec", HW, NODE_B, GPU_B };
	why = veil_decoder_skip_reason(&second, NULL);
	CHECK(why != NULL && strstr(why, NODE_B) != NULL, "the reason names the node: %s",
		why ? why : "(none)");
	free(why);
	const struct veil_decoder_candidate unknown = { "vah264dec", HW, NULL, NULL };
	why = veil_decoder_skip_reason(&unknown, GPU_A);
	CHECK(why != NULL && strstr(why, "unknown") != NULL, "unknown device: %s",
		why ? why : "(none)");
	free(why);
}

int main(void) {
	test_families();
	test_order();
	test_choices();
	test_reasons();
	return check_summary("choose");
}
