#define _GNU_SOURCE /* O_DIRECTORY, fstatat, dirfd */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "source/source.h"
#include "module/core/package_read.h"
#include "module/show/slideshow_scan.h"
#include "util/message.h"

/* A directory larger than this is read up to here: a slideshow, not a file index. */
#define MAX_FILES 100000
/* How deep `recursive` goes. */
#define MAX_DEPTH 16

struct veil_slideshow_scan *veil_slideshow_scan_create(const char *dir, bool recursive,
		enum veil_slideshow_order order, const struct veil_slide *known, size_t n_known,
		veil_slideshow_scan_done_fn done, void *data) {
	struct veil_slideshow_scan *scan = calloc(1, sizeof(*scan));
	if (scan == NULL) {
		return NULL;
	}
	scan->done = done;
	scan->data = data;
	scan->recursive = recursive;
	scan->order = order;
	scan->dir = strdup(dir);
	if (scan->dir == NULL) {
		goto error;
	}
	if (n_known > 0) {
		scan->known = calloc(n_known, sizeof(*scan->known));
		if (scan->known == NULL) {
			goto error;
		}
		for (size_t i = 0; i < n_known; i++) {
			/* The package borrowed: the worker moves the pointer and never counts it. */
			scan->known[i] = known[i];
			scan->known[i].path = strdup(known[i].path);
			scan->n_known = i + 1;
			if (scan->known[i].path == NULL) {
				goto error;
			}
		}
	}
	return scan;

error:
	veil_slideshow_scan_destroy(scan);
	return NULL;
}

void veil_slideshow_scan_destroy(struct veil_slideshow_scan *scan) {
	if (scan == NULL) {
		return;
	}
	free(scan->dir);
	/* Borrowed packages are not this scan's to let go (and discard() runs on a worker). */
	for (size_t i = 0; i < scan->n_known; i++) {
		scan->known[i].package = NULL;
	}
	veil_slides_free(scan->known, scan->n_known);
	for (size_t i = 0; scan->borrowed != NULL && i < scan->n_slides; i++) {
		if (scan->borrowed[i]) {
			scan->slides[i].package = NULL;
		}
	}
	free(scan->borrowed);
	veil_slides_free(scan->slides, scan->n_slides);
	free(scan->error);
	for (size_t i = 0; i < scan->n_skipped; i++) {
		free(scan->skipped[i]);
	}
	free(scan->skipped);
	free(scan);
}

static int by_path(const void *a, const void *b) {
	const struct veil_slide *sa = a, *sb = b;
	return strcmp(sa->path, sb->path);
}

struct growing {
	struct veil_slide *slides;
	size_t n, cap;
};

static bool append(struct growing *list, struct veil_slide slide) {
	if (list->n == list->cap) {
		size_t cap = list->cap > 0 ? 2 * list->cap : 64;
		struct veil_slide *slides = realloc(list->slides, cap * sizeof(*slides));
		if (slides == NULL) {
			return false;
		}
		list->slides = slides;
		list->cap = cap;
	}
	list->slides[list->n++] = slide;
	return true;
}

static void note_skipped(struct veil_slideshow_scan *scan, char *sentence) {
	if (sentence == NULL) {
		return;
	}
	char **skipped = realloc(scan->skipped, (scan->n_skipped + 1) * sizeof(*skipped));
	if (skipped == NULL) {
		free(sentence);
		return;
	}
	scan->skipped = skipped;
	scan->skipped[scan->n_skipped++] = sentence;
}

static void stamp_add(uint64_t *hash, const void *data, size_t len) {
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++) {
		*hash = (*hash ^ p[i]) * 0x100000001b3u; /* FNV-1a */
	}
}

/*
 * What a package's reading depends on, from stat() alone: its metadata.json's (or
 * metadata.desktop's) inode, size and mtime, and the mtimes of contents/images/ and
 * contents/images_dark/ (a picture added, removed or renamed). A metadata.json fixed in place
 * changes the file's mtime, not its directory's. 0 when the metadata cannot be stat()ed.
 */
static uint64_t package_stamp(const char *dir) {
	static const char *const parts[] = {
		"metadata.json", "metadata.desktop", "contents/images", "contents/images_dark",
	};
	uint64_t hash = 0xcbf29ce484222325u;
	bool metadata = false;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *path = veil_message("%s/%s", dir, parts[i]);
		struct stat st;
		int64_t key[4] = {0};
		if (path != NULL && stat(path, &st) == 0) {
			metadata = metadata || i < 2;
			key[0] = (int64_t)st.st_ino;
			key[1] = i < 2 ? (int64_t)st.st_size : 0;
			key[2] = (int64_t)st.st_mtim.tv_sec;
			key[3] = (int64_t)st.st_mtim.tv_nsec;
		}
		free(path);
		stamp_add(&hash, key, sizeof(key));
	}
	return !metadata ? 0 : hash != 0 ? hash : 1;
}

