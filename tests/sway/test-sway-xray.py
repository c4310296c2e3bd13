#!/usr/bin/env python3
"""
The sway series' xray (examples/sway/0007-...): a translucent window shows veil's blurred
wallpaper under it. Built as test-sway.py builds the series (the same work directory: one sway
build for both), run headless (pixman), driven by the real swaymsg, pictures by the real grim,
windows by tests/tools/solid-window (a real xdg-shell client of one known colour).

One output (1280x720) shows a picture of sharp squares at its own size (fill: pixel for pixel).
The reference of the blurred wallpaper is ImageMagick's `-blur 0x<sigma>` of the same picture;
a window of colour C at `opacity 0.5` over a background B shows (C + B) / 2, so the screenshot
in the window's box is compared with that blend of C and the reference's pixels of the box:

1. opacity 1: the window's own pixels, exactly C; xray off (veil's default): opacity 0.5 blends
   C with the plain wallpaper.
2. `output * veil xray on`: the same box blends C with the blurred wallpaper (and differs from
   the plain blend by far more than the tolerance: the check can fail).
3. `move position` and `resize set` by IPC: the blurred patch is at the new box; the old place
   shows the plain wallpaper again. Then twelve moves between two places with every frame of
   the output recorded (tests/tools/frame-record) at a point of each: no frame may show the
   window over the plain wallpaper or the blurred patch without the window (a control with
   xray off shows that frames of the window over the plain wallpaper are seen).
   `border normal 4` at 203,117: the patch covers the title bar and borders too, in place to
   the pixel (the background recovered from screenshots with xray on and off matches the blur
   best at no shift), and the plain wallpaper exactly around the box.
   In the output's top left corner and its bottom right: the blurred blend along the output's
   edges too.
4. A tiled window under the floating one: xray shows the wallpaper, not the tiled window.
5. A new wallpaper (`output * veil <file>`): the patch is the new picture's blur; on a second
   output (right of the first: its coordinates are not the layout's), that output's wallpaper's
   blur, and back on the first when the second is unplugged; the window moved to workspace 2,
   which has a picture of its own: that picture's blur.
6. Back on workspace 1, `output * veil <light> fill dark <dark>`: the patch is the light
   picture's blur; `scheme dark`: the dark picture's; `scheme light`: the light's again.
7. `fullscreen enable`: sway draws a fullscreen view out of its container's tree, opaque, so
   the output is the window's colour edge to edge and the hidden node makes no blur (the
   series' README); `fullscreen disable`: the patch at the window's box again.
8. A tabbed container of an opaque and a translucent tiled window: the translucent tab in
   front shows the blurred wallpaper in exactly its content box (the tab bar is the same with
   xray on and off, the box's first row is already blurred); the opaque tab in front covers
   the box whole (the hidden tab's node waits in sway's disabled border tree); the floating
   window over the opaque tab shows the wallpaper's blur, not the tab. `layout stacking`: the
   same in the content box below two title bars. In both, the background recovered under the
   tab matches ImageMagick's blur best at no shift (the patch is in place to the pixel).
9. A video of six colours, a second each: the status's blur count follows veil's stated rate
   (at most 5 a second, veil(5) XRAY), and in screenshots over 6 s the patch's colour is the
   clip's, within a step of the plain wallpaper beside the window.
10. `xray off`: the plain blend again; `opacity 1`: C again.

veil's status (get_outputs' veil.xray) says the cost: no node while every window is opaque (with
xray on too), no blur while xray is off, one blur for the picture and none for the moves and
the resize, no node once the window is opaque again.
"""
import importlib.util
import os
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
import veiltest as vt  # noqa: E402
from veiltest import bench as bl  # noqa: E402
from veiltest import ws as wslib  # noqa: E402
from veiltest.ipc import GET_VERSION  # noqa: E402
from veiltest.patched import say  # noqa: E402
from veiltest import xray as xr  # noqa: E402
from veiltest.xray import (BLEND, SIGMA, blend, crop, magick_blur, mean_error,  # noqa: E402
                           settled_blurs, squares, wait_box)

# test-sway.py's source, build and link checks (its name has a dash: loaded from its file).
_spec = importlib.util.spec_from_file_location('test_sway', os.path.join(HERE, 'test-sway.py'))
sw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sw)

OUT = 'HEADLESS-1'
W, H = 1280, 720
APP_ID = wslib.APP_ID           # floats, centred, no border (wslib.sway_config)
TILED_ID = 'veil-xray-tiled'    # tiled: fills the output
WINDOW = (0x30, 0x60, 0xd0)
TILED = (0xd0, 0xb0, 0x20)
SIZE = (320, 240)
TAB_ID = 'veil-xray-tab'        # tiled, in a tabbed container
TAB = (0x20, 0xc0, 0x60)
# The video: a second of each colour; the status's blurs counted over RATE_SECONDS against
# veil's stated cap, CAP a second (module/xray/xray.c: 200 ms between copies).
CLIP_COLOURS = [(0xc8, 0x28, 0x28), (0x28, 0xc8, 0x28), (0x28, 0x28, 0xc8),
                (0xc8, 0xc8, 0x28), (0x28, 0xc8, 0xc8), (0xc8, 0x28, 0xc8)]
