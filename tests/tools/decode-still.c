/*
 * decode-still [--full|--steps] FILE OUT.pam [COVER_WIDTH COVER_HEIGHT]: a file through veil's own
 * decoding path with no compositor, as source/source.c takes it: veil_media_sniff(), the
 * decoder's header check, then veil_still_decode() with the colour conversion (at a reduced size
 * where the decoder has one, then the `smooth` shrink to cover; or, for an animated GIF, APNG,
 * WebP or JPEG XL, its decoder's first frame). --full: the whole decode even where the decoder
 * has a reduced one (the A/B of tests/bench/jpeg-cover.py). --steps: before it, the same decode
 * in its steps, each timed ("step read|decode|shrink|colour CPU_MS WALL_MS" lines; read: the
 * file read whole once, as the decoders read it; for tests/bench/still-screen.py). The picture
 * is written unpremultiplied as a PAM (RGB_ALPHA, 8 bits); what happened goes to stdout, one
 * "key: value" a line (tests/integration/decode_still.py reads them):
 *
 *   kind: png|jpeg|heif|webp|tiff|jxl|svg|image|video|audio|unknown|anim
 *   decoder: libpng          (the decoder that ran)
 *   size: 32x32              (the picture written; file: the file's own size)
 *   colour: gAMA -> sRGB     (source.colour's text)
 *   cpu_ms: 12.3             (the decode's CPU time on this thread; wall_ms: its wall time)
 *   peak_kib: 20480          (the process's peak resident memory, VmHWM)
 *   stage: check             (refused: by the sniff, the header check or the load)
 *   error: <sentence>        (refused: the decoder's sentence)
 *   errno: 22
 *
 * Exit status 0 when a picture was written, 1 when the file was refused (a video is refused
 * here: "error: played as a video"), 2 on bad arguments or a failure of this tool.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include "decode/anim.h"
#include "decode/colour.h"
#include "decode/sniff.h"
#include "decode/still.h"
#include "util/image.h"

static const char *kind_name(enum veil_media_kind kind) {
	switch (kind) {
	case VEIL_MEDIA_PNG:
		return "png";
	case VEIL_MEDIA_HEIF:
		return "heif";
	case VEIL_MEDIA_WEBP:
		return "webp";
	case VEIL_MEDIA_TIFF:
		return "tiff";
	case VEIL_MEDIA_JPEG:
		return "jpeg";
	case VEIL_MEDIA_JXL:
		return "jxl";
	case VEIL_MEDIA_SVG:
		return "svg";
	case VEIL_MEDIA_IMAGE:
		return "image";
	case VEIL_MEDIA_VIDEO:
		return "video";
	case VEIL_MEDIA_AUDIO:
		return "audio";
	case VEIL_MEDIA_UNKNOWN:
	default:
		return "unknown";
	}
}

/* One line of text from the library: a newline in it would start a key of its own. */
static void print_line(const char *key, const char *text) {
	printf("%s: ", key);
	for (const char *c = text; *c != '\0'; c++) {
		putchar(*c == '\n' || *c == '\r' ? ' ' : *c);
	}
	putchar('\n');
}

