#!/usr/bin/env python3
"""
The labwc series' xray (examples/labwc/0006-...): a window of the xray window rule shows veil's
blurred wallpaper through its translucent surface. Built as test-labwc.py builds the series (the
same work directory: one labwc build for both), run headless (pixman), windows by
tests/tools/solid-window --alpha 80 (a real xdg-shell client whose ARGB8888 buffer has alpha
0x80: the translucency is the client's own, as foot's alpha=0.8 is; labwc 0.20.2 has no opacity
of its own), pictures by the real grim, veil's status by the real veilctl. labwc has no IPC:
the windows are moved and resized by MoveTo and ResizeTo actions bound to keys that wtype
presses (the virtual keyboard protocol), and rc.xml is changed with `labwc --reconfigure`.

rc.xml: the output's wallpaper, a picture of sharp squares at its own size (fill: pixel for
pixel), with xray="yes"; `<windowRule identifier="veil-xray" xray="yes">`; client-side
decorations (the window's box is its surface). The reference of the blurred wallpaper is
ImageMagick's `-blur 0x20` of the picture (veil's default blur); a premultiplied pixel P of
alpha a over a background B shows P + B (255 - a) / 255, compared with the screenshot in the
window's box within tests/veiltest/xray.py's BLEND:

1. A window the rule does not match (app_id veil-plain): the blend over the plain wallpaper; no
   xray node, no blur, with xray on.
2. A window of the rule (app_id veil-xray): the blend over the blurred wallpaper (which differs
   from the plain blend by far more than the tolerance: the check can fail); one node, one
   blur; the other window still over the plain wallpaper; the rest of the output the wallpaper.
3. Moved (MoveTo) and resized (ResizeTo): the blurred patch at the new box, the old place the
   plain wallpaper again, no new blur. Twelve moves between two places (MoveTo keys) with every
   frame of the output recorded (tests/tools/frame-record, veiltest.xray.recorded_moves): no
   frame may show the window over the plain wallpaper or the blurred patch without the window
   (a control with xray off by a reconfigure shows that frames of the window over the plain
   wallpaper are seen).
4. Over the other window: where the two overlap, the blurred wallpaper under the window of the
   rule, not the window below (that is what xray means).
5. On a second output (VirtualOutputAdd, MoveToOutput): that output's wallpaper's blur, and
   the first's once the output is removed (other_output()).
6. A reconfigure without xray="yes": the plain blend again (labwc sends `xray off`); with it
   again, the blurred blend; a reconfigure without the window rule: no node, the plain blend.
7. A window that maps as veil-later (no xray) and then sets its app_id to veil-xray
   (solid-window --app-id-shown): the blurred wallpaper under it at once, with no move.
8. The window closed: no node.
9. Server-side decorations, in a labwc of its own (decorated()): the blurred patch under the
   surface where it falls, the title bar over the node.
"""
import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
import veiltest as vt  # noqa: E402
from veiltest import ws as wslib  # noqa: E402
from veiltest import xray as xr  # noqa: E402
from veiltest.patched import say  # noqa: E402
from veiltest.xray import (SIGMA, crop, magick_blur, mean_error, settled_blurs,  # noqa: E402
                           squares, wait_box)

# test-labwc.py's build, Labwc and rc.xml helpers (its name has a dash: loaded from its file).
_spec = importlib.util.spec_from_file_location('test_labwc', os.path.join(HERE, 'test-labwc.py'))
lw = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lw)

OUT = 'HEADLESS-1'
W, H = 1280, 720
VIRT = 'VIRT-1'  # the output that VirtualOutputAdd makes, right of OUT
VW, VH = 1920, 1080
XRAY_ID = 'veil-xray'
PLAIN_ID = 'veil-plain'
LATER_ID = 'veil-later'  # maps with this app_id, then takes XRAY_ID (solid-window --app-id-shown)
WINDOW = (0x30, 0x60, 0xd0)
PLAIN = (0xd0, 0xb0, 0x20)
ALPHA = 0x80
SIZE = (320, 240)
# Where the rules' MoveTo puts the windows when they map, and where the keys take the xray one.
XRAY_AT = (200, 150)
PLAIN_AT = (860, 420)
MOVED_AT = (100, 100)
SECOND_AT = (760, 60)
RESIZED = (400, 300)
OVER_AT = (700, 300)
LATER_AT = (560, 60)
# The keys (pressed by wtype) and their actions on the focused window.
KEYS = {'moved': 'F5', 'resized': 'F6', 'over': 'F7', 'second': 'F8', 'add': 'F9',
        'remove': 'F10', 'to-virt': 'F11'}
