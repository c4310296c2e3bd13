/*
 * veil: wallpapers drawn inside a wlroots compositor.
 *
 * A compositor creates one veil_scene, hands it every output together with the scene tree that
 * is that output's background layer, and forwards the words of `output <name> veil ...` commands.
 * veil places one subtree per output in that parent and keeps it filled with the wallpaper's
 * frames. Every function here is for the compositor's thread and returns without decoding
 * anything: files are decoded on veil's own threads, below the compositor's priority, and a
 * new wallpaper replaces the old one once its first frame is ready.
 *
 * Two things veil does act on the whole compositor process, on one of veil's threads, each time
 * a video's pipeline is torn down: malloc_trim(0) (glibc), because decoder threads free their
 * frames into arenas of their own and glibc kept 75-103 MiB of heap after videos played in a
 * 500-switch soak (which passes with default arenas once the pages are given back); and
 * g_thread_pool_stop_unused_threads(), because GLib's shared pool keeps idle threads 15 s.
 */
#ifndef VEIL_VEIL_H
#define VEIL_VEIL_H

#include <stdbool.h>
#include <stddef.h>

#include <veil/version.h>
#include <wlr/version.h>

/*
 * veil's functions take wlroots' types (outputs, scene trees, the renderer), whose layout
 * changes with each wlroots minor version: a compositor built against another wlroots than the
 * libveil it links would pass structures veil reads wrongly. `pkg-config --variable=wlroots veil`
 * names the one this libveil was built for; veil_scene_create() also refuses, at run time, a
 * process whose wlroots is another one.
 */
#if WLR_VERSION_MAJOR != VEIL_WLR_VERSION_MAJOR || WLR_VERSION_MINOR != VEIL_WLR_VERSION_MINOR
#error "this veil was built for another wlroots version than <wlr/version.h>'s: build the compositor against the wlroots `pkg-config --variable=wlroots veil` names, or rebuild veil against this one"
#endif

struct wl_display;
struct wlr_output;
struct wlr_output_layout;
struct wlr_renderer;
struct wlr_scene_tree;

struct veil_scene;

/*
 * Where a decoder writes system-memory frames for a renderer that imports dmabufs (software
 * decoders, then, hand the GPU their NV12 as it is): the GstAllocator registered under this name
 * (gst_allocator_register()) before veil_scene_create(), when the compositor has one of its own
 * (GBM-backed, say), else GStreamer's /dev/udmabuf allocator. Without either such frames are
 * converted to XRGB8888 and go to the renderer as data pointers.
 */
#define VEIL_DMABUF_ALLOCATOR "veil-dmabuf-pool"

/*
 * Creates the wallpaper state of a compositor. The event loop is the display's; the renderer
 * decides which frame formats veil produces (data pointers for pixman, dmabufs for a GPU).
 * Returns NULL, with a line in wlroots' log, when the wlroots the process runs is not the one
 * veil was built for (VEIL_WLR_VERSION_MINOR).
 * veil_scene_destroy() must be called before the renderer is destroyed; when the display is
 * destroyed first, veil releases what it holds and leaves an empty handle to destroy. The thread
 * that creates the scene is the compositor's: every other function here must be called on it.
 * Same as veil_scene_create_with_options() with NULL options.
 */
struct veil_scene *veil_scene_create(struct wl_display *display, struct wlr_renderer *renderer);

/* Where veil decodes wallpapers (veil_scene_options.decoding). */
enum veil_decoding {
	/*
	 * In veil-decoder, a sandboxed helper process, except videos on a renderer that imports
	 * dmabufs while GStreamer has a hardware video decoder (it needs the GPU's render node).
	 */
	VEIL_DECODING_DEFAULT = 0,
	/* Everything in veil-decoder, videos too. */
	VEIL_DECODING_ISOLATED,
	/* Everything in the compositor's process: a crash in a decoder ends the session. */
	VEIL_DECODING_IN_PROCESS,
};