static double now_ms(clockid_t clock) {
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int refuse(const char *stage, int err, const char *message) {
	printf("stage: %s\n", stage);
	print_line("error", message != NULL ? message : strerror(err < 0 ? -err : err));
	printf("errno: %d\n", err < 0 ? -err : err);
	return 1;
}

/* B, G, R, A rows (premultiplied unless XRGB) to an R, G, B, A PAM with straight alpha. */
static int write_pam(const char *path, const uint8_t *data, int width, int height, int stride,
		bool premultiplied) {
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		fprintf(stderr, "decode-still: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n",
		width, height);
	uint8_t *row = malloc((size_t)width * 4);
	if (row == NULL) {
		fclose(f);
		return -1;
	}
	for (int y = 0; y < height; y++) {
		const uint8_t *p = data + (size_t)y * (size_t)stride;
		for (int x = 0; x < width; x++, p += 4) {
			unsigned a = premultiplied ? p[3] : 255;
			uint8_t *q = row + 4 * x;
			for (int c = 0; c < 3; c++) {
				unsigned v = p[2 - c];
				if (a == 0) {
					v = 0;
				} else if (a < 255) {
					v = (v * 255 + a / 2) / a;
				}
				q[c] = (uint8_t)(v > 255 ? 255 : v);
			}
			q[3] = (uint8_t)a;
		}
		fwrite(row, 4, (size_t)width, f);
	}
	free(row);
	return fclose(f) == 0 ? 0 : -1;
}

static int decode_anim(int fd, enum veil_anim_format format, const char *out) {
	printf("kind: anim\n");
	char *message = NULL;
	int ret = veil_anim_check(fd, format, &message);
	const struct veil_anim_decoder_impl *impl = veil_anim_decoder_find(format);
	if (ret == 0 && impl == NULL) {
		ret = -ENOTSUP;
	}
	if (ret < 0) {
		int status = refuse("check", ret, message);
		free(message);
		return status;
	}
	printf("decoder: %s\n", impl->name);
	uint8_t *data = NULL;
	size_t len = 0;
	struct veil_anim_decoder *dec = NULL;
	struct veil_anim_info info = {0};
	ret = veil_anim_open_file(impl, fd, &data, &len, &dec, &info, &message);
	const uint8_t *canvas = NULL;
	int delay = 0, index = 0;
	if (ret == 0) {
		ret = impl->next(dec, &canvas, &delay, &index, &message);
	}
	int status = 0;
	if (ret < 0) {
		status = refuse("load", ret, message);
	} else {
		printf("size: %dx%d\nframes: %d\n", info.width, info.height, info.frames);
		status = write_pam(out, canvas, info.width, info.height, info.width * 4, true) == 0 ?
			0 : 2;
	}
	if (dec != NULL) {
		impl->destroy(dec);
	}
	free(data);
	free(message);
	return status;
}

/* The process's peak resident memory (VmHWM: this program's, not its parent's before exec). */
static void print_peak(void) {
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		long kib;
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) {
			printf("peak_kib: %ld\n", kib);
		}
	}
	if (f != NULL) {
		fclose(f);
	}
}

/* The time of each step of veil_still_decode(), as the worker runs them one after another. */
static void time_steps(const struct veil_still_decoder *decoder, int fd, int cover_width,
		int cover_height) {
	double cpu = now_ms(CLOCK_THREAD_CPUTIME_ID), wall = now_ms(CLOCK_MONOTONIC);
	char buf[64 * 1024];
	off_t off = 0;
	ssize_t n;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		off += n;
	}
	printf("step read %.1f %.1f\n", now_ms(CLOCK_THREAD_CPUTIME_ID) - cpu,
		now_ms(CLOCK_MONOTONIC) - wall);
	struct veil_image image = {0};
	char *message = NULL;
	int width, height;
	cpu = now_ms(CLOCK_THREAD_CPUTIME_ID);
	wall = now_ms(CLOCK_MONOTONIC);
	int ret;
	if (decoder->load_shrunk != NULL && cover_width > 0) {
		ret = decoder->load_shrunk(fd, cover_width, cover_height, &image, &width, &height,
			&message);
	} else if (decoder->load_cover != NULL && cover_width > 0) {
		ret = decoder->load_cover(fd, cover_width, cover_height, &image, &width, &height,
			&message);
	} else {
		ret = decoder->load(fd, &image, &message);
	}
	free(message);
	if (ret < 0) {
		return;
	}
	printf("step decode %.1f %.1f\n", now_ms(CLOCK_THREAD_CPUTIME_ID) - cpu,
		now_ms(CLOCK_MONOTONIC) - wall);
	cpu = now_ms(CLOCK_THREAD_CPUTIME_ID);
	wall = now_ms(CLOCK_MONOTONIC);
	if (cover_width > 0) {
		veil_image_shrink_to_cover(&image, cover_width, cover_height,
			VEIL_IMAGE_FILTER_SMOOTH);
	}
	printf("step shrink %.1f %.1f\n", now_ms(CLOCK_THREAD_CPUTIME_ID) - cpu,
		now_ms(CLOCK_MONOTONIC) - wall);
	struct veil_colour_result colour = {0};
	cpu = now_ms(CLOCK_THREAD_CPUTIME_ID);
	wall = now_ms(CLOCK_MONOTONIC);
	veil_colour_to_srgb(&image, &colour);
	printf("step colour %.1f %.1f\n", now_ms(CLOCK_THREAD_CPUTIME_ID) - cpu,
		now_ms(CLOCK_MONOTONIC) - wall);
	veil_image_finish(&image);
}