CAP = 5.0
RATE_SECONDS = 4.0
CLIP_SECONDS = 6.0
BOTTOM = 10                     # the output's last rows, checked apart too


def window_box(c, colour):
    """The box (x, y, w, h) of the pixels of exactly colour on the output, or None."""
    b = wslib.window_box(c.settled_screenshot(OUT), colour)
    if b is None:
        return None
    x0, y0, x1, y1 = b
    return (x0, y0, x1 - x0 + 1, y1 - y0 + 1)


class Probe:
    """
    A client of sway's IPC that asks GET_VERSION every 5 ms in a thread and keeps each round
    trip: the longest is how long sway's thread left a client without an answer.
    """

    def __init__(self, c):
        self.ipc = bl.Ipc(c.swaysock)
        self.trips = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.is_set():
            start = time.monotonic()
            self.ipc.exchange(GET_VERSION)
            self.trips.append(time.monotonic() - start)
            self.done.wait(max(0.0, 0.005 - (time.monotonic() - start)))

    def stop(self):
        self.done.set()
        self.thread.join(timeout=10)
        self.ipc.close()
        trips = sorted(self.trips)
        return trips[-1] if trips else None, trips[int(len(trips) * 0.99)] if trips else None


def tree_node(c, app_id=APP_ID):
    """The window's node in sway's tree (get_tree), or None."""
    def walk(node):
        if node.get('app_id') == app_id:
            return node
        for child in node.get('nodes', []) + node.get('floating_nodes', []):
            found = walk(child)
            if found:
                return found
        return None
    return walk(c.query('get_tree'))


def tree_box(c, app_id=APP_ID):
    """The window's box (x, y, w, h) in sway's tree (its container's rect), or None."""
    node = tree_node(c, app_id)
    r = node and node['rect']
    return r and (r['x'], r['y'], r['width'], r['height'])


def container_box(c, app_id=APP_ID):
    """
    The window's container's whole box (x, y, w, h), its title bar with it: the tree's rect
    begins below a floating window's title bar (deco_rect), or None.
    """
    node = tree_node(c, app_id)
    if node is None:
        return None
    r, dh = node['rect'], (node.get('deco_rect') or {}).get('height', 0)
    return (r['x'], r['y'] - dh, r['width'], r['height'] + dh)


def xray(c):
    """veil's xray status of the output (get_outputs' veil object)."""
    return c.veil(OUT).get('xray') or {}


def other_output(t, c, msg, png, blurred):
    """
    The window on a second output (1920x1080, right of the first): the patch is that output's
    wallpaper's blur at the window's box in its coordinates. The output unplugged: sway moves
    the window to the first output, where its patch is the first's. Returns its box there.
    """
    two = 'HEADLESS-2'
    msg('create_output')
    c.wait_mode(two, 1920, 1080)
    c.wait_veil(two, 'shown', file=png)
    filled = t.path('media', 'squares-2-fill-1920x1080.png')
    vt.write_png(filled, sw.magick_fill(t, png, 1920, 1080))
    blurred_two = magick_blur(t, filled, SIGMA)
    msg(f'[app_id="^{APP_ID}$"] move to output {two}')
    msg(f'[app_id="^{APP_ID}$"] move position 300 200')
    rect = c.outputs()[two]['rect']
    t.check(rect['x'] > 0, f'{two} is right of {OUT}', str(rect))

    def local_box():
        b = tree_box(c)
        return b and (b[0] - rect['x'], b[1] - rect['y'], b[2], b[3])
    box = c.wait_until(lambda: (lambda b: b if b and b[:2] == (300, 200) else None)(
        local_box()), f'the window at 300,200 on {two}')
    wait_box(t, c, box, blend(WINDOW, crop(blurred_two, box)),
             f"on {two}: the patch is {two}'s wallpaper's blur", output=two)
    nodes = (xray(c).get('nodes'), c.veil(two).get('xray', {}).get('nodes'))
    t.check(nodes == (0, 1), f'the node is {two}\'s, not {OUT}\'s', str(nodes))

    msg(f'output {two} unplug')
    c.wait_until(lambda: two not in c.outputs(), f'{two} to go')
    msg(f'[app_id="^{APP_ID}$"] focus')
    msg(f'[app_id="^{APP_ID}$"] move position 100 100')
    box = c.wait_until(lambda: (lambda b: b if b and b[:2] == (100, 100) else None)(
        tree_box(c)), f'the window at 100,100 on {OUT}')
    wait_box(t, c, box, blend(WINDOW, crop(blurred, box)),
             f"{two} gone: the window on {OUT} over {OUT}'s blurred wallpaper")
    t.check(xray(c).get('nodes') == 1, f'the node is {OUT}\'s again', str(xray(c)))
    return box


