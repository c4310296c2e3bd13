/*
 * make-dynamic-heic: writes an Apple-style dynamic wallpaper for the tests: a HEIC of solid
 * colour images (libheif's encoder, HEVC 4:4:4 at quality 100) whose primary image carries an
 * XMP packet with apple_desktop:solar, h24 or apr, the base64 (glib) of a binary plist
 * (libplist's plist_to_bin).
 *
 *   make-dynamic-heic [-s ALT,AZ,IMAGE]... [-t TIME,IMAGE]... [-a LIGHT,DARK]
 *       [-k solar|h24|apr] [-p PLIST_FILE] [-b BASE64_FILE] [-x XMP_FILE] [-e] [-m]
 *       [-g IMAGE] [-G N] OUT.heic WIDTH HEIGHT RRGGBB...
 *
 * -s: a solar entry (si); -t: a time entry (ti); -a: the appearance (ap, or apr's dict);
 * -k: the property (default solar with -s, else h24 with -t, else apr); -p: that property's
 * bytes from a file instead of the plist (a hostile one); -b: its value as base64 text from a
 * file (Apple's own plists); -x: the whole XMP from a file. -e: the value as an element of
 * rdf:Description (as Equinox writes it), not an attribute; -m: the packet as macOS writes it,
 * a byte-order mark in the xpacket header and a NUL byte at its end. -g: that image (from 0)
 * monochrome (its colour's red as grey) with a grey ICC profile of its own, linear light
 * (lcms2's cmsCreateGrayProfile, gamma 1.0). -G: each image a grid of N x N tiles, each tile an
 * item (libheif's uncompressed codec, for speed), as Apple's files are grids of 512x512 HEVC
 * tiles: 8 images of 12 x 12 make 1161 items with the XMP, past libheif's default of 1000.
 */
#include <errno.h>
#include <glib.h>
#include <lcms2.h>
#include <libheif/heif.h>
#include <plist/plist.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ENTRIES 64

static void usage(void) {
	fprintf(stderr, "usage: make-dynamic-heic [-s ALT,AZ,IMAGE]... [-t TIME,IMAGE]... "
		"[-a LIGHT,DARK] [-k solar|h24|apr] [-p PLIST] [-b BASE64] [-x XMP] [-e] [-m] "
		"[-g IMAGE] [-G N] OUT.heic WIDTH HEIGHT RRGGBB...\n");
	exit(2);
}

static bool check(struct heif_error err, const char *what) {
	if (err.code != heif_error_Ok) {
		fprintf(stderr, "make-dynamic-heic: %s: %s\n", what, err.message);
		return false;
	}
	return true;
}

static char *read_all(const char *path, size_t *len) {
	gchar *data = NULL;
	gsize n = 0;
	if (!g_file_get_contents(path, &data, &n, NULL)) {
		fprintf(stderr, "make-dynamic-heic: cannot read %s\n", path);
		exit(1);
	}
	*len = n;
	return data;
}

static plist_t appearance(int light, int dark) {
	plist_t ap = plist_new_dict();
	plist_dict_set_item(ap, "l", plist_new_int(light));
	plist_dict_set_item(ap, "d", plist_new_int(dark));
	return ap;
}

