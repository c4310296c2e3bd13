/*
 * What the decoders call in the compositor's half of veil, which veil-decoder does not link
 * (nor wlroots, nor libwayland).
 */
#include <stdarg.h>
#include <stdio.h>
#include <wlr/util/log.h>
#include "util/worker.h"

/* heif.c logs through wlroots: here its lines go to standard error (the compositor's). */
void _wlr_log(enum wlr_log_importance verbosity, const char *format, ...) {
	if (verbosity > WLR_INFO) {
		return;
	}
	va_list args;
	va_start(args, format);
	fprintf(stderr, "veil-decoder: ");
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
}

/*
 * task_pool.c lowers GStreamer's streaming threads as veil's workers are lowered. The helper was
 * started by such a worker and inherited its nice value and SCHED_BATCH: its threads already
 * run that low.
 */
void veil_thread_lower_priority(void) {
}