def drive(t, tools):
    wall_png = t.path('media', 'squares.png')
    wall = squares(wall_png, 41)
    other_png = t.path('media', 'squares-2.png')
    other = squares(other_png, 42, size=24)
    ws_png = t.path('media', 'squares-3.png')
    ws_wall = squares(ws_png, 43, size=40)
    blurred = magick_blur(t, wall_png, SIGMA)
    ws_blurred = magick_blur(t, ws_png, SIGMA)
    other_blurred = magick_blur(t, other_png, SIGMA)

    config = wslib.sway_config(t.path('config'),
                               f'output * veil {vt.quote(wall_png)} fill\n')
    windows = []
    blurs = None
    with t.compositor(outputs=1, config=config) as c:
        def msg(command):
            ok, err = c.msg(command)
            t.check(ok, f'`{command}` accepted', err)

        def window(colour, app_id, name):
            w = wslib.Window(tools['solid-window'], c.client_env, colour, t.path(name + '.log'),
                             size=SIZE, extra=['--app-id', app_id])
            windows.append(w)
            return w

        try:
            with t.case('opaque'):
                c.wait_veil(OUT, 'shown', file=wall_png)
                window(WINDOW, APP_ID, 'window')
                box = c.wait_until(lambda: window_box(c, WINDOW),
                                   f'the window ({vt.px(WINDOW)}) to show')
                t.check(box[2:] == SIZE and tree_box(c) == box,
                        f'the floating window is {SIZE[0]}x{SIZE[1]}, where the tree says',
                        f'{box}, tree {tree_box(c)}')
                shot = c.settled_screenshot(OUT)
                t.compare(shot, np.where(_mask(box)[..., None], np.array(WINDOW, np.uint8), wall),
                          'opaque window over the wallpaper')
                # No translucent window: no node, no blur, with xray on too.
                msg('output * veil xray on')
                time.sleep(1.0)
                x = xray(c)
                t.check(x.get('on') is True and x.get('nodes') == 0 and x.get('blurs') == 0,
                        'xray on with only an opaque window: no node, no blur', str(x))
                msg('output * veil xray off')

            with t.case('translucent, xray off'):
                msg(f'[app_id="^{APP_ID}$"] opacity 0.5')
                plain = blend(WINDOW, crop(wall, box))
                wait_box(t, c, box, plain, 'xray off: blend with the wallpaper')
                x = xray(c)
                t.check(x.get('nodes') == 1 and x.get('blurs') == 0,
                        'a translucent window has a node; xray off: no blur', str(x))

            with t.case('xray on'):
                probe = Probe(c)
                msg('output * veil xray on')
                want = blend(WINDOW, crop(blurred, box))
                t.check(mean_error(want, plain) > 4 * BLEND['mean_tolerance'],
                        'the blurred blend differs from the plain one (the check can fail)',
                        f'mean {mean_error(want, plain):.2f}')
                shot = wait_box(t, c, box, want, 'xray on: blend with the blurred wallpaper')
                longest, p99 = probe.stop()
                # A figure, not a check: the machine's load decides it as much as sway does.
                say(f'# sway\'s IPC while veil blurred (GET_VERSION every 5 ms, from `xray on` '
                    f'to the patch on screen): longest round trip {longest * 1e3:.1f} ms, p99 '
                    f'{p99 * 1e3:.1f} ms, {len(probe.trips)} requests')
                vt.write_png(t.path('xray-on.png'), shot)
                x = xray(c)
                blurs = x.get('blurs')
                t.check(x.get('shown') == 1 and blurs == 1, 'one node shown, one blur', str(x))
                say(f'# xray status: {x}')
                # The moves below count from when no blur is in flight or due (the rate's timer).
                blurs = settled_blurs(lambda: xray(c))
                outside = np.ones((H, W), bool)
                outside[_mask(box)] = False
                t.check(np.array_equal(shot[outside], wall[outside]),
                        'outside the window, the plain wallpaper')

            with t.case('moved'):
                msg(f'[app_id="^{APP_ID}$"] move position 100 100')
                old, box = box, (100, 100) + SIZE
                shot = wait_box(t, c, box, blend(WINDOW, crop(blurred, box)),
                                'moved: the blurred patch at the new place')
                t.check(np.array_equal(crop(shot, old), crop(wall, old)),
                        'the old place shows the plain wallpaper')

                x = xray(c)
                t.check(x.get('blurs') == blurs, 'a move made no new blur', str(x))

            with t.case('moves, frame by frame'):
                box = recorded_moves(t, c, tools, wall, blurred, box)
                # Its control turned xray off and on: the copy was let go and made again.
                blurs = settled_blurs(lambda: xray(c))

            with t.case('resized'):
                msg(f'[app_id="^{APP_ID}$"] resize set width 400 px height 300 px')
                box = c.wait_until(lambda: (lambda b: b if b and b[2:] == (400, 300)
                                            else None)(tree_box(c)),
                                   'the window to be 400x300 in the tree')
                wait_box(t, c, box, blend(WINDOW, crop(blurred, box)),
                         'resized: the blurred patch covers the new size')

            with t.case('no blur for a move'):
                x = xray(c)
                t.check(x.get('blurs') == blurs, 'a resize made no new blur', str(x))

            with t.case('decorated'):
                decorated(t, c, msg, wall, blurred, box)

            with t.case("at the output's edges"):
                edges(t, c, msg, blurred, box)

            with t.case('over a tiled window'):
                window(TILED, TILED_ID, 'tiled')
                c.check_until(lambda: np.array_equal(c.screenshot(OUT)[5, 5],
                                                     np.array(TILED, np.uint8)),
                              'the tiled window fills the output')
                shot = wait_box(t, c, box, blend(WINDOW, crop(blurred, box)),
                                'xray: the wallpaper under the floating window, not the tiled one')
                vt.write_png(t.path('xray-over-tiled.png'), shot)
                msg('output * veil xray off')
                tiled_bg = np.broadcast_to(np.array(TILED, np.uint8), (box[3], box[2], 3))
                wait_box(t, c, box, blend(WINDOW, tiled_bg),
                         'xray off: the tiled window under the floating one')
                msg(f'[app_id="^{TILED_ID}$"] kill')
                msg('output * veil xray on')

            with t.case('new wallpaper'):
                msg(f'output * veil {vt.quote(other_png)} fill')
                c.wait_veil(OUT, 'shown', file=other_png)
                wait_box(t, c, box, blend(WINDOW, crop(other_blurred, box)),
                         "a new wallpaper: the patch is the new picture's blur")

            with t.case('another output'):
                box = other_output(t, c, msg, other_png, other_blurred)

            with t.case('workspace'):
                msg(f'workspace 2 veil {vt.quote(ws_png)} fill')
                msg(f'[app_id="^{APP_ID}$"] move to workspace 2')
                msg('workspace 2')
                box = c.wait_until(lambda: tree_box(c), 'the window in the tree')
                wait_box(t, c, box, blend(WINDOW, crop(ws_blurred, box)),
                         "on workspace 2: the patch is workspace 2's picture's blur")

            with t.case('dark switch'):
                box = dark_switch(t, c, msg, wall_png, blurred, ws_png, ws_blurred)

            with t.case('fullscreen'):
                shot = fullscreen(t, c, msg, box, blurred)
                outside = np.ones((H, W), bool)
                outside[_mask(box)] = False
                t.check(np.array_equal(shot[outside], wall[outside]),
                        'fullscreen disabled: outside the window, the plain wallpaper')

            with t.case('tabbed'):
                box = tabbed(t, c, msg, window, wall, blurred)

            with t.case('video'):
                video(t, c, msg, box)
                msg(f'output * veil {vt.quote(wall_png)} fill')
                c.wait_veil(OUT, 'shown', file=wall_png)

            with t.case('xray off'):
                msg('output * veil xray off')
                wait_box(t, c, box, blend(WINDOW, crop(wall, box)),
                         'xray off: the plain blend again')

            with t.case('opaque again'):
                msg('output * veil xray on')
                msg(f'[app_id="^{APP_ID}$"] opacity 1')
                expected = np.broadcast_to(np.array(WINDOW, np.uint8), (box[3], box[2], 3))
                wait_box(t, c, box, expected, 'opacity 1: the window itself')
                x = xray(c)
                t.check(x.get('nodes') == 0, 'opacity 1: the node is gone', str(x))

            with t.case('exit'):
                for w in windows:
                    w.stop()
                windows = []
                c.stop('exit')
        finally:
            for w in windows:
                w.stop()


