/*
 * The wallpaper package readers (module/core/package_read.c, module/core/package_xml.c) on broken
 * or hostile input, and the fit rule (util/fit.c) on what they accept. The first byte picks the
 * reader: even, a Plasma package (metadata.json up to the first NUL, then the picture names, a
 * line each, "D:" before a dark one); odd, GNOME's XML (a list or <size> choices) from a file.
 * Beyond the sanitizers' findings, a run stops when a reader breaks its contract: a refusal
 * without a sentence naming the file, a package without pictures, a picture without a size or
 * outside its package, a choice that is not one of the pictures.
 */
#define _GNU_SOURCE
#include "fuzz-common.h"
#include "module/core/package_read.h"
#include "util/fit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_package(const struct veil_package *p, const char *dir) {
	FUZZ_CHECK(p->n_light > 0 && p->n_light <= VEIL_PACKAGE_PICTURES_MAX, "%zu pictures",
		p->n_light);
	FUZZ_CHECK(p->n_dark <= VEIL_PACKAGE_PICTURES_MAX, "%zu dark pictures", p->n_dark);
	FUZZ_CHECK(p->name != NULL && p->name[0] != '\0', "no name");
	struct veil_fit_size sizes[VEIL_PACKAGE_PICTURES_MAX];
	for (size_t i = 0; i < p->n_light; i++) {
		const struct veil_package_picture *pic = &p->light[i];
		FUZZ_CHECK(pic->size.width > 0 && pic->size.height > 0, "picture %zu is %dx%d", i,
			pic->size.width, pic->size.height);
		FUZZ_CHECK(pic->path != NULL && (dir == NULL || strncmp(pic->path, dir,
			strlen(dir)) == 0), "picture %zu at '%s'", i, pic->path);
		sizes[i] = pic->size;
	}
	const int outputs[][2] = { { 1920, 1080 }, { 3840, 1080 }, { 1080, 1920 }, { 0, 0 },
		{ 1, 1 }, { 65535, 65535 } };
	for (size_t k = 0; k < sizeof(outputs) / sizeof(outputs[0]); k++) {
		int i = veil_fit_choose(sizes, p->n_light, outputs[k][0], outputs[k][1]);
		FUZZ_CHECK(i >= 0 && (size_t)i < p->n_light, "choice %d of %zu", i, p->n_light);
		char why[96];
		veil_fit_why(&sizes[i], outputs[k][0], outputs[k][1], why, sizeof(why));
	}
}

static void plasma(const char *text, size_t size) {
	const char *nul = memchr(text, '\0', size);
	size_t meta_len = nul != NULL ? (size_t)(nul - text) : size;
	const char *light[256], *dark[256];
	size_t n_light = 0, n_dark = 0;
	char *names = nul != NULL ? strndup(nul + 1, size - meta_len - 1) : NULL;
	for (char *save = NULL, *line = names != NULL ? strtok_r(names, "\n", &save) : NULL;
			line != NULL && n_light < 256 && n_dark < 256;
			line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "D:", 2) == 0) {
			dark[n_dark++] = line + 2;
		} else {
			light[n_light++] = line;
		}
	}
	char *message = NULL;
	struct veil_package *p = veil_package_parse("/w/Pkg", text, meta_len, light, n_light,
		dark, n_dark, &message);
	if (p == NULL) {
		FUZZ_CHECK(message != NULL && strstr(message, "/w/Pkg") != NULL,
			"a refusal that does not name the package: %s", message ? message : "");
	} else {
		FUZZ_CHECK(message == NULL, "accepted with a message: %s", message);
		check_package(p, "/w/Pkg/contents/");
	}
	free(message);
	veil_package_unref(p);
	free(names);
}

static void gnome(const uint8_t *data, size_t size) {
	int fd = memfd_create("fuzz.xml", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write");
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct veil_package *p = NULL;
	struct veil_gnome_wallpaper w;
	char *message = NULL;
	int ret = veil_package_xml_read(path, &p, &w, &message);
	if (ret < 0) {
		FUZZ_CHECK(message != NULL && strstr(message, path) != NULL,
			"a refusal that does not name the file: %s", message ? message : "");
		FUZZ_CHECK(p == NULL && w.file == NULL, "a refusal with a result");
	} else if (ret > 0 && p != NULL) {
		check_package(p, NULL);
	} else if (ret > 0) {
		FUZZ_CHECK(w.file != NULL || w.mode == VEIL_MODE_SOLID_COLOR, "a list without a file");
	} else {
		FUZZ_CHECK(p == NULL && w.file == NULL, "not one, with a result");
	}
	free(message);
	veil_package_unref(p);
	veil_gnome_wallpaper_finish(&w);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size == 0) {
		return 0;
	}
	if (data[0] % 2 == 0) {
		plasma((const char *)data + 1, size - 1);
	} else {
		gnome(data + 1, size - 1);
	}
	return 0;
}