ACTIONS = {
    'moved': f'name="MoveTo" x="{MOVED_AT[0]}" y="{MOVED_AT[1]}"',
    'resized': f'name="ResizeTo" width="{RESIZED[0]}" height="{RESIZED[1]}"',
    'over': f'name="MoveTo" x="{OVER_AT[0]}" y="{OVER_AT[1]}"',
    'second': f'name="MoveTo" x="{SECOND_AT[0]}" y="{SECOND_AT[1]}"',
    'add': f'name="VirtualOutputAdd" output_name="{VIRT}"',
    'remove': f'name="VirtualOutputRemove" output_name="{VIRT}"',
    'to-virt': f'name="MoveToOutput" output="{VIRT}"',
}


def over(colour, background, alpha=ALPHA):
    """solid-window's premultiplied pixel of colour and alpha over background, as pixman does."""
    a = alpha / 255.0
    p = np.floor(np.array(colour, np.float64) * alpha / 255.0 + 0.5)
    return np.clip(np.rint(p + background.astype(np.float64) * (1 - a)), 0, 255).astype(np.uint8)


def rc_xml(wall_png, virt_png, wallpaper_xray=True, rule_xray=True, ssd=False):
    xray = ' xray="yes"' if wallpaper_xray else ''
    # solid-window asks for no decorations: serverDecoration gives it labwc's.
    prop = (' xray="yes"' if rule_xray else '') + (' serverDecoration="yes"' if ssd else '')
    rules = ((XRAY_ID, prop, XRAY_AT), (PLAIN_ID, '', PLAIN_AT), (LATER_ID, '', LATER_AT))
    rules = ''.join(f'''    <windowRule identifier="{app_id}"{prop}>
      <action name="MoveTo" x="{x}" y="{y}" />
    </windowRule>
''' for app_id, prop, (x, y) in rules)
    keys = ''.join(f'    <keybind key="{KEYS[k]}"><action {ACTIONS[k]} /></keybind>\n'
                   for k in KEYS)
    return f'''<?xml version="1.0"?>
<labwc_config>
  <core><decoration>client</decoration></core>
  <wallpapers>
    <wallpaper output="*" mode="fill"{xray}>{wall_png}</wallpaper>
    <wallpaper output="{VIRT}" mode="fill">{virt_png}</wallpaper>
  </wallpapers>
  <windowRules>
{rules}  </windowRules>
  <keyboard>
{keys}  </keyboard>
</labwc_config>
'''


def over_window(background):
    return over(WINDOW, background)


def mask(*boxes):
    m = np.zeros((H, W), bool)
    for x, y, w, h in boxes:
        m[y:y + h, x:x + w] = True
    return m