def at_place(c, place, app_id=APP_ID):
    """Waits until the window's box in the tree is at place (x, y); returns the box."""
    return c.wait_until(lambda: (lambda b: b if b and b[:2] == place else None)(
        tree_box(c, app_id)), f'{app_id} at {place[0]},{place[1]}')


def dark_switch(t, c, msg, light_png, light_blurred, dark_png, dark_blurred):
    """
    Back on workspace 1 (the output's setting), `output * veil <light> fill dark <dark>`: the
    patch is the light picture's blur; `scheme dark`: the dark picture's, a new blur (the
    light's reference fails there: the two differ by far more than the tolerance); `scheme
    light`: the light's again. Returns the window's box.
    """
    msg('workspace 1')
    msg(f'[app_id="^{APP_ID}$"] move to workspace 1')
    msg(f'[app_id="^{APP_ID}$"] move position 100 100')
    box = at_place(c, (100, 100))
    msg(f'output * veil {vt.quote(light_png)} fill dark {vt.quote(dark_png)}')
    c.wait_veil(OUT, 'shown', file=light_png)
    light = blend(WINDOW, crop(light_blurred, box))
    dark = blend(WINDOW, crop(dark_blurred, box))
    t.check(mean_error(light, dark) > 4 * BLEND['mean_tolerance'],
            'the dark blend differs from the light one (the check can fail)',
            f'mean {mean_error(light, dark):.2f}')
    wait_box(t, c, box, light, "light: the patch is the light picture's blur")
    blurs = settled_blurs(lambda: xray(c))
    msg('output * veil scheme dark')
    c.wait_veil(OUT, 'shown', file=dark_png)
    wait_box(t, c, box, dark, "scheme dark: the patch is the dark picture's blur")
    x = xray(c)
    t.check(x.get('blurs', 0) > blurs, 'the dark picture was blurred', f'{blurs} then {x}')
    msg('output * veil scheme light')
    c.wait_veil(OUT, 'shown', file=light_png)
    wait_box(t, c, box, light, "scheme light: the light picture's blur again")
    return box


