/*
 * A veil-decoder started ahead of the next decode (decode/isolate/spare.c): it loads its
 * libraries while nothing waits for it, then blocks reading its socket until a request comes.
 * Owned by the scene (veil_source_context.decoder_spare); taken and filled from worker threads.
 */
#ifndef VEIL_DECODE_ISOLATE_SPARE_H
#define VEIL_DECODE_ISOLATE_SPARE_H

#include "decode/isolate/process.h"

struct veil_helper_spare;

struct veil_helper_spare *veil_helper_spare_create(void);

/* Kills and reaps the spare helper, if there is one. */
void veil_helper_spare_destroy(struct veil_helper_spare *spare);

/*
 * A helper for a decode: the spare when it is alive, else a new one. spare may be NULL (always
 * a new one). 0, or a negative errno with a sentence in *message.
 */
int veil_helper_spare_take(struct veil_helper_spare *spare, struct veil_helper *helper,
	char **message);

/* Starts a spare helper when there is none; a failure is left to the next take to report. */
void veil_helper_spare_fill(struct veil_helper_spare *spare);

struct veil_worker;

/*
 * The same on one of the worker's threads, for the first decode of a session: returns at once.
 * The spare must outlive the worker (its destroy runs the job if it has not run yet).
 */
void veil_helper_spare_fill_later(struct veil_helper_spare *spare, struct veil_worker *worker);

#endif
