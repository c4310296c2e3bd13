/*
 * The table of shows: a new kind of show is one file implementing struct veil_show_impl and
 * one line here. The order is the order of claims: a timed background's XML before a directory.
 */
#include <errno.h>
#include <stddef.h>
#include "module/core/package_read.h"
#include "module/show/dynamic.h"
#include "module/show/show.h"
#include "module/show/slideshow.h"
#include "module/show/timed.h"
#include "module/show/timed_xml.h"

/* A GNOME timed background's XML, or an Apple dynamic wallpaper (a timed show of its images). */
static bool timed_plays_path(const char *path) {
	return veil_package_xml_name(path) || veil_dynamic_probe(path);
}

static const struct veil_show_impl timed_impl = {
	.path_is = "a timed background",
	.shows = "timed backgrounds",
	.claims = veil_timed_check,
	.start = veil_timed_start,
	.stop = veil_timed_stop,
	.plays_path = timed_plays_path,
};

static const struct veil_show_impl slideshow_impl = {
	.path_is = "a directory",
	.shows = "slideshows",
	.directory = true,
	.claims = veil_slideshow_check,
	.start = veil_slideshow_start,
	.stop = veil_slideshow_stop,
	.move = veil_slideshow_move,
};

static const struct veil_show_impl *const shows[] = {
	&timed_impl,
	&slideshow_impl,
};

#define N_SHOWS (sizeof(shows) / sizeof(shows[0]))

int veil_show_claim(const struct veil_command *cmd, const struct veil_show_impl **show,
		char **message) {
	*show = NULL;
	for (size_t i = 0; i < N_SHOWS; i++) {
		bool yes = false;
		int ret = shows[i]->claims(cmd, &yes, message);
		if (ret < 0 || yes) {
			*show = ret < 0 ? NULL : shows[i];
			return ret;
		}
	}
	return 0;
}

int veil_show_claim_directory(const struct veil_command *cmd, bool *yes, char **message) {
	*yes = false;
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (!shows[i]->directory) {
			continue;
		}
		int ret = shows[i]->claims(cmd, yes, message);
		if (ret < 0 || *yes) {
			return ret;
		}
	}
	return 0;
}

void veil_show_stop(struct veil_scene *scene, const char *name, bool all,
		const struct veil_show_impl *except) {
	/* From the last kind to the first, as the dispatcher always ended them. */
	for (size_t i = N_SHOWS; i-- > 0;) {
		if (shows[i] != except) {
			shows[i]->stop(scene, name, all);
		}
	}
}

bool veil_show_plays_path(const char *path) {
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (shows[i]->plays_path != NULL && shows[i]->plays_path(path)) {
			return true;
		}
	}
	return false;
}

int veil_show_move(struct veil_scene *scene, const char *name, int direction, char **message) {
	for (size_t i = 0; i < N_SHOWS; i++) {
		if (shows[i]->move != NULL) {
			return shows[i]->move(scene, name, direction, message);
		}
	}
	return -ENOENT;
}