def fullscreen(t, c, msg, box, blurred):
    """
    `fullscreen enable`, as the series' README says: sway draws a fullscreen view out of its
    container's tree (arrange_fullscreen() disables that tree, and with it the xray node and the
    container's opacity), so the window covers the output edge to edge in its own colour, at
    opacity 1, and veil makes no blur for the hidden node. (Were the window translucent there,
    over the blurred wallpaper or the plain one, the check of its colour would fail.)
    `fullscreen disable`: the patch is the window's box again, the plain wallpaper around it.
    """
    whole = (0, 0, W, H)
    blurs = settled_blurs(lambda: xray(c))
    msg(f'[app_id="^{APP_ID}$"] fullscreen enable')
    c.wait_until(lambda: tree_box(c) == whole, 'the window to cover the output in the tree')
    colour = np.array(WINDOW, np.uint8)
    if not c.check_until(lambda: bool((c.screenshot(OUT) == colour).all()),
                         f'fullscreen: the window ({vt.px(WINDOW)}) edge to edge, opaque'):
        vt.write_png(t.path('xray-fullscreen.png'), c.screenshot(OUT))
    time.sleep(1.0)
    x = xray(c)
    t.check(x.get('nodes') == 1 and x.get('blurs') == blurs,
            'fullscreen: the node kept, hidden with its tree: no blur', f'{blurs} then {x}')
    msg(f'[app_id="^{APP_ID}$"] fullscreen disable')
    c.wait_until(lambda: tree_box(c) == box, f'the window back at {box}')
    wait_box(t, c, box, blend(WINDOW, crop(blurred, box)),
             'fullscreen disabled: the patch is the window\'s box again')
    shot = c.settled_screenshot(OUT)
    return shot


def tabbed(t, c, msg, window, wall, blurred):
    """
    A tabbed container of an opaque window and a translucent one (the floating window away on
    workspace 3). The translucent tab in front: the patch is its content box (the tree's rect,
    below the tab bar) over the blurred wallpaper; the tab bar is the same with xray on and off
    (the patch is not under it) and the box's first row is already the blurred blend. The
    opaque tab in front: the box shows it, the hidden tab's node shows nothing. The floating
    window back over the opaque tab: its patch is the wallpaper's blur, not the tab (xray, as
    sway-output(5) says); with xray off the tab under it. Returns the floating window's box.
    """
    msg(f'[app_id="^{APP_ID}$"] move to workspace 3')
    tiled_w = window(TILED, TILED_ID, 'tabbed-tiled')
    c.wait_until(lambda: tree_box(c, TILED_ID), 'the opaque tiled window')
    tab_w = window(TAB, TAB_ID, 'tab')
    c.wait_until(lambda: tree_box(c, TAB_ID), 'the second tiled window')
    msg(f'[app_id="^{TAB_ID}$"] focus')
    msg('layout tabbed')
    msg(f'[app_id="^{TAB_ID}$"] opacity 0.5')
    box = c.wait_until(lambda: (lambda b: b if b and b[1] > 0 and b[2] == W else None)(
        tree_box(c, TAB_ID)), 'the tab\'s content box below the tab bar')
    top = box[1]
    t.check(box == (0, top, W, H - top) and top >= 10,
            'the tab covers the output below a tab bar', str(box))
    content_box(t, c, msg, box, wall, blurred, 'tabbed')

    # Stacked: the same code path in the series (arrange_children()'s L_STACKED), two title
    # bars above the tab's content box.
    msg('layout stacking')
    sbox = c.wait_until(lambda: (lambda b: b if b and b[1] > top else None)(
        tree_box(c, TAB_ID)), 'the tab\'s content box below two title bars')
    t.check(sbox == (0, 2 * top, W, H - 2 * top),
            'stacked: the tab covers the output below two title bars', str(sbox))
    content_box(t, c, msg, sbox, wall, blurred, 'stacked')
    msg('layout tabbed')
    c.wait_until(lambda: tree_box(c, TAB_ID) == box, 'the tab in its tabbed box again')

    msg(f'[app_id="^{TILED_ID}$"] focus')
    c.check_until(lambda: (crop(c.screenshot(OUT), box) == np.array(TILED, np.uint8)).all(),
                  'the opaque tab in front covers the box')
    # The hidden tab keeps its node, hidden with the view (sway's border tree), as the
    # floating window on workspace 3 keeps its own.
    x = xray(c)
    t.check(x.get('nodes') == 2, 'the hidden tab and the window on workspace 3 keep their nodes',
            str(x))

    msg(f'[app_id="^{APP_ID}$"] move to workspace 1')
    msg(f'[app_id="^{APP_ID}$"] move position 100 100')
    fbox = at_place(c, (100, 100))
    wait_box(t, c, fbox, blend(WINDOW, crop(blurred, fbox)),
             "the floating window over the opaque tab: the wallpaper's blur, not the tab")
    msg('output * veil xray off')
    tab_bg = np.broadcast_to(np.array(TILED, np.uint8), (fbox[3], fbox[2], 3))
    wait_box(t, c, fbox, blend(WINDOW, tab_bg), 'xray off: the opaque tab under it')
    msg('output * veil xray on')
    for w in (tab_w, tiled_w):
        w.stop()
    c.wait_until(lambda: tree_box(c, TAB_ID) is None and tree_box(c, TILED_ID) is None,
                 'the tabs to go')
    wait_box(t, c, fbox, blend(WINDOW, crop(blurred, fbox)),
             'the tabs gone: the floating window over the blurred wallpaper')
    return fbox