int main(int argc, char *argv[]) {
	double solar[MAX_ENTRIES][3], times[MAX_ENTRIES][2];
	int n_solar = 0, n_times = 0, light = -1, dark = -1;
	const char *kind = NULL, *plist_file = NULL, *xmp_file = NULL, *base64_file = NULL;
	bool element = false, macos = false;
	int grey = -1, grid = 0;
	int opt;
	while ((opt = getopt(argc, argv, "s:t:a:k:p:b:x:emg:G:")) != -1) {
		switch (opt) {
		case 's':
			if (n_solar == MAX_ENTRIES || sscanf(optarg, "%lf,%lf,%lf", &solar[n_solar][0],
					&solar[n_solar][1], &solar[n_solar][2]) != 3) {
				usage();
			}
			n_solar++;
			break;
		case 't':
			if (n_times == MAX_ENTRIES || sscanf(optarg, "%lf,%lf", &times[n_times][0],
					&times[n_times][1]) != 2) {
				usage();
			}
			n_times++;
			break;
		case 'a':
			if (sscanf(optarg, "%d,%d", &light, &dark) != 2) {
				usage();
			}
			break;
		case 'k':
			kind = optarg;
			break;
		case 'p':
			plist_file = optarg;
			break;
		case 'x':
			xmp_file = optarg;
			break;
		case 'b':
			base64_file = optarg;
			break;
		case 'e':
			element = true;
			break;
		case 'm':
			macos = true;
			break;
		case 'g':
			grey = atoi(optarg);
			break;
		case 'G':
			grid = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 4) {
		usage();
	}
	const char *out = argv[optind];
	int width = atoi(argv[optind + 1]), height = atoi(argv[optind + 2]);
	if (width <= 0 || height <= 0) {
		usage();
	}
	if (kind == NULL) {
		kind = n_solar > 0 ? "solar" : n_times > 0 ? "h24" : "apr";
	}

	/* The property's value: base64 of a binary plist (or of the file's bytes). */
	char *bin = NULL;
	size_t bin_len = 0;
	if (plist_file != NULL) {
		bin = read_all(plist_file, &bin_len);
	} else {
		plist_t root = strcmp(kind, "apr") == 0 ? appearance(light, dark) : plist_new_dict();
		if (strcmp(kind, "apr") != 0 && light >= 0) {
			plist_dict_set_item(root, "ap", appearance(light, dark));
		}
		if (strcmp(kind, "solar") == 0) {
			plist_t si = plist_new_array();
			for (int i = 0; i < n_solar; i++) {
				plist_t entry = plist_new_dict();
				plist_dict_set_item(entry, "a", plist_new_real(solar[i][0]));
				plist_dict_set_item(entry, "z", plist_new_real(solar[i][1]));
				plist_dict_set_item(entry, "i", plist_new_int((int64_t)solar[i][2]));
				plist_array_append_item(si, entry);
			}
			plist_dict_set_item(root, "si", si);
		} else if (strcmp(kind, "h24") == 0) {
			plist_t ti = plist_new_array();
			for (int i = 0; i < n_times; i++) {
				plist_t entry = plist_new_dict();
				plist_dict_set_item(entry, "t", plist_new_real(times[i][0]));
				plist_dict_set_item(entry, "i", plist_new_int((int64_t)times[i][1]));
				plist_array_append_item(ti, entry);
			}
			plist_dict_set_item(root, "ti", ti);
		}
		uint32_t len = 0;
		if (plist_to_bin(root, &bin, &len) != PLIST_ERR_SUCCESS) {
			fprintf(stderr, "make-dynamic-heic: plist_to_bin failed\n");
			return 1;
		}
		bin_len = len;
		plist_free(root);
	}
	gchar *base64;
	if (base64_file != NULL) {
		size_t len;
		base64 = g_strstrip(read_all(base64_file, &len));
	} else {
		base64 = g_base64_encode((const guchar *)bin, bin_len);
	}
	char *xmp;
	size_t xmp_len;
	if (xmp_file != NULL) {
		xmp = read_all(xmp_file, &xmp_len);
	} else {
		gchar *property = element ?
			g_strdup_printf(">\n   <apple_desktop:%s>%s</apple_desktop:%s>\n"
				"  </rdf:Description>", kind, base64, kind) :
			g_strdup_printf("\n    apple_desktop:%s=\"%s\"/>", kind, base64);
		xmp = g_strdup_printf("<?xpacket begin=\"%s\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
			"<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"veil tests\">\n"
			" <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
			"  <rdf:Description rdf:about=\"\"\n"
			"    xmlns:apple_desktop=\"http://ns.apple.com/namespace/1.0/\"%s\n"
			" </rdf:RDF>\n"
			"</x:xmpmeta>\n"
			"<?xpacket end=\"w\"?>", macos ? "\xef\xbb\xbf" : "", property);
		g_free(property);
		/* macOS counts the C string's NUL into the item. */
		xmp_len = strlen(xmp) + (macos ? 1 : 0);
	}

	heif_init(NULL);
	struct heif_context *ctx = heif_context_alloc();
	struct heif_encoder *encoder = NULL;
	if (!check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder),
			"no HEVC encoder")) {
		return 1;
	}
	heif_encoder_set_lossy_quality(encoder, 100);
	heif_encoder_set_parameter_string(encoder, "chroma", "444");
	struct heif_encoder *tiles_encoder = NULL;
	if (grid > 0 && (grid > 256 || width % grid != 0 || height % grid != 0 ||
			!check(heif_context_get_encoder_for_format(ctx,
			heif_compression_uncompressed, &tiles_encoder), "no uncompressed encoder"))) {
		usage();
	}
	struct heif_image_handle *primary = NULL;
	for (int k = optind + 3; k < argc; k++) {
		unsigned rgb;
		if (sscanf(argv[k], "%6x", &rgb) != 1) {
			usage();
		}
		struct heif_image *image = NULL;
		bool mono = k - optind - 3 == grey;
		int w = grid > 0 ? width / grid : width, h = grid > 0 ? height / grid : height;
		if (!check(heif_image_create(w, h, mono ? heif_colorspace_monochrome :
				heif_colorspace_RGB, mono ? heif_chroma_monochrome :
				heif_chroma_interleaved_RGB, &image), "heif_image_create") ||
				!check(heif_image_add_plane(image, mono ? heif_channel_Y :
				heif_channel_interleaved, w, h, 8), "heif_image_add_plane")) {
			return 1;
		}
		size_t stride;
		uint8_t *plane = heif_image_get_plane2(image, mono ? heif_channel_Y :
			heif_channel_interleaved, &stride);
		for (int y = 0; y < h; y++) {
			for (int x = 0; x < w; x++) {
				if (mono) {
					plane[(size_t)y * stride + (size_t)x] = (uint8_t)(rgb >> 16);
					continue;
				}
				uint8_t *p = plane + (size_t)y * stride + (size_t)x * 3;
				p[0] = (uint8_t)(rgb >> 16);
				p[1] = (uint8_t)(rgb >> 8);
				p[2] = (uint8_t)rgb;
			}
		}
		if (mono) {
			cmsToneCurve *linear = cmsBuildGamma(NULL, 1.0);
			cmsHPROFILE profile = cmsCreateGrayProfile(cmsD50_xyY(), linear);
			cmsUInt32Number icc_len = 0;
			cmsSaveProfileToMem(profile, NULL, &icc_len);
			void *icc = malloc(icc_len);
			if (icc == NULL || !cmsSaveProfileToMem(profile, icc, &icc_len) ||
					!check(heif_image_set_raw_color_profile(image, "prof", icc,
					icc_len), "grey profile")) {
				return 1;
			}
			free(icc);
			cmsCloseProfile(profile);
			cmsFreeToneCurve(linear);
		}
		struct heif_image_handle *handle = NULL;
		if (grid > 0) {
			/* The same tile everywhere: a solid colour. */
			struct heif_image **tiles = calloc((size_t)(grid * grid), sizeof(*tiles));
			for (int t = 0; tiles != NULL && t < grid * grid; t++) {
				tiles[t] = image;
			}
			if (tiles == NULL || !check(heif_context_encode_grid(ctx, tiles,
					(uint16_t)grid, (uint16_t)grid, tiles_encoder, NULL, &handle),
					"encoding a grid")) {
				return 1;
			}
			free(tiles);
		} else if (!check(heif_context_encode_image(ctx, image, encoder, NULL, &handle),
				"encoding")) {
			return 1;
		}
		heif_image_release(image);
		if (primary == NULL) {
			primary = handle;
		} else {
			heif_image_handle_release(handle);
		}
	}
	if (primary == NULL) {
		usage();
	}
	if (!check(heif_context_add_XMP_metadata(ctx, primary, xmp, (int)xmp_len), "XMP") ||
			!check(heif_context_write_to_file(ctx, out), out)) {
		return 1;
	}
	heif_image_handle_release(primary);
	heif_encoder_release(encoder);
	if (tiles_encoder != NULL) {
		heif_encoder_release(tiles_encoder);
	}
	heif_context_free(ctx);
	heif_deinit();
	g_free(base64);
	g_free(xmp);
	if (plist_file != NULL) {
		g_free(bin);
	} else {
		plist_mem_free(bin);
	}
	return 0;
}