/*
 * What a compositor may choose when it creates the scene; zero-initialise it, set size, and
 * leave what it has no opinion on at 0. Read once, by veil_scene_create_with_options().
 *
 * The environment overrides these, read once there too (for a user trying something without
 * rebuilding the compositor): VEIL_DECODER=process|inprocess, VEIL_DECODER_VIDEO=process|
 * inprocess (videos alone), VEIL_DECODER_HELPER=PATH (ignored in set-uid processes).
 */
struct veil_scene_options {
	/* sizeof(struct veil_scene_options) where the compositor was compiled: fields past it are 0 */
	size_t size;
	enum veil_decoding decoding;
	/*
	 * The veil-decoder to run. NULL: the one of libveil's own build tree while libveil runs
	 * from it (uninstalled), else the one installed beside it (libexecdir). Where none can be
	 * started, veil decodes in the compositor's process and says why in the log and the status.
	 */
	const char *decoder_path;
	/* How long one decode in veil-decoder may take, in milliseconds; 0: 30 s. */
	int decoder_timeout_ms;
	/*
	 * Where veil reads whether the machine runs on battery, laid out as sysfs's
	 * power_supply class (NULL: /sys/class/power_supply), and how often while it matters
	 * (0: once a minute; at least 10 ms). Unused once veil_scene_set_on_battery() is called.
	 */
	const char *power_supply_dir;
	int power_poll_ms;
	/*
	 * How many pictures of workspaces an output does not show veil keeps decoded for it, so
	 * that a switch shows the new one at once: those of the workspaces next to the shown one
	 * first, then of the latest shown. 0: 3; negative: none (a switch to a workspace whose
	 * picture is not decoded keeps the old picture until the new one is ready).
	 */
	int workspace_pictures;
};

struct veil_scene *veil_scene_create_with_options(struct wl_display *display,
	struct wlr_renderer *renderer, const struct veil_scene_options *options);
/* Tears down every output's nodes and every decoder. NULL is allowed. */
void veil_scene_destroy(struct veil_scene *scene);

/*
 * The compositor replaced its renderer (after a GPU reset, wlr_renderer's "lost" event, as sway's
 * and labwc's handle_renderer_lost() do). veil rebuilds what depends on it: the frame formats it
 * asks decoders for (a video is restarted where it was, its picture kept on screen meanwhile).
 * Call it with the new renderer before the old one is destroyed.
 */
void veil_scene_set_renderer(struct veil_scene *scene, struct wlr_renderer *renderer);

/*
 * Shows wallpapers on an output. parent is the tree veil draws into; its origin must be the
 * output's top-left corner in layout coordinates (veil draws in the output's logical size).
 * Calling it again for the same output moves veil's nodes to the new parent. veil follows the
 * output's mode, scale and transform by itself and forgets the output when it is destroyed.
 */
bool veil_scene_add_output(struct veil_scene *scene, struct wlr_output *output,
	struct wlr_scene_tree *parent);
/* Removes veil's nodes from an output. Unknown outputs are ignored. */
void veil_scene_remove_output(struct veil_scene *scene, struct wlr_output *output);

/*
 * Gives veil the compositor's output layout, which `span` needs: the outputs that use a
 * spanning setting form one canvas, the bounding box of their boxes in this layout, and each
 * shows its part of one picture. veil listens to the layout's change and destroy signals: an
 * output added, moved, resized or removed moves the canvas. The layout's coordinates must be
 * those of the parents given to veil_scene_add_output(). NULL forgets it (spanning settings then
 * show on each output alone); without a layout, `span` fails with a message.
 */
void veil_scene_set_output_layout(struct veil_scene *scene, struct wlr_output_layout *layout);

