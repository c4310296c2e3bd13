/*
 * The power supply, as sysfs shows it: /sys/class/power_supply/<name>/{type,scope,online}, or
 * the directory VEIL_POWER_SUPPLY_DIR names (tests give a fake tree). The machine is on battery
 * when no supply other than a battery is online and at least one such supply is there and
 * offline; a machine with no supply at all (a desktop, a VM) is on mains. Supplies whose scope
 * is "Device" (a mouse's battery, a pen's) say nothing about the machine.
 *
 * Reading an AC adapter's `online` runs the driver (ACPI's _PSR, through the embedded
 * controller), which may take milliseconds: reads run on a veil worker, and the compositor
 * hears the result on its event loop. Nothing is read unless some output asks what to do on
 * battery; then once at once and every VEIL_POWER_POLL_MS (60000 unless set: tests shorten it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>
#include "module/policy/power.h"
#include "util/worker.h"

#define DEFAULT_DIR "/sys/class/power_supply"
#define DEFAULT_POLL_MS 60000

struct power_read {
	struct veil_job job;
	char *dir;
	bool on_battery; /* run()'s result */
	struct veil_power *power; /* NULL once cancelled */
};

struct veil_power {
	struct wl_event_loop *loop;
	struct veil_worker *worker;
	void (*changed)(void *data);
	void *data;
	char *dir;
	int poll_ms;
	struct wl_event_source *timer;
	struct power_read *read; /* submitted, done() not run yet */
	bool watching;
	bool told; /* the compositor said: veil reads nothing */
	bool on_battery;
};

/* A sysfs attribute's first line, without its newline; false when it cannot be read. */
static bool read_attr(int dir_fd, const char *name, const char *attr, char *buf, size_t size) {
	char path[512];
	int n = snprintf(path, sizeof(path), "%s/%s", name, attr);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		return false;
	}
	int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		return false;
	}
	ssize_t len = read(fd, buf, size - 1);
	close(fd);
	if (len <= 0) {
		return false;
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

bool veil_power_read(const char *dir) {
	DIR *d = opendir(dir);
	if (d == NULL) {
		return false;
	}
	bool online = false, offline = false;
	struct dirent *entry;
	while ((entry = readdir(d)) != NULL) {
		if (entry->d_name[0] == '.') {
			continue;
		}
		char type[32], scope[32], state[8];
		if (!read_attr(dirfd(d), entry->d_name, "type", type, sizeof(type)) ||
				strcmp(type, "Battery") == 0) {
			continue;
		}
		if (read_attr(dirfd(d), entry->d_name, "scope", scope, sizeof(scope)) &&
				strcmp(scope, "Device") == 0) {
			continue;
		}
		if (!read_attr(dirfd(d), entry->d_name, "online", state, sizeof(state))) {
			continue;
		}
		if (strcmp(state, "0") == 0) {
			offline = true;
		} else {
			online = true;
		}
	}
	closedir(d);
	return offline && !online;
}

static void read_run(struct veil_job *job) {
	struct power_read *read = wl_container_of(job, read, job);
	read->on_battery = veil_power_read(read->dir);
}

static void read_free(struct power_read *read) {
	free(read->dir);
	free(read);
}

static void read_discard(struct veil_job *job) {
	struct power_read *read = wl_container_of(job, read, job);
	read_free(read);
}

static void set_state(struct veil_power *power, bool on_battery) {
	if (on_battery == power->on_battery) {
		return;
	}
	power->on_battery = on_battery;
	wlr_log(WLR_INFO, "veil: the machine runs on %s", on_battery ? "battery" : "mains power");
	power->changed(power->data);
}

static void read_done(struct veil_job *job) {
	struct power_read *read = wl_container_of(job, read, job);
	struct veil_power *power = read->power;
	bool on_battery = read->on_battery;
	read_free(read);
	power->read = NULL;
	if (power->watching && !power->told) {
		wl_event_source_timer_update(power->timer, power->poll_ms);
	}
	set_state(power, on_battery);
}

static const struct veil_job_impl read_impl = {
	.run = read_run,
	.done = read_done,
	.discard = read_discard,
};

static void submit_read(struct veil_power *power) {
	if (power->read != NULL) {
		return;
	}
	struct power_read *read = calloc(1, sizeof(*read));
	if (read == NULL || (read->dir = strdup(power->dir)) == NULL) {
		free(read);
		wlr_log(WLR_ERROR, "veil: out of memory: the power supply is not read");
		return;
	}
	read->power = power;
	power->read = read;
	veil_worker_submit(power->worker, &read->job, &read_impl);
}

static void cancel_read(struct veil_power *power) {
	if (power->read == NULL) {
		return;
	}
	power->read->power = NULL;
	veil_job_cancel(&power->read->job);
	power->read = NULL;
}

static int handle_timer(void *data) {
	struct veil_power *power = data;
	if (power->watching && !power->told) {
		submit_read(power);
	}
	return 0;
}

struct veil_power *veil_power_create(struct wl_event_loop *loop, struct veil_worker *worker,
		const char *dir, int poll_ms, void (*changed)(void *data), void *data) {
	struct veil_power *power = calloc(1, sizeof(*power));
	if (power == NULL) {
		return NULL;
	}
	power->loop = loop;
	power->worker = worker;
	power->changed = changed;
	power->data = data;
	power->dir = strdup(dir != NULL && dir[0] != '\0' ? dir : DEFAULT_DIR);
	power->poll_ms = poll_ms >= 10 && poll_ms <= DEFAULT_POLL_MS ? poll_ms : DEFAULT_POLL_MS;
	power->timer = wl_event_loop_add_timer(loop, handle_timer, power);
	if (power->dir == NULL || power->timer == NULL) {
		veil_power_destroy(power);
		return NULL;
	}
	return power;
}

void veil_power_destroy(struct veil_power *power) {
	if (power == NULL) {
		return;
	}
	cancel_read(power);
	if (power->timer != NULL) {
		wl_event_source_remove(power->timer);
	}
	free(power->dir);
	free(power);
}

void veil_power_watch(struct veil_power *power, bool watch) {
	if (watch == power->watching) {
		return;
	}
	power->watching = watch;
	if (power->told) {
		return;
	}
	if (watch) {
		submit_read(power);
	} else {
		/* A read on its way still lands: it is the newest news. */
		wl_event_source_timer_update(power->timer, 0);
	}
}

void veil_power_set_on_battery(struct veil_power *power, bool on_battery) {
	if (!power->told) {
		power->told = true;
		cancel_read(power);
		wl_event_source_timer_update(power->timer, 0);
	}
	set_state(power, on_battery);
}

bool veil_power_on_battery(const struct veil_power *power) {
	return power->on_battery;
}