def content_box(t, c, msg, box, wall, blurred, layout):
    """
    The translucent tab in front of a tabbed or stacked container (layout), at box, its content
    box below the title bars: the patch is that box to the pixel. Its pixels are the blend with
    the wallpaper's blur, the output's last rows too, and the background recovered from them
    matches ImageMagick's blur best where it is (at no shift); the title bars are the same with
    xray on and off; the box's first row is already the blurred blend. Ends with xray on.
    """
    top = box[1]
    want = blend(TAB, crop(blurred, box))
    plain = blend(TAB, crop(wall, box))
    wait_box(t, c, box, want,
             f"{layout}: the translucent tab's content box over the wallpaper's blur")
    shot_on = c.settled_screenshot(OUT)
    # The output's last rows: veil's copy was 3 to 6 levels off the blend there on average, 12
    # at most, before the edge of its reduced copy stood for the full picture's (util/blur.c).
    last = (mean_error(shot_on[H - BOTTOM:], want[-BOTTOM:]),
            mean_error(shot_on[H - BOTTOM:], plain[-BOTTOM:]))
    t.check(last[0] <= BLEND['mean_tolerance'] < last[1] / 4,
            f"{layout}: the output's last {BOTTOM} rows are the blurred blend, not the plain one",
            f'mean {last[0]:.2f} off the blurred blend, {last[1]:.2f} off the plain one')
    under = 2 * crop(shot_on, box).astype(np.float64) - np.array(TAB)
    shift, errors = xr.best_shift(under, blurred, box)
    t.check(shift == (0, 0), f'{layout}: the blurred patch in place to the pixel at row {top} '
            '(the background under the tab matches the blur best at no shift)',
            f'best at {shift}: {errors[shift]:.2f}; at (0, 0) {errors[(0, 0)]:.2f}')
    vt.write_png(t.path(f'xray-{layout}.png'), shot_on)
    msg('output * veil xray off')
    wait_box(t, c, box, plain, f'{layout}, xray off: the tab over the plain wallpaper')
    shot_off = c.settled_screenshot(OUT)
    differ = int(np.count_nonzero((shot_on[:top] != shot_off[:top]).any(axis=2)))
    t.check(differ == 0, f'{layout}: the title bars (rows 0 to {top - 1}) are the same with '
            'xray on and off', f'{differ} pixels differ')
    first, first_plain = (mean_error(shot_on[top:top + 1], want[:1]),
                          mean_error(shot_on[top:top + 1], plain[:1]))
    t.check(first <= 2 * BLEND['mean_tolerance'] < first_plain / 2,
            f'{layout}: row {top}, the box\'s first, is the blurred blend, not the plain one',
            f'mean {first:.2f} off the blurred blend, {first_plain:.2f} off the plain one')
    msg('output * veil xray on')
    wait_box(t, c, box, want, f'{layout}, xray on again: the tab over the blurred wallpaper')


