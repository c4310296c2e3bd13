#include <stdlib.h>
#include <veil/veil.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/multi.h>
#include <wlr/backend/wayland.h>
#include <wlr/config.h>
#include <wlr/render/allocator.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_ext_image_capture_source_v1.h>
#include <wlr/types/wlr_ext_image_copy_capture_v1.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_security_context_v1.h>
#include <wlr/types/wlr_screencopy_v1.h>
#include <wlr/types/wlr_subcompositor.h>
#include <wlr/types/wlr_viewporter.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#if WLR_HAS_X11_BACKEND
#include <wlr/backend/x11.h>
#endif
#if WLR_HAS_GLES2_RENDERER
#include <wlr/render/gles2.h>
#endif
#if WLR_HAS_VULKAN_RENDERER
#include <wlr/render/vulkan.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compat.h"
#include "tinywl.h"
#if TINYWL_HAVE_IMPORT_RENDERER
#include <gst/gst.h>
#include "tests/renderer/import_renderer.h"
#include "tests/renderer/memfd_allocator.h"
#endif

/* Outputs made by create_output get the size of those that WLR_HEADLESS_OUTPUTS makes. */
#define CREATED_OUTPUT_WIDTH 1280
#define CREATED_OUTPUT_HEIGHT 720

/* Makes dir and its parents that are missing, 0700 as the XDG base directories want. */
static bool make_dirs(char *dir) {
	for (char *p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0') {
			continue;
		}
		char c = *p;
		*p = '\0';
		bool ok = mkdir(dir, 0700) == 0 || errno == EEXIST;
		*p = c;
		if (!ok || c == '\0') {
			return ok;
		}
	}
}

/*
 * What the user sets at run time is kept in $XDG_STATE_HOME/veil/veil-tinywl.json (the default
 * $HOME/.local/state), for `output <name> veil restore` at the next start.
 */
