/*
 * A KDE Plasma wallpaper package read from its directory: metadata.json (KPlugin.Name), the
 * pictures of contents/images/ and contents/images_dark/, each named by its size
 * ("1920x1080.png"). No scene, no decoding: the files are listed and the small metadata read,
 * which a fuzzer and a slideshow's scan (on a worker) do as the command does.
 */
#ifndef VEIL_MODULE_PACKAGE_READ_H
#define VEIL_MODULE_PACKAGE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/fit.h"
#include "util/mode.h"

/* metadata.json is read whole: Plasma's own, translations and all, are under 8 KiB. */
#define VEIL_PACKAGE_METADATA_MAX (256 * 1024)
/* Pictures read from each of images/ and images_dark/ (Plasma's packages have up to 13). */
#define VEIL_PACKAGE_PICTURES_MAX 64

struct veil_package_picture {
	char *path;
	struct veil_fit_size size; /* as its name says */
};

struct veil_package {
	int refs;
	char *dir;
	char *name; /* KPlugin.Name, else the directory's name */
	/* Sorted by name; dark may be empty (n_dark 0). */
	struct veil_package_picture *light, *dark;
	size_t n_light, n_dark;
};

/*
 * Whether dir is a package: a directory with metadata.json (or Plasma 5's metadata.desktop) and
 * contents/images/ or contents/images_dark/ (stat() only).
 */
bool veil_package_detect(const char *dir);
/* A GNOME wallpaper XML's name (*.xml, any case): a list, <size> choices or a timed show. */
bool veil_package_xml_name(const char *path);

/*
 * Reads the package in dir: NULL with *message, one sentence naming the file, when its
 * metadata.json is not JSON or it has no picture named by its size in contents/images/.
 */
struct veil_package *veil_package_read(const char *dir, char **message);
/*
 * The same from len bytes of metadata.json's text (NULL: none; no NUL needed) and the images'
 * file names.
 */
struct veil_package *veil_package_parse(const char *dir, const char *metadata, size_t len,
	const char *const *light, size_t n_light, const char *const *dark, size_t n_dark,
	char **message);
struct veil_package *veil_package_ref(struct veil_package *package);
/*
 * A package of the n pictures given (copied), named after the file dir: a timed background's
 * <size> choices (module/show/timed.c). NULL when memory is short.
 */
struct veil_package *veil_package_create(const char *dir,
	const struct veil_package_picture *pictures, size_t n);

/* GNOME's lists are a kilobyte or two: larger XML is left to the timed show. */
#define VEIL_PACKAGE_XML_MAX (64 * 1024)

/* A gnome-background-properties list's first <wallpaper>. */
struct veil_gnome_wallpaper {
	char *name;
	char *file, *dark; /* <filename>, <filename-dark> (NULL: none), relative to the XML */
	enum veil_mode mode; /* <options> */
	bool has_color;
	uint32_t color; /* <pcolor> */
};

/*
 * GNOME's XML that names pictures to choose from (module/core/package_xml.c), read with libxml2 as
 * util/xml.c reads any: 1 and *package for a <background> of one <static> with <size> choices
 * (each a picture of the package, its size the XML's), 1 and *wallpaper->file for a
 * gnome-background-properties list, 0 for other XML (a timed background), or a negative errno
 * and *message naming the file.
 */
int veil_package_xml_read(const char *path, struct veil_package **package,
	struct veil_gnome_wallpaper *wallpaper, char **message);
void veil_gnome_wallpaper_finish(struct veil_gnome_wallpaper *wallpaper);
/* NULL is allowed. */
void veil_package_unref(struct veil_package *package);

#endif
