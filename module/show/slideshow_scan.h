/*
 * A slideshow's directory, read on a veil worker: its files, those that cannot be shown marked
 * (each new one checked as a command checks a file: kind and header), sorted for the order.
 * The compositor thread never lists a directory.
 */
#ifndef VEIL_MODULE_SLIDESHOW_SCAN_H
#define VEIL_MODULE_SLIDESHOW_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include "module/show/slideshow_order.h"
#include "util/worker.h"

struct veil_slideshow_scan;

/* Compositor thread: the scan is the callee's, to free with veil_slideshow_scan_destroy(). */
typedef void (*veil_slideshow_scan_done_fn)(struct veil_slideshow_scan *scan, void *data);

struct veil_slideshow_scan {
	struct veil_job job;
	veil_slideshow_scan_done_fn done;
	void *data;
	/*
	 * In: what to read, and the last scan's files (a copy), whose checks are not redone; their
	 * packages are borrowed from the show, which keeps them until done() or the cancel.
	 */
	char *dir;
	bool recursive;
	enum veil_slideshow_order order;
	struct veil_slide *known;
	size_t n_known;
	/*
	 * Out: the files, sorted; why the directory could not be read (NULL when it could).
	 * borrowed[i]: slides[i].package is a known one, referenced on the compositor's thread
	 * before done() (a package's count is the compositor thread's alone).
	 */
	struct veil_slide *slides;
	size_t n_slides;
	bool *borrowed;
	char *error;
	/* Out: a sentence for each file found bad in this scan (not known bad before). */
	char **skipped;
	size_t n_skipped;
};

/*
 * Copies dir and the known slides. NULL when memory is short.
 */
struct veil_slideshow_scan *veil_slideshow_scan_create(const char *dir, bool recursive,
	enum veil_slideshow_order order, const struct veil_slide *known, size_t n_known,
	veil_slideshow_scan_done_fn done, void *data);
/* Frees a scan done() got, or one never submitted. NULL is allowed. */
void veil_slideshow_scan_destroy(struct veil_slideshow_scan *scan);
void veil_slideshow_scan_submit(struct veil_worker *worker, struct veil_slideshow_scan *scan);
/* A submitted scan whose done() has not run: it never will, the worker frees it. */
void veil_slideshow_scan_cancel(struct veil_slideshow_scan *scan);

#endif
