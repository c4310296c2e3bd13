/*
 * A veil-decoder started ahead of the next decode (source/remote/spare.c): it loads its
 * libraries while nothing waits for it, then blocks reading its socket until a request comes.
 * Owned by the scene (veil_source_context.decoder_spare); taken and asked for from worker
 * threads, started by a thread of its own, which also reaps the helpers that answered.
 */
#ifndef VEIL_SOURCE_REMOTE_SPARE_H
#define VEIL_SOURCE_REMOTE_SPARE_H

#include "source/remote/process.h"

/*
 * How long after a decode the next spare starts. Starting one is the dynamic loader's work for
 * tens of milliseconds; started at once, it ran while the compositor put the decoded picture on
 * screen and competed with it for the CPU (docs/measurements.md: the longest stall while
 * switching 1080p PNGs halved when the start waited half a second).
 */
#define VEIL_HELPER_SPARE_DELAY_MS 500

struct veil_helper_spare;

/*
 * The compositor's thread: starts its thread; no helper yet. Every helper of the scene is the
 * executable at path (copied), started with the process's environment as it is now (copied:
 * nothing reads the environment on veil's threads), and a decode may take timeout_ms. NULL
 * when memory or threads are short.
 */
struct veil_helper_spare *veil_helper_spare_create(const char *path, int timeout_ms);

/* Ends its thread, then kills and reaps the spare helper, if there is one. NULL is allowed. */
void veil_helper_spare_destroy(struct veil_helper_spare *spare);

/*
 * A helper for a decode: the spare when it is alive, else a new one. 0, or a negative errno
 * with a sentence in *message.
 */
int veil_helper_spare_take(struct veil_helper_spare *spare, struct veil_helper *helper,
	char **message);
/* A new helper in place of one that failed to start its work (same returns). */
int veil_helper_spare_restart(struct veil_helper_spare *spare, struct veil_helper *helper,
	char **message);
/* Any thread: how long one decode may take, in milliseconds. */
int veil_helper_spare_timeout_ms(const struct veil_helper_spare *spare);

/*
 * Any thread: veil_helper_release(), and the spare's thread reaps the helper once it has ended
 * (it is killed if it has not after VEIL_HELPER_EXIT_GRACE_MS). NULL spare is allowed: the
 * helper is then reaped at the next release.
 */
void veil_helper_spare_release(struct veil_helper_spare *spare, struct veil_helper *helper);

/*
 * Any thread: a spare is started delay_ms from now when there is none then (a failure is left
 * to the next take to report). A later call moves the start: while decodes follow each other
 * closely, none starts. NULL is allowed.
 */
void veil_helper_spare_fill(struct veil_helper_spare *spare, int delay_ms);

#endif