def decorated(t, c, msg, wall, blurred, box):
    """
    A decorated floating window (`border normal 4`: a title bar and 4-pixel borders) at
    203,117, no multiple of veil's reduction (5 for blur 20): veil's node covers the
    container's whole box, title bar and borders with it, and its blurred patch is in place
    there to the pixel. The decorations and the title are the same with xray on and off, so
    the background under the box is recovered from the two screenshots (2 (on - off) + wall)
    and compared with ImageMagick's blur: best at no shift (pixman's renderer rounds a node's
    fractional source box: the patch was 1 or 2 pixels off there), the box's outermost pixels
    blurred too, the plain wallpaper exactly around the box. Then no border, back at box.
    """
    place = (203, 117)
    msg(f'[app_id="^{APP_ID}$"] border normal 4')
    msg(f'[app_id="^{APP_ID}$"] move position {place[0]} {place[1]}')
    full = c.wait_until(lambda: (lambda b: b if b and b[:2] == place else None)(
        container_box(c)), f'the decorated window at {place[0]},{place[1]}')
    x, y, w, h = full
    title = tree_box(c)[1] - y
    t.check(title >= 10 and full[2:] == (box[2] + 8, box[3] + title + 4),
            'the container is the window with a title bar and 4-pixel borders',
            f'{full}, title bar {title}')
    inner = (x + 6, y + title + 2, w - 12, h - title - 8)
    msg('output * veil xray off')
    wait_box(t, c, inner, blend(WINDOW, crop(wall, inner)),
             'decorated, xray off: its surface over the plain wallpaper')
    off = c.settled_screenshot(OUT).astype(np.int16)
    msg('output * veil xray on')
    wait_box(t, c, inner, blend(WINDOW, crop(blurred, inner)),
             'decorated, xray on: its surface over the blurred wallpaper')
    on = c.settled_screenshot(OUT)
    vt.write_png(t.path('xray-decorated.png'), on)
    under = 2 * (crop(on, full).astype(np.float64) - crop(off, full)) + crop(wall, full)
    shift, errors = xr.best_shift(under, blurred, full)
    t.check(shift == (0, 0) and errors[shift] <= 2 * BLEND['mean_tolerance'],
            f'decorated at {place[0]},{place[1]}: the blurred patch under the title bar, the '
            'borders and the surface in place to the pixel (best match at no shift)',
            f'best at {shift}: {errors[shift]:.2f}; at (0, 0) {errors[(0, 0)]:.2f}')
    ring = np.ones((h, w), bool)
    ring[1:-1, 1:-1] = False
    near = (float(np.abs(under[ring] - crop(blurred, full)[ring]).mean()),
            float(np.abs(under[ring] - crop(wall, full)[ring]).mean()))
    t.check(near[0] <= 2 * BLEND['mean_tolerance'] < near[1] / 2,
            "the box's outermost pixels (the borders' outer edge) are over the blur",
            f'mean {near[0]:.2f} off the blur, {near[1]:.2f} off the plain wallpaper')
    around = np.zeros((H, W), bool)
    around[y - 5:y + h + 5, x - 5:x + w + 5] = True
    around[y:y + h, x:x + w] = False
    t.check(np.array_equal(on[around], wall[around]),
            'around the box (5 pixels), the plain wallpaper exactly')
    msg(f'[app_id="^{APP_ID}$"] border none')
    msg(f'[app_id="^{APP_ID}$"] move position {box[0]} {box[1]}')
    c.wait_until(lambda: tree_box(c) == box, f'the window back at {box} without a border')
    wait_box(t, c, box, blend(WINDOW, crop(blurred, box)),
             'no border: the patch at the window\'s box again')


def edges(t, c, msg, blurred, box):
    """
    The window in the output's top left corner, then in its bottom right: the patch is the
    blurred blend there too, the 10 rows and columns along the output's edges within BLEND's
    mean (veil's copy repeats its estimate of the full picture's edge outwards, as ImageMagick
    repeats the picture's edge). Then back at box.
    """
    x, y, w, h = box
    for place in ((0, 0), (W - w, H - h)):
        msg(f'[app_id="^{APP_ID}$"] move position {place[0]} {place[1]}')
        b = at_place(c, place)
        want = blend(WINDOW, crop(blurred, b))
        shot = crop(wait_box(t, c, b, want, f'at {place[0]},{place[1]}: the blurred patch'), b)
        rows, cols = (slice(0, 10), slice(0, 10)) if place == (0, 0) else \
            (slice(h - 10, h), slice(w - 10, w))
        off = (mean_error(shot[rows], want[rows]), mean_error(shot[:, cols], want[:, cols]))
        t.check(max(off) <= BLEND['mean_tolerance'],
                f"at {place[0]},{place[1]}: the 10 rows and the 10 columns along the output's "
                'edges are the blurred blend', f'mean {off[0]:.2f} and {off[1]:.2f} levels off')
    msg(f'[app_id="^{APP_ID}$"] move position {x} {y}')
    at_place(c, (x, y))


def make_clip(t):
    """
    A 30 fps H.264 clip of CLIP_COLOURS, a second each, 320x180 (filled to the output): the
    blur of a picture of one colour is that colour, so the patch's colour says which second of
    the clip the blurred copy is of.
    """
    return vt.make_colour_clip(
        t.path('media', 'colours.mp4'), [(str(i), c) for i, c in enumerate(CLIP_COLOURS)], 30,
        1.0, ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '8', '-g', '30',
              '-pix_fmt', 'yuv420p', '-colorspace', 'smpte170m', '-color_primaries', 'smpte170m',
              '-color_trc', 'smpte170m', '-color_range', 'tv'], size=(320, 180))


def clip_colour(colour, tolerance=16):
    """The index of CLIP_COLOURS within tolerance of colour, else None."""
    for i, want in enumerate(CLIP_COLOURS):
        if np.abs(np.array(colour, np.float64) - want).max() <= tolerance:
            return i
    return None