def drive(t, labwc, veilctl, tools, sanitized, wall_png, wall, blurred, virt_png):
    home = t.outdir
    cfgdir = t.path('labwc-config')
    os.makedirs(cfgdir)
    rc_path = os.path.join(cfgdir, 'rc.xml')
    lw.write(rc_path, rc_xml(wall_png, virt_png))
    wtype = shutil.which('wtype')
    if not t.check(wtype, 'wtype is installed (it presses the keys of MoveTo and ResizeTo)'):
        return
    windows = []
    with lw.Labwc(t, labwc, veilctl, cfgdir, home, env=lw.sanitizer_env(t, sanitized),
                  name='labwc-xray') as c:
        def xray():
            return c.veil(OUT).get('xray') or {}

        def window(colour, app_id, extra=()):
            w = wslib.Window(tools['solid-window'], c.client_env, colour, t.path(app_id + '.log'),
                             size=SIZE, extra=['--app-id', app_id, '--alpha', f'{ALPHA:02x}',
                                               *extra])
            windows.append(w)
            return w

        def press(key):
            r = subprocess.run([wtype, '-k', key], env=c.client_env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=vt.IPC_TIMEOUT)
            if r.returncode != 0:
                raise vt.Failure(f'wtype -k {key} failed ({r.returncode}): {r.stderr.strip()}')

        def reconfigure(**kw):
            lw.write(rc_path, rc_xml(wall_png, virt_png, **kw))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)

        plain_box = PLAIN_AT + SIZE
        box = XRAY_AT + SIZE
        try:
            with t.case('not matched'):
                c.wait_veil(OUT, 'shown', file=wall_png)
                window(PLAIN, PLAIN_ID)
                wait_box(t, c, plain_box, over(PLAIN, crop(wall, plain_box)),
                         'a window the rule does not match: the plain wallpaper under it')
                x = c.wait_until(lambda: (lambda x: x if x.get('on') else None)(xray()),
                                 'xray on (rc.xml) in the status')
                settled_blurs(xray)
                x = xray()
                t.check(x.get('nodes') == 0 and x.get('blurs') == 0,
                        'xray on, no window of the rule: no node, no blur', str(x))

            with t.case('matched'):
                window(WINDOW, XRAY_ID)
                plain = over(WINDOW, crop(wall, box))
                want = over(WINDOW, crop(blurred, box))
                t.check(mean_error(want, plain) > 8,
                        'the blurred blend differs from the plain one (the check can fail)',
                        f'mean {mean_error(want, plain):.2f}')
                shot = wait_box(t, c, box, want,
                                'a window of the rule: the blurred wallpaper under it')
                vt.write_png(t.path('xray-on.png'), shot)
                t.compare(crop(shot, plain_box), over(PLAIN, crop(wall, plain_box)),
                          'the other window: still the plain wallpaper', tolerance=2)
                outside = ~mask(box, plain_box)
                t.check(np.array_equal(shot[outside], wall[outside]),
                        'outside the windows, the plain wallpaper')
                blurs = settled_blurs(xray)
                x = xray()
                t.check(x.get('nodes') == 1 and x.get('shown') == 1 and blurs == 1,
                        'one node (the window of the rule), shown, one blur', str(x))
                say(f'# xray status: {x}')

            with t.case('moved'):
                press(KEYS['moved'])
                old, box = box, MOVED_AT + SIZE
                shot = wait_box(t, c, box, over(WINDOW, crop(blurred, box)),
                                'moved (MoveTo): the blurred patch at the new place')
                left = mask(old) & ~mask(box)
                t.check(np.array_equal(shot[left], wall[left]),
                        'the old place shows the plain wallpaper')
                t.check(xray().get('blurs') == blurs, 'a move made no new blur', str(xray()))

            with t.case('moves, frame by frame'):
                places = [box, SECOND_AT + SIZE]
                at = xr.recorded_moves(
                    t, c, tools['frame-record'], t.path('moves-record.log'), places,
                    over_window, wall, blurred,
                    lambda at: press(KEYS['moved'] if at == 0 else KEYS['second']),
                    lambda on: reconfigure(wallpaper_xray=on))
                if at != 0:
                    press(KEYS['moved'])
                # Its control turned xray off and on: the copy was let go and made again.
                blurs = settled_blurs(xray)

            with t.case('resized'):
                press(KEYS['resized'])
                box = MOVED_AT + RESIZED
                wait_box(t, c, box, over(WINDOW, crop(blurred, box)),
                         'resized (ResizeTo): the blurred patch covers the new size')
                t.check(xray().get('blurs') == blurs, 'a resize made no new blur', str(xray()))

            with t.case('over another window'):
                press(KEYS['over'])
                box = OVER_AT + RESIZED
                shot = wait_box(t, c, box, over(WINDOW, crop(blurred, box)),
                                'over the other window: the blurred wallpaper under it, not '
                                'the window below')
                vt.write_png(t.path('xray-over-window.png'), shot)
                both = mask(box) & mask(plain_box)
                t.check(both.sum() > 10000, 'the windows overlap', f'{int(both.sum())} pixels')
                below = over(WINDOW, over(PLAIN, wall))
                t.check(mean_error(shot[both][None], below[both][None]) > 8,
                        'the overlap does not show the window below')
                press(KEYS['moved'])
                box = MOVED_AT + RESIZED
                wait_box(t, c, box, over(WINDOW, crop(blurred, box)), 'moved back')

            with t.case('another output'):
                box = other_output(t, c, press, xray, virt_png, wall, blurred)

            with t.case('xray off'):
                reconfigure(wallpaper_xray=False)
                wait_box(t, c, box, over(WINDOW, crop(wall, box)),
                         'rc.xml without xray="yes": the plain wallpaper under the window')
                x = xray()
                t.check(x.get('on') is False and x.get('nodes') == 1,
                        'xray off; the window keeps its node', str(x))
                reconfigure()
                wait_box(t, c, box, over(WINDOW, crop(blurred, box)),
                         'xray="yes" again: the blurred wallpaper')

            with t.case('rule removed'):
                reconfigure(rule_xray=False)
                wait_box(t, c, box, over(WINDOW, crop(wall, box)),
                         'no xray window rule: the plain wallpaper under the window')
                t.check(xray().get('nodes') == 0, 'no rule: no node', str(xray()))
                reconfigure()
                wait_box(t, c, box, over(WINDOW, crop(blurred, box)),
                         'the rule again: the blurred wallpaper')

            with t.case('app_id after mapping'):
                # Mapped as veil-later (no xray; its rule's MoveTo places it), then veil-xray:
                # the rule applies at once, with no move (before, only at the next move).
                later_box = LATER_AT + SIZE
                later = window(WINDOW, LATER_ID, ['--app-id-shown', XRAY_ID])
                wait_box(t, c, later_box, over(WINDOW, crop(blurred, later_box)),
                         'a window whose app_id became veil-xray after mapping: the blurred '
                         'wallpaper under it, unmoved')
                t.check(xray().get('nodes') == 2, 'it has a node beside the first window\'s',
                        str(xray()))
                windows.remove(later)
                later.stop()
                c.wait_until(lambda: xray().get('nodes') == 1, 'its node to go with it')

            with t.case('closed'):
                windows.pop().stop()
                c.check_until(lambda: np.array_equal(c.screenshot(OUT)[mask(box) &
                                                                       ~mask(plain_box)],
                                                     wall[mask(box) & ~mask(plain_box)]),
                              'the window gone: the wallpaper at its place')
                t.check(xray().get('nodes') == 0, 'the window closed: no node', str(xray()))

            with t.case('exit'):
                while windows:
                    windows.pop().stop()
                c.stop('exit')
        finally:
            for w in windows:
                w.stop()