/*
 * Runs the words that followed `output <name>` in a command, argv[0] being "veil":
 *   veil <file> [stretch|fill|fit|center|tile] [#rrggbb] [span] [transition ...]
 *        [loopfade <ms>]
 *   veil <directory> [mode] [#rrggbb] [every <n>s|m|h] [order name|mtime|shuffle] [recursive]
 *        [transition ...]
 *   veil <#rrggbb> solid_color [transition ...]
 *   veil <file> [mode] [#rrggbb] dark <file> [span] [transition ...] [loopfade <ms>]
 *   veil scheme light|dark
 *   veil transition <fade|wipe|grow|slide|random|none> [<ms>] [from <left|right|top|bottom>]
 *        [at <x> <y>] [ease linear|in|out|in-out|ease|cubic-bezier(x1,y1,x2,y2)]
 *   veil next | previous
 *   veil off | pause | resume
 *   veil fps <1-240>|off
 *   veil battery play|pause|fps <1-240>
 * output_name is an output's name or "*" (every output without a setting of its own).
 *
 * `span` places one picture across the outputs that use the setting (see
 * veil_scene_set_output_layout()), each showing its part of the same frame from one decode.
 * `fps <N>` caps the frames a second of the videos on these outputs: frames beyond it are
 * neither converted nor shown, and software decoders skip those no other frame needs. A video
 * shown on several outputs plays at the highest cap among them (uncapped if one has none).
 * `battery` says what videos do while the machine runs on battery: play on, pause (the status
 * says "paused": "battery"), or play at most N frames a second. veil reads the power supply
 * from sysfs by itself (see veil_scene_set_on_battery()).
 *
 * `transition fade <ms>` cross-fades from what the output shows to the new wallpaper once its
 * first frame is ready, over <ms> milliseconds (500 when not given, at most 10000), drawn in
 * the scene at the output's refresh rate; a video on either side plays on meanwhile. `wipe`
 * reveals the new wallpaper from an edge (`from`, left when not given), `slide` moves it in
 * from one (right when not given), `grow` shows it in a circle growing from the output's
 * centre or `at <x> <y>` (logical pixels, or percent with %). `loopfade <ms>` fades a video's
 * last frame into its first at each loop. `veil transition ...` alone sets the default for
 * later changes on these outputs ("*" for every output, replacing their own defaults); a change
 * that names no transition uses it, and is instant when there is none. A change during a
 * transition starts from the end of it. An output that is disabled or whose wallpaper is
 * covered skips it. `off` is always instant. A directory is a slideshow of its images and
 * videos, changed every 10 minutes unless `every` says otherwise, with the output's transition;
 * `next` and `previous` move it on or back. The control protocol (veilctl) carries the same
 * words.
 * Returns 0 or a negative errno. On failure, *message (when message is not NULL) is set to a
 * string for a person, to be freed with free(); on success it is set to NULL. A failed command
 * leaves every wallpaper as it was.
 *
 * The command returns once the file is opened and its header read; decoding goes on afterwards
 * and the output keeps its wallpaper until the new one's first frame is ready (the status says
 * "loading" meanwhile). A newer command for the output supersedes one still loading. A failure
 * found while decoding leaves the old wallpaper too, and shows in the status's "error", in the
 * control protocol's error event and in the log.
 */
int veil_scene_command(struct veil_scene *scene, const char *output_name,
	int argc, char *argv[], char **message);

/*
 * ---- Workspaces ----
 *
 * `output <name|*> veil workspace <ws> <file|#rrggbb solid_color> [the words of a setting]`
 * gives a workspace a wallpaper of its own, on the outputs named, and `veil workspace <ws> off`
 * ends it. The most specific setting shows: the output's for the workspace, "*"'s for it, the
 * output's own, "*"'s. A `transition` among its words is how the workspace's picture comes in
 * when the output switches to it (a slide without `from` comes from the right when the new
 * workspace's name sorts after the old one's, as strverscmp() orders them, else from the left);
 * without one the switch is instant.
 *
 * The compositor says which workspace each output shows. veil changes the output's nodes within
 * this call, so that the frame that shows the workspace's windows shows its wallpaper: call it
 * from the code that makes the workspace visible in the scene, before that frame is committed.
 * NULL: the output shows no workspace (its own setting shows). The picture of the new workspace
 * is decoded already when it is near (see veil_scene_options.workspace_pictures); otherwise the
 * output keeps its picture until the new one's first frame is ready.
 */
