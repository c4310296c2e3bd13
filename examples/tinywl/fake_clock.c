/*
 * A wall clock the tests can move (built with the tests only): `--fake-clock SECONDS` starts it
 * at that time (seconds since the epoch), and the command `fake_clock SECONDS` sets it again
 * while the compositor runs, as a suspend and resume or a changed clock would. It runs at the
 * real clock's pace from where it was set. veil reads it through the scene's clock (its private
 * module/core/scene.h, not a public function), which only this build of veil-tinywl reaches.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/util/log.h>
#include "util/wall_clock.h"
#include "tinywl.h"

/* The fake clock minus CLOCK_REALTIME, in nanoseconds. */
static int64_t offset_ns;
static bool fake;

static int64_t real_ns(void) {
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void fake_now(struct timespec *now, void *data) {
	int64_t ns = real_ns() + offset_ns;
	now->tv_sec = ns / 1000000000;
	now->tv_nsec = ns % 1000000000;
	if (now->tv_nsec < 0) {
		now->tv_nsec += 1000000000;
		now->tv_sec--;
	}
}

bool fake_clock_parse(const char *word, double *seconds) {
	char *end;
	double value = strtod(word, &end);
	if (word[0] == '\0' || *end != '\0' || !isfinite(value) || value < 0 || value > 1e11) {
		return false;
	}
	*seconds = value;
	return true;
}

void fake_clock_set(struct tw_server *server, double seconds) {
	offset_ns = (int64_t)llround(seconds * 1e9) - real_ns();
	fake = true;
	if (server->veil == NULL) {
		return;
	}
	struct veil_wall_clock *clock = veil_wall_clock_of(server->veil);
	bool had = clock->now != NULL;
	clock->now = fake_now;
	clock->data = NULL;
	wlr_log(WLR_INFO, "fake clock: %.3f", seconds);
	if (had) {
		wl_signal_emit(&clock->jump, server->veil);
	}
}

void fake_clock_attach(struct tw_server *server) {
	if (fake && server->veil != NULL) {
		struct veil_wall_clock *clock = veil_wall_clock_of(server->veil);
		clock->now = fake_now;
		clock->data = NULL;
	}
}