def video(t, c, msg, box):
    """
    A video wallpaper under the translucent window (at box), xray on. veil's stated rate
    (sway-output(5) and veil(5) XRAY: "at most 5 a second for a video or an animation", the
    copies 200 ms apart): the status's blur count over RATE_SECONDS, between a quarter of
    that and that, and below the video's own frames a second. Then screenshots for
    CLIP_SECONDS: the plain wallpaper beside the window says which second of the clip the output
    shows, the patch (unblended from the window's colour) which second the blurred copy is of:
    within a step of each other, and the patch goes through at least 3 of the clip's colours.
    """
    clip = make_clip(t)
    msg(f'output * veil {vt.quote(clip)} fill')
    v = c.wait_veil(OUT, 'shown', file=clip)
    t.check(v.get('kind') == 'video', 'the clip plays as a video', str(v))
    b0 = xray(c).get('blurs', 0)
    c.check_until(lambda: xray(c).get('blurs', 0) >= b0 + 3, 'the video is blurred', timeout=30)

    def frames():
        return (c.veil(OUT).get('source') or {}).get('frames', 0)
    b0, f0, t0 = xray(c).get('blurs', 0), frames(), time.monotonic()
    time.sleep(RATE_SECONDS)
    b1, f1, t1 = xray(c).get('blurs', 0), frames(), time.monotonic()
    rate, fps = (b1 - b0) / (t1 - t0), (f1 - f0) / (t1 - t0)
    say(f'# video under xray: {rate:.2f} blurs a second, {fps:.1f} source frames a second over '
        f'{t1 - t0:.1f} s')
    t.check(CAP / 4 <= rate <= CAP + 1 / RATE_SECONDS,
            f'the blurred copy follows the video at its stated rate (at most {CAP:g} a second, '
            f'at least a quarter of it)', f'{rate:.2f} blurs a second')
    t.check(rate < 0.75 * fps, 'fewer blurs than video frames',
            f'{rate:.2f} blurs, {fps:.1f} frames a second')

    x, y, w, h = box
    inner = (x + 20, y + 20, w - 40, h - 40)
    seen, steps, bad = set(), 0, []
    end = time.monotonic() + CLIP_SECONDS
    n = len(CLIP_COLOURS)
    while time.monotonic() < end:
        shot = c.screenshot(OUT)
        plain = shot[10:90, 10:90].reshape(-1, 3).mean(axis=0)
        patch = crop(shot, inner).reshape(-1, 3).astype(np.float64)
        under = 2 * patch.mean(axis=0) - np.array(WINDOW)
        k, j = clip_colour(plain), clip_colour(under)
        spread = float(np.abs(patch - patch.mean(axis=0)).max())
        steps += 1
        if j is not None:
            seen.add(j)
        if k is None or j is None or (j - k) % n not in (0, 1, n - 1) or spread > 4:
            bad.append((vt.px(np.rint(plain).astype(int)), vt.px(np.rint(under).astype(int)),
                        k, j, round(spread, 1)))
        time.sleep(0.25)
    say(f'# video under xray: {steps} screenshots, the patch showed the clip\'s colours '
        f'{sorted(seen)}')
    t.check(not bad, 'in each screenshot the patch is one colour of the clip, within a step '
            'of the wallpaper beside it', str(bad[:6]))
    t.check(len(seen) >= 3, 'the patch follows the clip: 3 of its colours or more',
            str(sorted(seen)))


def recorded_moves(t, c, tools, wall, blurred, box):
    """
    Twelve moves by IPC between box and another place, recorded frame by frame
    (veiltest.xray.recorded_moves); returns the window's last box.
    """
    places = [box, (800, 400) + SIZE]
    ipc = bl.Ipc(c.swaysock)

    def move(at):
        x, y = places[at][:2]
        ok, err = ipc.command(f'[app_id="^{APP_ID}$"] move position {x} {y}')
        if not ok:
            raise vt.Failure(f'move position {x} {y} failed: {err}')
    try:
        at = xr.recorded_moves(
            t, c, tools['frame-record'], t.path('moves-record.log'), places,
            lambda bg: blend(WINDOW, bg), wall, blurred, move,
            lambda on: ipc.command(f'output * veil xray {"on" if on else "off"}'))
    finally:
        ipc.close()
    return places[at]


def _mask(box):
    m = np.zeros((H, W), bool)
    x, y, w, h = box
    m[y:y + h, x:x + w] = True
    return m


def main():
    args, outdir, _, _, sway = sw.patched_sway("veil: the sway series' xray", 'logs-xray')
    sys.argv = [sys.argv[0], '--compositor', sway, '--outdir', outdir]
    t = vt.Test('sway-xray')
    if not t.check(all(os.access(p, os.X_OK) for p in (args.solid_window, args.frame_record)),
                   'solid-window and frame-record are built',
                   f'{args.solid_window!r} {args.frame_record!r}'):
        t.finish()
    drive(t, {'solid-window': args.solid_window, 'frame-record': args.frame_record})
    t.finish()


if __name__ == '__main__':
    main()
