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
4. A tiled window under the floating one: xray shows the wallpaper, not the tiled window.
5. A new wallpaper (`output * veil <file>`): the patch is the new picture's blur; on a second
   output (right of the first: its coordinates are not the layout's), that output's wallpaper's
   blur, and back on the first when the second is unplugged; the window moved to workspace 2,
   which has a picture of its own: that picture's blur.
6. `xray off`: the plain blend again; `opacity 1`: C again.

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


def tree_box(c, app_id=APP_ID):
    """The window's box (x, y, w, h) in sway's tree (its container's rect), or None."""
    def walk(node):
        if node.get('app_id') == app_id:
            r = node['rect']
            return (r['x'], r['y'], r['width'], r['height'])
        for child in node.get('nodes', []) + node.get('floating_nodes', []):
            found = walk(child)
            if found:
                return found
        return None
    return walk(c.query('get_tree'))


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

            with t.case('xray off'):
                msg('output * veil xray off')
                wait_box(t, c, box, blend(WINDOW, crop(ws_wall, box)),
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