def other_output(t, c, press, xray, virt_png, wall, blurred):
    """
    The window moved to a second output (VirtualOutputAdd, 1920x1080, right of the first; its
    own wallpaper, pixel for pixel; labwc places the window there) shows that output's
    wallpaper's blur at its box in that output's coordinates (ImageMagick's blur of a screenshot
    of that output before the window came); the output removed, labwc takes
    the window back to the first, where a MoveTo puts it: the first's blur again. Returns the
    window's box.
    """
    press(KEYS['add'])
    c.wait_until(lambda: VIRT in c.status(), f'{VIRT} to appear in veilctl status')
    c.wait_veil(VIRT, 'shown', file=virt_png)
    # Its picture is first decoded to cover a smaller size than VIRT-1's 1920x1080, and decoded
    # again when the largest output grows (before 2026-12-07 that first decode was shown
    # scaled up, up to 85 levels off): VIRT-1 shows the file pixel for pixel.
    c.wait_until(lambda: (c.veil(VIRT).get('width'), c.veil(VIRT).get('height')) == (VW, VH),
                 f"{VIRT}'s picture decoded at {VW}x{VH}")
    file_pixels = vt.read_image(virt_png)
    c.check_until(lambda: np.array_equal(c.screenshot(VIRT), file_pixels),
                  f'{VIRT} shows its wallpaper pixel for pixel')
    virt = c.settled_screenshot(VIRT)
    shown_png = t.path('media', 'virt-shown.png')
    vt.write_png(shown_png, virt)
    virt_blurred = magick_blur(t, shown_png, SIGMA)
    press(KEYS['to-virt'])

    def placed():
        b = vt.bbox(np.any(c.screenshot(VIRT) != virt, axis=2))
        if b is None or (b[2] - b[0] + 1, b[3] - b[1] + 1) != RESIZED:
            return None
        return (b[0], b[1]) + RESIZED
    try:
        box = c.wait_until(placed, f'the window on {VIRT}', timeout=20)
    except vt.Failure as e:
        shot = c.screenshot(VIRT)
        vt.write_png(t.path('virt-no-window.png'), shot)
        raise vt.Failure(f'{e}; the pixels that differ from its wallpaper: '
                         f'{vt.bbox(np.any(shot != virt, axis=2))}')
    shot = wait_box(t, c, box, over(WINDOW, crop(virt_blurred, box)),
                    f"on {VIRT}: the patch is {VIRT}'s wallpaper's blur", output=VIRT)
    vt.write_png(t.path('xray-virt.png'), shot)
    nodes = (xray().get('nodes'), (c.veil(VIRT).get('xray') or {}).get('nodes'))
    t.check(nodes == (0, 1), f"the node is {VIRT}'s, not {OUT}'s", str(nodes))
    t.check(not np.array_equal(crop(virt, box), crop(wall, box)),
            f"{VIRT}'s wallpaper differs from {OUT}'s at the box (the check can fail)")

    press(KEYS['remove'])
    c.wait_until(lambda: VIRT not in c.status(), f'{VIRT} to go')
    press(KEYS['moved'])
    box = MOVED_AT + RESIZED
    wait_box(t, c, box, over(WINDOW, crop(blurred, box)),
             f"{VIRT} gone: the window on {OUT} over {OUT}'s blurred wallpaper")
    t.check(xray().get('nodes') == 1, f"the node is {OUT}'s again", str(xray()))
    return box