int main(int argc, char *argv[]) {
	bool full = argc > 1 && strcmp(argv[1], "--full") == 0;
	bool steps = argc > 1 && strcmp(argv[1], "--steps") == 0;
	argv += full || steps;
	argc -= full || steps;
	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: decode-still [--full|--steps] FILE OUT.pam [COVER_WIDTH "
			"COVER_HEIGHT]\n");
		return 2;
	}
	int cover_width = argc == 5 ? atoi(argv[3]) : 0;
	int cover_height = argc == 5 ? atoi(argv[4]) : 0;
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return refuse("open", -errno, NULL);
	}
	const char *type = "";
	enum veil_media_kind kind = veil_media_sniff(fd, &type);
	int status;
	char *message = NULL;
	if (kind == VEIL_MEDIA_AUDIO || kind == VEIL_MEDIA_UNKNOWN) {
		printf("kind: %s\ntype: %s\n", kind_name(kind), type);
		status = refuse("sniff", -EINVAL, kind == VEIL_MEDIA_AUDIO ?
			"sound: no picture to show" :
			"not an image or a video veil can read");
		goto out;
	}
	enum veil_anim_format anim = veil_anim_detect(fd);
	if (anim != VEIL_ANIM_NONE) {
		status = decode_anim(fd, anim, argv[2]);
		goto out;
	}
	printf("kind: %s\ntype: %s\n", kind_name(kind), type);
	if (kind == VEIL_MEDIA_VIDEO) {
		status = refuse("sniff", -EINVAL, "played as a video");
		goto out;
	}
	const struct veil_still_decoder *decoder = veil_still_decoder_find(kind, &message);
	int ret = decoder != NULL ? decoder->check(fd, &message) : -ENOTSUP;
	if (ret < 0) {
		status = refuse(decoder != NULL ? "check" : "sniff", ret, message);
		goto out;
	}
	if (steps) {
		time_steps(decoder, fd, cover_width, cover_height);
	}
	struct veil_still_decoder whole = *decoder;
	if (full) {
		whole.load_cover = NULL;
		whole.load_shrunk = NULL;
	}
	struct veil_image image = {0};
	int width = 0, height = 0, shrink_error = 0;
	const struct veil_still_decoder *used = NULL;
	struct veil_colour_result colour = {0};
	double cpu = now_ms(CLOCK_THREAD_CPUTIME_ID), wall = now_ms(CLOCK_MONOTONIC);
	ret = veil_still_decode(&whole, fd, cover_width, cover_height, VEIL_IMAGE_FILTER_SMOOTH,
		&image, &width, &height, &used, &shrink_error, &colour, &message);
	cpu = now_ms(CLOCK_THREAD_CPUTIME_ID) - cpu;
	wall = now_ms(CLOCK_MONOTONIC) - wall;
	if (ret < 0) {
		printf("decoder: %s\n", used != NULL ? used->name : decoder->name);
		status = refuse("load", ret, message);
		goto out;
	}
	printf("decoder: %s\nsize: %dx%d\nfile: %dx%d\ncpu_ms: %.1f\nwall_ms: %.1f\n",
		used->name, image.width, image.height, width, height, cpu, wall);
	print_line("colour", colour.said);
	print_peak();
	if (colour.space.transfer != 0) {
		printf("hdr: kept for the renderer\n");
	}
	if (shrink_error < 0) {
		printf("shrink-error: %d\n", -shrink_error);
	}
	status = write_pam(argv[2], image.data, image.width, image.height, image.stride,
		image.drm_format == DRM_FORMAT_ARGB8888) == 0 ? 0 : 2;
	veil_image_finish(&image);

out:
	free(message);
	close(fd);
	return status;
}
