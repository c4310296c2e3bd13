/*
 * The wall clock veil's timed shows follow: CLOCK_REALTIME, unless a compositor's test build
 * moves it (veil-tinywl --fake-clock, examples/tinywl/fake_clock.c). It is no part of veil.h and
 * exports no symbol: it is the first member of struct veil_scene (module/core/scene.h checks
 * it), so a test build reaches it from the scene pointer it holds, with this header alone.
 */
#ifndef VEIL_UTIL_WALL_CLOCK_H
#define VEIL_UTIL_WALL_CLOCK_H

#include <time.h>
#include <wayland-server-core.h>

struct veil_scene;

struct veil_wall_clock {
	/* NULL: CLOCK_REALTIME. A test's clock runs at the real pace from where it was set. */
	void (*now)(struct timespec *now, void *data);
	void *data;
	/* Emitted by whoever moved the clock: what is due is worked out again. Data: the scene. */
	struct wl_signal jump;
};

static inline struct veil_wall_clock *veil_wall_clock_of(struct veil_scene *scene) {
	return (struct veil_wall_clock *)(void *)scene;
}

static inline void veil_wall_clock_read(const struct veil_wall_clock *clock,
		struct timespec *now) {
	if (clock->now != NULL) {
		clock->now(now, clock->data);
	} else {
		clock_gettime(CLOCK_REALTIME, now);
	}
}

#endif