def decorated(t, labwc, veilctl, tools, sanitized, wall_png, wall, blurred, virt_png):
    """
    Server-side decorations (the rule's serverDecoration="yes"): the node covers the window's box with its title bar and borders
    (placed at minus their margins, set again when labwc decorates the window at map). The
    surface's box is found with xray off (the pixels of the window over the plain wallpaper);
    with xray on it must show the window over the blurred wallpaper, and the title bar, opaque,
    must not change.
    """
    home = t.path('ssd')
    cfgdir = os.path.join(home, 'labwc-config')
    os.makedirs(cfgdir)
    rc_path = os.path.join(cfgdir, 'rc.xml')
    lw.write(rc_path, rc_xml(wall_png, virt_png, wallpaper_xray=False, ssd=True))
    with lw.Labwc(t, labwc, veilctl, cfgdir, home, env=lw.sanitizer_env(t, sanitized),
                  name='labwc-xray-ssd') as c:
        c.wait_veil(OUT, 'shown', file=wall_png)
        w = wslib.Window(tools['solid-window'], c.client_env, WINDOW, t.path('ssd.log'),
                         size=SIZE, extra=['--app-id', XRAY_ID, '--alpha', f'{ALPHA:02x}'])
        try:
            plain = over(WINDOW, wall)

            def surface():
                b = vt.bbox(np.all(c.screenshot(OUT) == plain, axis=2))
                if b is None or (b[2] - b[0] + 1, b[3] - b[1] + 1) != SIZE:
                    return None
                return (b[0], b[1]) + SIZE
            box = c.wait_until(surface, 'the decorated window over the plain wallpaper')
            before = c.settled_screenshot(OUT)
            x, y, width, _ = box
            title = (slice(y - 10, y - 2), slice(x + 20, x + width - 20))
            t.check(not np.array_equal(before[title], wall[title]),
                    f'the window at {x},{y} has a title bar above its surface', str(box))
            t.check((c.veil(OUT).get('xray') or {}).get('nodes') == 1,
                    'a decorated window of the rule has a node', str(c.veil(OUT)))
            lw.write(rc_path, rc_xml(wall_png, virt_png, ssd=True))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            shot = wait_box(t, c, box, over(WINDOW, crop(blurred, box)),
                            'decorated: the blurred wallpaper under the surface, where it falls')
            vt.write_png(t.path('xray-decorated.png'), shot)
            t.check(np.array_equal(shot[title], before[title]),
                    'the title bar (opaque) is drawn over the node')
        finally:
            w.stop()
        c.stop('exit')


def main():
    args, t, labwc, veilctl, sanitized = lw.patched_labwc(
        'labwc-xray', "the labwc series' xray, built and driven")
    tools = {'solid-window': args.solid_window, 'frame-record': args.frame_record}
    if t.check(all(p and os.access(p, os.X_OK) for p in tools.values()),
               'solid-window and frame-record are built', str(tools)):
        wall_png = t.path('media', 'squares.png')
        wall = squares(wall_png, 41, width=W, height=H)
        blurred = magick_blur(t, wall_png, SIGMA)
        virt_png = t.path('media', 'squares-virt.png')
        squares(virt_png, 42, size=24, width=VW, height=VH)
        drive(t, labwc, veilctl, tools, sanitized, wall_png, wall, blurred, virt_png)
        with t.case('decorated'):
            decorated(t, labwc, veilctl, tools, sanitized, wall_png, wall, blurred, virt_png)
    t.finish()


if __name__ == '__main__':
    main()
