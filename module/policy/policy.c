/*
 * Policies per output name or "*", resolved as settings are: an output's own, else "*"'s.
 * `output * veil fps ...` replaces the outputs' own caps, as `output * veil transition` does.
 *
 * A source is shared by every output that shows it, and decodes once: its cap is the highest
 * its outputs ask (none when one of them asks none), and it is held (paused by the policy) only
 * when every output that shows it says pause on battery.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <wlr/types/wlr_output.h>
#include <veil/veil.h>
#include "module/words/command.h"
#include "module/policy/policy.h"
#include "module/policy/power.h"
#include "module/core/per_output.h"
#include "module/core/scene.h"

/* The words of a name's policy (veil_per_output.given). */
enum {
	POLICY_FPS = 1 << 0,
	POLICY_BATTERY = 1 << 1,
};

struct veil_policy {
	struct veil_per_output base; /* first; in veil_scene.policies */
	int fps; /* 0: no cap */
	enum veil_battery_action battery;
	int battery_fps;
};
static_assert(offsetof(struct veil_policy, base) == 0, "the entry comes first");

/* The policy whose word applies to the output named name, or NULL. */
static struct veil_policy *resolve(struct veil_scene *scene, const char *name, unsigned word) {
	struct veil_per_output *entry = veil_per_output_resolve(&scene->policies, name, word);
	return entry != NULL ? wl_container_of(entry, (struct veil_policy *)NULL, base) : NULL;
}

static void handle_power_changed(void *data) {
	struct veil_scene *scene = data;
	/* The policies apply first, as the scene's first listener. */
	veil_scene_changed(scene);
}

static void handle_scene_changed(struct wl_listener *listener, void *data) {
	struct veil_scene *scene = wl_container_of(listener, scene, policy_changed);
	veil_policy_apply(scene);
}

bool veil_policy_init(struct veil_scene *scene, const struct veil_scene_options *options) {
	wl_list_init(&scene->policies);
	/* The first listener of the signal (veil.c inits it just before): it runs before the rest. */
	scene->policy_changed.notify = handle_scene_changed;
	wl_signal_add(&scene->events.changed, &scene->policy_changed);
	scene->power = veil_power_create(scene->ctx.loop, scene->ctx.worker,
		options->power_supply_dir, options->power_poll_ms, handle_power_changed, scene);
	return scene->power != NULL;
}

void veil_policy_finish(struct veil_scene *scene) {
	wl_list_remove(&scene->policy_changed.link);
	wl_list_init(&scene->policy_changed.link);
	veil_power_destroy(scene->power);
	scene->power = NULL;
	veil_per_output_finish(&scene->policies);
}

int veil_policy_set(struct veil_scene *scene, const char *name, const struct veil_command *cmd) {
	bool fps = cmd->kind == VEIL_COMMAND_FPS;
	struct veil_per_output *entry = veil_per_output_set(&scene->policies, name,
		fps ? POLICY_FPS : POLICY_BATTERY, sizeof(struct veil_policy));
	if (entry == NULL) {
		return -ENOMEM;
	}
	struct veil_policy *policy = wl_container_of(entry, policy, base);
	if (fps) {
		policy->fps = cmd->fps;
	} else {
		policy->battery = cmd->battery;
		policy->battery_fps = cmd->battery_fps;
	}
	veil_policy_apply(scene);
	return 0;
}

/* What one output asks of the video it shows. */
struct wish {
	int fps; /* 0: no cap */
	bool hold;
};

static struct wish output_wish(struct veil_scene *scene, struct veil_output *output) {
	const char *name = output->output->name;
	struct veil_policy *cap = resolve(scene, name, POLICY_FPS);
	struct wish wish = { .fps = cap != NULL ? cap->fps : 0 };
	if (!veil_power_on_battery(scene->power)) {
		return wish;
	}
	struct veil_policy *battery = resolve(scene, name, POLICY_BATTERY);
	if (battery == NULL) {
		return wish;
	}
	if (battery->battery == VEIL_BATTERY_PAUSE) {
		wish.hold = true;
	} else if (battery->battery == VEIL_BATTERY_FPS &&
			(wish.fps == 0 || battery->battery_fps < wish.fps)) {
		wish.fps = battery->battery_fps;
	}
	return wish;
}

static bool shows(const struct veil_output *output, const struct veil_source *source) {
	return output->source == source ||
		(output->pending != NULL && output->pending->source == source);
}

/* Whether some output says what to do on battery other than play: then it is worth reading. */
static bool battery_matters(struct veil_scene *scene) {
	struct veil_policy *policy;
	wl_list_for_each(policy, &scene->policies, base.link) {
		if ((policy->base.given & POLICY_BATTERY) && policy->battery != VEIL_BATTERY_PLAY) {
			return true;
		}
	}
	return false;
}

void veil_policy_apply(struct veil_scene *scene) {
	if (scene->power == NULL) {
		return;
	}
	bool videos = false;
	struct veil_source *source;
	wl_list_for_each(source, &scene->ctx.sources, link) {
		if (source->impl->kind != VEIL_SOURCE_VIDEO) {
			continue;
		}
		int n = 0, fps = 0;
		bool uncapped = false, hold = true;
		struct veil_output *output;
		wl_list_for_each(output, &scene->outputs, link) {
			if (!shows(output, source)) {
				continue;
			}
			struct wish wish = output_wish(scene, output);
			n++;
			uncapped = uncapped || wish.fps == 0;
			fps = wish.fps > fps ? wish.fps : fps;
			hold = hold && wish.hold;
		}
		videos = videos || n > 0;
		veil_source_set_fps(source, uncapped ? 0 : fps);
		veil_source_set_held(source, n > 0 && hold);
	}
	/* No video shown, or no word about batteries: nothing is read, nothing wakes. */
	veil_power_watch(scene->power, videos && battery_matters(scene));
}

void veil_scene_set_on_battery(struct veil_scene *scene, bool on_battery) {
	veil_scene_assert_thread(scene);
	if (scene == NULL || scene->power == NULL) {
		return;
	}
	veil_power_set_on_battery(scene->power, on_battery);
}

struct json_object *veil_policy_state(struct veil_scene *scene) {
	static const char *const actions[] = {
		[VEIL_BATTERY_PLAY] = "play",
		[VEIL_BATTERY_PAUSE] = "pause",
		[VEIL_BATTERY_FPS] = "fps",
	};
	struct json_object *all = json_object_new_object();
	struct veil_policy *policy;
	wl_list_for_each_reverse(policy, &scene->policies, base.link) {
		struct json_object *obj = json_object_new_object();
		if (policy->base.given & POLICY_FPS) {
			json_object_object_add(obj, "fps", json_object_new_int(policy->fps));
		}
		if (policy->base.given & POLICY_BATTERY) {
			json_object_object_add(obj, "battery",
				json_object_new_string(actions[policy->battery]));
			if (policy->battery == VEIL_BATTERY_FPS) {
				json_object_object_add(obj, "battery_fps",
					json_object_new_int(policy->battery_fps));
			}
		}
		json_object_object_add(all, policy->base.name, obj);
	}
	return all;
}