void veil_scene_output_set_workspace(struct veil_scene *scene, struct wlr_output *output,
	const char *workspace);
/*
 * A workspace was renamed: the settings for old_name are now for new_name (replacing any that
 * new_name had), and outputs that showed old_name show new_name.
 */
void veil_scene_rename_workspace(struct veil_scene *scene, const char *old_name,
	const char *new_name);

/*
 * The file in which veil keeps what each output was told to show, for `output <name> veil
 * restore [FALLBACK...]` after a restart: $XDG_STATE_HOME/veil/<compositor>.json, say, its
 * directory made by the compositor. veil reads it once, on its own thread, when given, and
 * writes it there when a setting changes (at most once a second, atomically: a temporary file,
 * fsync, rename). A file that cannot be read or written is logged and changes nothing else.
 * NULL stops keeping one. Returns false when out of memory.
 */
bool veil_scene_set_state_path(struct veil_scene *scene, const char *path);

/*
 * The compositor tells veil whether the machine runs on battery (it follows UPower, say), for
 * `veil battery ...`. From the first call on, veil stops reading the power supply itself (sysfs
 * power_supply, at most once a minute and only while a video is shown and some output has a
 * battery policy) and trusts these calls alone.
 */
void veil_scene_set_on_battery(struct veil_scene *scene, bool on_battery);

/*
 * The compositor tells veil whether the desktop's colour scheme is dark (it follows the
 * settings portal's color-scheme, say), as `output * veil scheme light|dark` does: outputs whose
 * setting names a second picture (`veil <file> [mode] dark <file>`) move to the scheme's
 * picture with the setting's transition (or the output's default); the others keep theirs. The
 * scheme is the whole scene's; it starts light.
 */
void veil_scene_set_dark(struct veil_scene *scene, bool dark);

/*
 * The compositor tells veil where the machine is (from geoclue, say): latitude in degrees north
 * (-90 to 90), longitude in degrees east (-180 to 180). Apple dynamic wallpapers that follow the
 * sun (`apple_desktop:solar`) use it when their setting has no `location <lat> <lon>`; without
 * either they play their time-of-day table or their light and dark pictures. Values out of range
 * are ignored.
 */
void veil_scene_set_location(struct veil_scene *scene, double latitude, double longitude);

/*
 * Checks the words of a command without running it, for a compositor that validates its
 * configuration before applying it (`sway -C`, the check before a reload): parses them and, for
 * a file, opens it and reads its kind and header. Nothing is decoded and nothing changes. Returns
 * what veil_scene_command() would for the failures it can know at once: 0, or a negative errno
 * with *message set as there. scene may be NULL (a compositor that validates before it has
 * made one).
 */
int veil_scene_check(struct veil_scene *scene, int argc, char *argv[], char **message);

/*
 * The state of one output (output_name) or of all of them (NULL), as a JSON text to be freed
 * with free(): for one output an object, for all an object keyed by output name. NULL when the
 * output is unknown or memory is short.
 */
char *veil_scene_status_json(struct veil_scene *scene, const char *output_name);

/*
 * ---- The control protocol: protocol/veil-control-unstable-v1.xml, used by veilctl ----
 *
 * veil can offer a Wayland global, zveil_control_manager_v1, through which clients set, turn
 * off, pause and inspect wallpapers, so that every compositor linking veil has a command line.
 * Clients pass the media as a file descriptor they opened: veil never opens a path on a
 * client's behalf. A file veil cannot show fails the command with a message; it costs the
 * client nothing else.
 */
struct wl_client;
struct wl_global;

/* Whether client may use the control global: set, pause and read the status of wallpapers. */
typedef bool (*veil_control_filter_func)(const struct wl_client *client, void *data);

/*
 * Creates the control global on the scene's display; veil_scene_destroy() removes it. filter
 * decides which clients may use it, and is asked for every command (status included); NULL
 * selects the default, veil_scene_control_trusted(), which receives data. A refused client's
 * commands fail with "denied". Returns false when the global cannot be created or exists
 * already.
 *
 * libwayland has one global filter per display, which belongs to the compositor: to also hide
 * the global from refused clients, call veil_scene_filter_global() from it.
 */