/*
 * Whether a file can be shown: as the last scan found it, else checked as a command would. A
 * package is read here, into slide->package, unless the last scan read it and its stamp has
 * not changed (that package is then borrowed: *borrowed): the step shows what a scan read, and
 * the compositor's thread never reads it. A package found bad is read again once its stamp
 * changes. borrowed NULL (memory was short): every package is read.
 */
static bool usable(struct veil_slideshow_scan *scan, struct veil_slide *slide, bool *borrowed) {
	struct veil_slide *known = scan->n_known > 0 ? bsearch(slide, scan->known, scan->n_known,
		sizeof(*scan->known), by_path) : NULL;
	bool package = veil_package_detect(slide->path);
	if (package) {
		slide->stamp = package_stamp(slide->path);
	}
	if (known != NULL && known->size == slide->size && known->mtime_ns == slide->mtime_ns &&
			known->stamp == slide->stamp && (!package || slide->stamp != 0)) {
		if (known->bad || !package) {
			return !known->bad;
		}
		if (known->package != NULL && borrowed != NULL) {
			slide->package = known->package;
			*borrowed = true;
			return true;
		}
	}
	char *message = NULL;
	int ret = package ?
		((slide->package = veil_package_read(slide->path, &message)) != NULL ? 0 :
		-EINVAL) : veil_source_check(slide->path, &message);
	if (ret < 0) {
		note_skipped(scan, message != NULL ? message :
			veil_message("Cannot show '%s': %s", slide->path, strerror(-ret)));
		return false;
	}
	free(message);
	return true;
}

static void read_dir(struct veil_slideshow_scan *scan, struct growing *list, const char *path,
		int depth) {
	DIR *dir = opendir(path);
	if (dir == NULL) {
		if (depth == 0) {
			scan->error = veil_message("Cannot read the directory '%s': %s", path,
				strerror(errno));
		}
		return;
	}
	struct dirent *entry;
	while (list->n < MAX_FILES && (entry = readdir(dir)) != NULL) {
		/* Hidden files (and . and ..) are not pictures of the show. */
		if (entry->d_name[0] == '.') {
			continue;
		}
		char *child = veil_message("%s/%s", path, entry->d_name);
		if (child == NULL) {
			break;
		}
		struct stat st;
		/* A link to a directory is not followed (no loops); a link to a file is. */
		bool is_dir = fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			S_ISDIR(st.st_mode);
		/* A wallpaper package is one picture of the show (module/core/package_read.c). */
		bool package = is_dir && veil_package_detect(child);
		if (is_dir && !package) {
			if (scan->recursive && depth < MAX_DEPTH) {
				read_dir(scan, list, child, depth + 1);
			}
			free(child);
			continue;
		}
		if (!package && (fstatat(dirfd(dir), entry->d_name, &st, 0) != 0 ||
				!S_ISREG(st.st_mode))) {
			free(child);
			continue;
		}
		struct veil_slide slide = {
			.path = child,
			.size = st.st_size,
			.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
		};
		if (!append(list, slide)) {
			free(child);
			break;
		}
	}
	closedir(dir);
}

static void scan_run(struct veil_job *job) {
	struct veil_slideshow_scan *scan = wl_container_of(job, scan, job);
	if (scan->n_known > 1) {
		qsort(scan->known, scan->n_known, sizeof(*scan->known), by_path);
	}
	struct growing list = {0};
	read_dir(scan, &list, scan->dir, 0);
	veil_slides_sort(list.slides, list.n, scan->order);
	scan->slides = list.slides;
	scan->n_slides = list.n;
	scan->borrowed = list.n > 0 ? calloc(list.n, sizeof(*scan->borrowed)) : NULL;
	for (size_t i = 0; i < list.n; i++) {
		list.slides[i].bad = !usable(scan, &list.slides[i],
			scan->borrowed != NULL ? &scan->borrowed[i] : NULL);
	}
}

static void scan_done(struct veil_job *job) {
	struct veil_slideshow_scan *scan = wl_container_of(job, scan, job);
	/* The show still holds the packages lent: each slide now holds its own reference. */
	for (size_t i = 0; scan->borrowed != NULL && i < scan->n_slides; i++) {
		if (scan->borrowed[i]) {
			veil_package_ref(scan->slides[i].package);
			scan->borrowed[i] = false;
		}
	}
	scan->done(scan, scan->data);
}

static void scan_discard(struct veil_job *job) {
	struct veil_slideshow_scan *scan = wl_container_of(job, scan, job);
	veil_slideshow_scan_destroy(scan);
}

static const struct veil_job_impl scan_impl = {
	.run = scan_run,
	.done = scan_done,
	.discard = scan_discard,
};

void veil_slideshow_scan_submit(struct veil_worker *worker, struct veil_slideshow_scan *scan) {
	veil_worker_submit(worker, &scan->job, &scan_impl);
}

void veil_slideshow_scan_cancel(struct veil_slideshow_scan *scan) {
	veil_job_cancel(&scan->job);
}