static void keep_state(struct veil_scene *veil) {
	const char *state_home = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char dir[4096];
	int n;
	if (state_home != NULL && state_home[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/veil", state_home);
	} else if (home != NULL && home[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/.local/state/veil", home);
	} else {
		wlr_log(WLR_ERROR, "neither XDG_STATE_HOME nor HOME is set: wallpapers set at run "
			"time are not kept");
		return;
	}
	if (n < 0 || (size_t)n + sizeof("/veil-tinywl.json") > sizeof(dir)) {
		wlr_log(WLR_ERROR, "the state directory's name is too long: wallpapers set at run "
			"time are not kept");
		return;
	}
	if (!make_dirs(dir)) {
		wlr_log(WLR_ERROR, "cannot make %s: %s: wallpapers set at run time are not kept",
			dir, strerror(errno));
		return;
	}
	strcat(dir, "/veil-tinywl.json");
	veil_scene_set_state_path(veil, dir);
}

/* Hides privileged globals (veil's control) from the clients their filters refuse. */
static bool filter_global(const struct wl_client *client, const struct wl_global *global,
		void *data) {
	struct tw_server *server = data;
	return veil_scene_filter_global(server->veil, client, global);
}

/* The protocols clients of a wallpaper test bed need: shm and dmabuf buffers, screenshots. */
static bool create_globals(struct tw_server *server) {
	struct wl_display *display = server->display;

	if (!wlr_renderer_init_wl_shm(server->renderer, display)) {
		return false;
	}
	/*
	 * GPU renderers import client dmabufs (e.g. from GStreamer's waylandsink); pixman can't.
	 * linux-dmabuf names the renderer's DRM device: the importing test renderer has none.
	 */
	if (wlr_renderer_get_drm_fd(server->renderer) >= 0 &&
			wlr_renderer_get_texture_formats(server->renderer, WLR_BUFFER_CAP_DMABUF) != NULL) {
		server->linux_dmabuf = wlr_linux_dmabuf_v1_create_with_renderer(display, 4,
			server->renderer);
		if (server->linux_dmabuf == NULL) {
			return false;
		}
		wlr_scene_set_linux_dmabuf_v1(server->scene, server->linux_dmabuf);
	}

	server->compositor = wlr_compositor_create(display, 6, server->renderer);
	return server->compositor != NULL &&
		wlr_subcompositor_create(display) != NULL &&
		wlr_data_device_manager_create(display) != NULL &&
		wlr_viewporter_create(display) != NULL &&
		wlr_presentation_create(display, server->backend, 2) != NULL &&
		wlr_xdg_output_manager_v1_create(display, server->output_layout) != NULL &&
		wlr_screencopy_manager_v1_create(display) != NULL &&
		wlr_ext_image_copy_capture_manager_v1_create(display,
			COMPAT_EXT_IMAGE_COPY_CAPTURE_VERSION) != NULL &&
		wlr_ext_output_image_capture_source_manager_v1_create(display,
			COMPAT_EXT_OUTPUT_IMAGE_CAPTURE_SOURCE_VERSION) != NULL &&
		(server->security_context = wlr_security_context_manager_v1_create(display)) != NULL;
}

bool server_has_import_renderer(void) {
	return TINYWL_HAVE_IMPORT_RENDERER;
}

static const char *renderer_kind_name(enum tw_renderer_kind kind) {
	switch (kind) {
	case TW_RENDERER_PIXMAN:
		return "pixman";
	case TW_RENDERER_IMPORT:
		return "import";
	default:
		return "autocreate";
	}
}

#if TINYWL_HAVE_IMPORT_RENDERER
/*
 * veil makes dmabufs of system-memory frames in a pool of dmabuf memory: the allocator registered
 * as VEIL_DMABUF_ALLOCATOR, else /dev/udmabuf's. Ours gives memfds, which only the importing
 * renderer can read (a real GPU would need udmabuf's), so it is registered only once that
 * renderer is in use. GStreamer keeps it until the process ends.
 */
static void register_dmabuf_pool(void) {
	static bool registered = false;
	if (registered) {
		return;
	}
	gst_init(NULL, NULL);
	registered = memfd_dmabuf_allocator_register(VEIL_DMABUF_ALLOCATOR);
	wlr_log(registered ? WLR_INFO : WLR_ERROR, "%s the memfd dmabuf allocator as %s",
		registered ? "registered" : "cannot register", VEIL_DMABUF_ALLOCATOR);
}
#endif

static struct wlr_renderer *create_renderer(struct tw_server *server,
		enum tw_renderer_kind kind) {
	switch (kind) {
	case TW_RENDERER_PIXMAN:
		return wlr_pixman_renderer_create();
	case TW_RENDERER_IMPORT:
#if TINYWL_HAVE_IMPORT_RENDERER
		register_dmabuf_pool();
		return import_renderer_create();
#else
		wlr_log(WLR_ERROR, "the importing renderer is built with the tests only");
		return NULL;
#endif
	default:
		return wlr_renderer_autocreate(server->backend);
	}
}

/* Which renderer wlroots made, and on which DRM node: the GPU owner's bench reads it. */
static void log_renderer(struct tw_server *server) {
	struct wlr_renderer *renderer = server->renderer;
	const char *name = "other";
	if (server->renderer_kind == TW_RENDERER_IMPORT) {
		name = "import";
	} else if (wlr_renderer_is_pixman(renderer)) {
		name = "pixman";
	}
#if WLR_HAS_GLES2_RENDERER
	else if (wlr_renderer_is_gles2(renderer)) {
		name = "gles2";
	}
#endif
#if WLR_HAS_VULKAN_RENDERER
	else if (wlr_renderer_is_vk(renderer)) {
		name = "vulkan";
	}
#endif
	char node[256] = "none";
	int fd = wlr_renderer_get_drm_fd(renderer);
	if (fd >= 0) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t len = readlink(link, node, sizeof(node) - 1);
		node[len > 0 ? len : 0] = '\0';
	}
	wlr_log(WLR_INFO, "renderer: %s, DRM node %s", name, node[0] != '\0' ? node : "unknown");
}

bool server_init(struct tw_server *server) {
	wl_list_init(&server->outputs);
	wl_list_init(&server->toplevels);
	wl_list_init(&server->workspaces);

	server->display = wl_display_create();
	if (server->display == NULL) {
		wlr_log(WLR_ERROR, "cannot create the Wayland display");
		return false;
	}
	server->loop = wl_display_get_event_loop(server->display);

	/* Nested on Wayland or X11, on DRM, or headless: WLR_BACKENDS decides. */
	server->backend = wlr_backend_autocreate(server->loop, NULL);
	if (server->backend == NULL) {
		wlr_log(WLR_ERROR, "cannot create a backend");
		return false;
	}
	server->renderer = create_renderer(server, server->renderer_kind);
	if (server->renderer == NULL) {
		wlr_log(WLR_ERROR, "cannot create a renderer (%s)",
			renderer_kind_name(server->renderer_kind));
		return false;
	}
	if (server->renderer_kind == TW_RENDERER_IMPORT) {
		/*
		 * The headless backend would take a buffer covering its output as it is (direct
		 * scan-out), and veil's frames would never be imported. wlr_scene reads this when
		 * it is created; both 0.19 and 0.20 know it.
		 */
		setenv("WLR_SCENE_DISABLE_DIRECT_SCANOUT", "1", true);
	}
	log_renderer(server);
	server->allocator = wlr_allocator_autocreate(server->backend, server->renderer);
	if (server->allocator == NULL) {
		wlr_log(WLR_ERROR, "cannot create an allocator");
		return false;
	}

	server->output_layout = wlr_output_layout_create(server->display);
	server->scene = wlr_scene_create();
	if (server->output_layout == NULL || server->scene == NULL) {
		wlr_log(WLR_ERROR, "cannot create the scene");
		return false;
	}
	server->scene_layout = wlr_scene_attach_output_layout(server->scene, server->output_layout);
	server->background_layer = wlr_scene_tree_create(&server->scene->tree);
	server->window_layer = wlr_scene_tree_create(&server->scene->tree);
	server->fullscreen_layer = wlr_scene_tree_create(&server->scene->tree);
	if (server->scene_layout == NULL || server->background_layer == NULL ||
			server->window_layer == NULL || server->fullscreen_layer == NULL) {
		wlr_log(WLR_ERROR, "cannot create the scene");
		return false;
	}

	if (!create_globals(server)) {
		wlr_log(WLR_ERROR, "cannot create the Wayland globals");
		return false;
	}

	server->xdg_shell = wlr_xdg_shell_create(server->display, COMPAT_XDG_SHELL_VERSION);
	if (server->xdg_shell == NULL) {
		wlr_log(WLR_ERROR, "cannot create xdg-shell");
		return false;
	}
	server->new_xdg_toplevel.notify = toplevel_handle_new;
	wl_signal_add(&server->xdg_shell->events.new_toplevel, &server->new_xdg_toplevel);
	server->new_xdg_popup.notify = popup_handle_new;
	wl_signal_add(&server->xdg_shell->events.new_popup, &server->new_xdg_popup);

	if (!input_init(server)) {
		return false;
	}

	/* Before the backend starts, so that the outputs it has from the start get wallpapers. */
	server->veil = veil_scene_create_with_options(server->display, server->renderer,
		&server->veil_options);
	if (server->veil == NULL) {
		wlr_log(WLR_ERROR, "cannot create the veil scene");
		return false;
	}
	keep_state(server->veil);
#if TINYWL_HAVE_FAKE_CLOCK
	fake_clock_attach(server);
#endif
	/* veilctl's protocol, for this user's unsandboxed clients (veil's default filter). */
	/* `span`: one wallpaper across the outputs of this layout. */
	veil_scene_set_output_layout(server->veil, server->output_layout);
	if (!veil_scene_create_control(server->veil, NULL, server->security_context)) {
		wlr_log(WLR_ERROR, "cannot create veil's control global");
		return false;
	}
	wl_display_set_global_filter(server->display, filter_global, server);

	server->new_output.notify = output_handle_new;
	wl_signal_add(&server->backend->events.new_output, &server->new_output);
	server->layout_change.notify = output_handle_layout_change;
	wl_signal_add(&server->output_layout->events.change, &server->layout_change);
	server->outputs_ready = true;
	return true;
}

void server_finish(struct tw_server *server) {
	if (server->display == NULL) {
		return;
	}
	wl_display_destroy_clients(server->display);

	/* veil holds renderer resources: it goes while the renderer is still there. */
	veil_scene_destroy(server->veil);
	server->veil = NULL;

	/* wlroots asserts that nobody listens any more when its objects go. */
	if (server->outputs_ready) {
		wl_list_remove(&server->new_output.link);
		wl_list_remove(&server->layout_change.link);
	}
	if (server->xdg_shell != NULL) {
		wl_list_remove(&server->new_xdg_toplevel.link);
		wl_list_remove(&server->new_xdg_popup.link);
	}
	input_finish(server);

	/* Destroys the outputs (and their background trees) and the input devices. */
	if (server->backend != NULL) {
		wlr_backend_destroy(server->backend);
	}
	input_destroy_cursor(server);
	if (server->scene != NULL) {
		wlr_scene_node_destroy(&server->scene->tree.node);
	}
	/* Their trees went with the scene. */
	workspaces_finish(server);
	if (server->allocator != NULL) {
		wlr_allocator_destroy(server->allocator);
	}
	if (server->renderer != NULL) {
		wlr_renderer_destroy(server->renderer);
	}
	wl_display_destroy(server->display);
	server->display = NULL;
}

void server_terminate(struct tw_server *server) {
	/* Remembered, because wl_display_run() forgets a terminate that came before it. */
	server->terminating = true;
	wl_display_terminate(server->display);
}

static void add_output(struct wlr_backend *backend, void *data) {
	struct wlr_output **output = data;
	if (*output != NULL) {
		return;
	}
	if (wlr_backend_is_headless(backend)) {
		*output = wlr_headless_add_output(backend, CREATED_OUTPUT_WIDTH, CREATED_OUTPUT_HEIGHT);
	}
}

static void add_nested_output(struct wlr_backend *backend, void *data) {
	struct wlr_output **output = data;
	if (*output != NULL) {
		return;
	}
	if (wlr_backend_is_wl(backend)) {
		*output = wlr_wl_output_create(backend);
	}
#if WLR_HAS_X11_BACKEND
	else if (wlr_backend_is_x11(backend)) {
		*output = wlr_x11_output_create(backend);
	}
#endif
}

bool server_create_output(struct tw_server *server) {
	/* autocreate makes a multi backend; headless children are preferred over windows. */
	struct wlr_output *output = NULL;
	if (wlr_backend_is_multi(server->backend)) {
		wlr_multi_for_each_backend(server->backend, add_output, &output);
		wlr_multi_for_each_backend(server->backend, add_nested_output, &output);
	} else {
		add_output(server->backend, &output);
		add_nested_output(server->backend, &output);
	}
	return output != NULL;
}

bool server_swap_renderer(struct tw_server *server) {
	enum tw_renderer_kind kind = server->renderer_kind == TW_RENDERER_IMPORT ||
		!TINYWL_HAVE_IMPORT_RENDERER ? TW_RENDERER_PIXMAN : TW_RENDERER_IMPORT;
	struct wlr_renderer *renderer = create_renderer(server, kind);
	if (renderer == NULL) {
		wlr_log(WLR_ERROR, "renderer swap: cannot create a %s renderer",
			renderer_kind_name(kind));
		return false;
	}
	struct wlr_allocator *allocator = wlr_allocator_autocreate(server->backend, renderer);
	if (allocator == NULL) {
		wlr_log(WLR_ERROR, "renderer swap: cannot create an allocator");
		wlr_renderer_destroy(renderer);
		return false;
	}

	/* As sway after a GPU reset: new objects in, every user told, then the old ones out. */
	struct wlr_renderer *old_renderer = server->renderer;
	struct wlr_allocator *old_allocator = server->allocator;
	enum tw_renderer_kind old_kind = server->renderer_kind;
	server->renderer = renderer;
	server->allocator = allocator;
	server->renderer_kind = kind;

	wlr_compositor_set_renderer(server->compositor, renderer);
	int n_outputs = 0;
	struct tw_output *output;
	wl_list_for_each(output, &server->outputs, link) {
		if (!wlr_output_init_render(output->wlr_output, allocator, renderer)) {
			wlr_log(WLR_ERROR, "%s: cannot render with the new renderer",
				output->wlr_output->name);
		}
		/* New swapchain: nothing is drawn until the next frame. */
		wlr_output_schedule_frame(output->wlr_output);
		n_outputs++;
	}
	veil_scene_set_renderer(server->veil, renderer);

	wlr_allocator_destroy(old_allocator);
	wlr_renderer_destroy(old_renderer);
	wlr_log(WLR_INFO, "renderer swap: %s -> %s; %d outputs re-initialised, veil told, "
		"old renderer and allocator destroyed", renderer_kind_name(old_kind),
		renderer_kind_name(kind), n_outputs);
	return true;
}