bool veil_scene_create_control(struct veil_scene *scene, veil_control_filter_func filter,
	void *data);

/*
 * For the compositor's wl_display global filter (wl_display_set_global_filter()): false when
 * global is veil's control global and its filter refuses client, true for any other global
 * (and for a NULL scene).
 */
bool veil_scene_filter_global(struct veil_scene *scene, const struct wl_client *client,
	const struct wl_global *global);

/*
 * The default filter, meant for a desktop session: it trusts a client that runs as the
 * compositor's user and that no wlr_security_context_v1 context confines. data is the
 * compositor's struct wlr_security_context_manager_v1, so that sandboxed clients (Flatpak and
 * other engines that use security contexts) are refused; with NULL, only the user is checked.
 * A compositor's own filter may call it for the clients it has no opinion on.
 */
bool veil_scene_control_trusted(const struct wl_client *client, void *data);

/*
 * ---- xray: the blurred wallpaper behind translucent windows ----
 *
 * `output <name|*> veil xray on|off` (off by default) lets the compositor's xray nodes of those
 * outputs show a blurred copy of the wallpaper, and `output <name|*> veil blur <px>` sets the
 * blur (the Gaussian's standard deviation in logical pixels, as CSS's blur(): 1 to 200, 20 when
 * not given). The compositor puts an xray node under each translucent window (in the window's
 * tree, below its surface) and says which part of the output it covers; the node shows the
 * blurred wallpaper of exactly that part. The blurred copy is of what the output's wallpaper
 * nodes show as placed (mode, colour, span, workspace, dark picture; during a transition the
 * picture it goes to), one per output, shared by all its nodes: it is made on veil's workers at
 * a reduced size, once per picture (a video's or animation's at most 5 a second), and only
 * while some node of that output has a box and xray is on. Moving or resizing a node costs no
 * blur: it shows another part of the same buffer from the next frame on.
 *
 * Creates a node in parent (a tree of veil's holding a wlr_scene_buffer) showing the blurred
 * wallpaper of output; it shows nothing until a box is set, while the output's setting says
 * `xray off`, and until the first blurred copy is ready. output may be NULL (nothing shown until
 * one is set). The node goes with parent when the compositor destroys that tree first; the
 * veil_xray is freed with it, and the pointer must not be used after. Nodes outlive
 * veil_scene_destroy() (they show nothing from then on) until the compositor destroys them.
 * Frames veil cannot read on the CPU (a hardware decoder's dmabufs that cannot be mapped) are
 * left out of the blurred copy. The node takes no pointer input: wlr_scene_node_at() finds what
 * is below it. Returns NULL on failure.
 */
struct veil_xray;
struct wlr_box;
struct wlr_scene_node;
struct veil_xray *veil_xray_create(struct veil_scene *scene, struct wlr_output *output,
	struct wlr_scene_tree *parent);
/*
 * The box the node covers, in the output's logical coordinates. The compositor places the node
 * in its parent (wlr_scene_node_set_position()); the node shows that part of the blurred picture
 * at box->width x box->height. The part outside the output is cut off: the node then shows the
 * part inside, placed where it falls (moved right and down by what was cut on the left and
 * top). A box of zero or negative size, one wholly outside the output, or NULL shows nothing.
 * Takes effect in the frame the compositor commits next: no blur is computed for it.
 */
void veil_xray_set_box(struct veil_xray *xray, const struct wlr_box *box);
/* The window moved to another output (NULL: none; shows nothing). The box is kept. */
void veil_xray_set_output(struct veil_xray *xray, struct wlr_output *output);
/* The node (a wlr_scene_buffer's), for the compositor to place, raise or lower in its parent. */
struct wlr_scene_node *veil_xray_node(struct veil_xray *xray);
/* Destroys the node. NULL is allowed. */
void veil_xray_destroy(struct veil_xray *xray);

#endif
