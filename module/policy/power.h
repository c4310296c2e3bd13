/*
 * Whether the machine runs on battery: read from sysfs (power_supply) on a worker, at most once
 * a minute and only while someone wants to know, or told by the compositor, after which veil
 * reads nothing more.
 */
#ifndef VEIL_MODULE_POWER_H
#define VEIL_MODULE_POWER_H

#include <stdbool.h>

struct wl_event_loop;
struct veil_worker;
struct veil_power;

/*
 * Reads dir (NULL: /sys/class/power_supply) every poll_ms while it matters (0: once a minute).
 * changed(data) runs on the compositor thread when on_battery changes.
 */
struct veil_power *veil_power_create(struct wl_event_loop *loop, struct veil_worker *worker,
	const char *dir, int poll_ms, void (*changed)(void *data), void *data);
/* Stops polling; a read still running is discarded. NULL is allowed. */
void veil_power_destroy(struct veil_power *power);
/* Whether to follow the power supply: reads at once, then every poll interval, until false. */
void veil_power_watch(struct veil_power *power, bool watch);
/* The compositor says it (it follows UPower, say): no more reading, ever. */
void veil_power_set_on_battery(struct veil_power *power, bool on_battery);
/* The last state known; false (mains) until the first read. */
bool veil_power_on_battery(const struct veil_power *power);

/*
 * The worker's read, exposed for tests: whether the supplies under dir (laid out like
 * /sys/class/power_supply) say the machine runs on battery.
 */
bool veil_power_read(const char *dir);

#endif
