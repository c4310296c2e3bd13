#!/usr/bin/env python3
"""
xray (issue 41): veil-tinywl --xray puts an xray node under each window, covering its box. A real
client's translucent window (tests/tools/solid-window --alpha, ARGB8888) over a still: the
screenshot (grim) under it is the blend of the window's pixels with ImageMagick's
`-blur 0x<sigma>` of the wallpaper at that box, within a few levels; outside it the plain
wallpaper. A move follows (no blur is made for it: the status's count stays), and recorded
frame by frame (tests/tools/frame-record) no frame has the patch anywhere but under the window;
`xray off` shows the plain wallpaper; a wallpaper change, a dark switch and `blur <px>` blur
again; a box partly outside the output shows the part inside; a window moved to a second output
shows that output's copy and stays whole when that output is unplugged under it; wrong words
are refused with one sentence, the screen unchanged. The state file keeps both words for
`veil restore`.
"""
import json
import os
import subprocess
import time
import sys

import numpy as np

import veiltest as vt
from veiltest import ws

OUT = 'HEADLESS-1'
W, H = 1280, 720
WIN = (400, 300)
ALPHA = 0x80
COLOUR = (0x20, 0x40, 0xe0)
# The blurred copy is made at a fifth of the size per axis and scaled up bilinear; pixman's
# scaling is not ImageMagick's either. Levels, after the window's alpha halved the difference.
MEAN_TOL = 2.0
MAX_TOL = 8


def magick(*args):
    exe = 'magick' if subprocess.run(['which', 'magick'], capture_output=True).returncode == 0 \
        else 'convert'
    r = subprocess.run([exe, *args], capture_output=True, timeout=300)
    if r.returncode != 0:
        raise vt.Failure(f'{exe} {" ".join(args)}: {r.stderr.decode(errors="replace")}')


def make_wallpaper(path, seed, fill):
    """A picture with large and small structure: plasma, a sharp box and stripes."""
    magick('-seed', str(seed), '-size', f'{W}x{H}', 'plasma:' + fill, '-fill', 'white',
           '-draw', 'rectangle 250,180 520,420', '-fill', 'black',
           '-draw', 'rectangle 700,100 760,600', '-depth', '8', path)


def blurred(path, sigma, t, name):
    out = t.path(f'{name}-blur{sigma}.png')
    magick(path, '-blur', f'0x{sigma}', '-depth', '8', out)
    return vt.read_image(out)


def blend(under, alpha=ALPHA, colour=COLOUR):
    """What the pixman renderer makes of the premultiplied window over under."""
    a = alpha / 255.0
    win = np.array([round(c * alpha / 255) for c in colour], np.float64)
    return win + (1 - a) * under.astype(np.float64)


def xray_status(c, output=OUT):
    return c.veil(output).get('xray') or {}


def check_patch(t, shot, under, box, label):
    """The window's box on the screenshot against the blend over under (the whole picture)."""
    x, y, w, h = box
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    actual = shot[y0:y1, x0:x1].astype(np.float64)
    expected = blend(under[y0:y1, x0:x1])
    diff = np.abs(actual - expected)
    mean, worst = float(diff.mean()), float(diff.max())
    ok = mean <= MEAN_TOL and worst <= MAX_TOL
    print(f'{label}: mean {mean:.2f}, max {worst:.0f} levels off the blend', flush=True)
    if not ok:
        vt.write_png(t.path(f'{label}-actual.png'), shot)
        vt.write_png(t.path(f'{label}-expected.png'),
                     np.clip(np.rint(expected), 0, 255).astype(np.uint8))
    t.check(ok, f'{label}: the window over the blurred wallpaper',
            f'mean {mean:.2f} (<= {MEAN_TOL}), max {worst:.0f} (<= {MAX_TOL}) levels')
    return mean, worst


def patch_close(c, under, box):
    """Whether the screen's patch is the blend over under now (for waiting: no check)."""
    x, y, w, h = box
    shot = c.screenshot(OUT)
    diff = np.abs(shot[y:y + h, x:x + w].astype(np.float64) - blend(under[y:y + h, x:x + w]))
    return diff.mean() <= MEAN_TOL and diff.max() <= MAX_TOL


def check_plain(t, shot, wall, region, label, tol=2):
    x0, y0, x1, y1 = region
    diff = np.abs(shot[y0:y1, x0:x1].astype(int) - wall[y0:y1, x0:x1].astype(int))
    t.check(diff.size > 0 and diff.max() <= tol, f'{label}: the plain wallpaper',
            f'max {diff.max() if diff.size else "-"} levels')


def settle_blurs(c, at_least, what, output=OUT):
    return c.check_until(lambda: xray_status(c, output).get('blurs', 0) >= at_least and
                         xray_status(c, output).get('shown', 0) >= 1 and
                         xray_status(c, output), what, timeout=30)


def main():
    t = vt.Test('xray')
    window_path = os.environ.get('VEIL_TEST_SOLID_WINDOW')
    if not window_path or not os.access(window_path, os.X_OK):
        t.fail('solid-window is built', str(window_path))
        t.finish()
    first, second = t.path('first.png'), t.path('second.png')
    make_wallpaper(first, 7, 'red-blue')
    make_wallpaper(second, 11, 'yellow-green')
    wall1, wall2 = vt.read_image(first), vt.read_image(second)
    blur1 = blurred(first, 20, t, 'first')

    with t.compositor(outputs=1, args=['--xray']) as c:
        with t.case('off by default'):
            ok, err = c.msg(f'output {OUT} veil {first} fill')
            t.check(ok, 'wallpaper accepted', err)
            c.wait_veil(OUT)
            win = ws.Window(window_path, c.client_env, COLOUR, t.path('window.log'),
                            size=WIN, extra=('--alpha', '%02x' % ALPHA))
            ok, err = c.msg('move position 100 80')
            t.check(ok, 'move position accepted', err)
            st = xray_status(c)
            t.check(st.get('on') is False and st.get('blur') == 20 and st.get('blurs') == 0,
                    'status: off, blur 20, nothing blurred', str(st))
            shot = c.settled_screenshot(OUT)
            check_patch_plain = blend(wall1[80:380, 100:500])
            diff = np.abs(shot[80:380, 100:500].astype(float) - check_patch_plain)
            t.check(diff.max() <= 2, 'the window over the plain wallpaper',
                    f'max {diff.max():.0f}')

        with t.case('on: the blurred wallpaper under the window'):
            ok, err = c.msg('output * veil xray on')
            t.check(ok, 'xray on accepted', err)
            st = settle_blurs(c, 1, 'a blurred copy is shown')
            if st:
                t.check(st.get('size') == [256, 144], 'the copy is a fifth a side (1280x720 / 5)',
                        str(st))
            shot = c.settled_screenshot(OUT)
            vt.write_png(t.path('xray-on.png'), shot)  # docs/pictures/xray.png
            check_patch(t, shot, blur1, (100, 80) + WIN, 'on')
            check_plain(t, shot, wall1, (600, 0, W, H), 'beside the window')

        with t.case('a move follows, with no new blur'):
            blurs = xray_status(c).get('blurs')
            ok, err = c.msg('move position 700 350')
            t.check(ok, 'move accepted', err)
            shot = c.settled_screenshot(OUT)
            check_patch(t, shot, blur1, (700, 350) + WIN, 'moved')
            check_plain(t, shot, wall1, (0, 0, 600, 340), 'where the window was')
            t.check(xray_status(c).get('blurs') == blurs, 'no blur for a move',
                    f'{blurs} then {xray_status(c).get("blurs")}')

        with t.case('frame by frame: the patch moves with the window'):
            frame_record = os.environ.get('VEIL_TEST_FRAME_RECORD')
            # A point only the old box covers (on the white box's edge), one only the new box
            # covers (on the black bar): the blurred and the plain wallpaper differ there.
            p_old, p_new = (255, 300), (705, 400)
            boxes = ((100, 80), (700, 350))
            want = {'old': (blend(blur1[p_old[1], p_old[0]]), wall1[p_new[1], p_new[0]]),
                    'new': (wall1[p_old[1], p_old[0]], blend(blur1[p_new[1], p_new[0]]))}
            ok, err = c.msg('move position 100 80')
            c.settled_screenshot(OUT)
            rec = ws.Recorder(frame_record, c.client_env, [p_old, p_new],
                              t.path('frame-record.log'))
            try:
                rec.wait_ready()
                for i in range(12):
                    x, y = boxes[(i + 1) % 2]
                    ok, err = c.msg(f'move position {x} {y}')
                    time.sleep(0.12)
                time.sleep(0.3)
            finally:
                rec.stop()
            kinds = {'old': 0, 'new': 0, 'neither': 0}
            worst = None
            for frame in rec.frames:
                got = [np.array(col, np.float64) for col in frame[4]]
                kind = next((k for k, (a, b) in want.items()
                             if np.abs(got[0] - a).max() <= 6 and
                             np.abs(got[1] - b).max() <= 6), 'neither')
                kinds[kind] += 1
                if kind == 'neither' and worst is None:
                    worst = frame
            t.check(kinds['neither'] == 0 and kinds['old'] > 0 and kinds['new'] > 0,
                    'every frame has the patch where the window is',
                    f'{kinds}, first other frame {worst}')
            print(f'frame by frame: {kinds}', flush=True)

        with t.case('a box partly outside the output'):
            ok, err = c.msg('move position -150 -100')
            t.check(ok, 'move accepted', err)
            shot = c.settled_screenshot(OUT)
            check_patch(t, shot, blur1, (-150, -100) + WIN, 'partly outside')
            ok, err = c.msg('move position 5000 5000')
            t.check(ok, 'move off every output accepted', err)
            shot = c.settled_screenshot(OUT)
            check_plain(t, shot, wall1, (0, 0, W, H), 'no window on the output')
            ok, err = c.msg('move position 100 80')

        with t.case('bad words refused, the screen unchanged'):
            before = c.settled_screenshot(OUT)
            for words, part in (('blur 0', 'out of range'), ('blur 1000000', 'out of range'),
                                ('blur junk', 'Invalid blur'), ('blur -5', 'Invalid blur'),
                                ('xray maybe', 'expected on or off'), ('xray', 'one word')):
                ok, err = c.msg(f'output {OUT} veil {words}')
                t.check(not ok and part in err and err.count('.') <= 2,
                        f'`veil {words}` refused with one sentence', err)
            after = c.settled_screenshot(OUT)
            t.check(np.array_equal(before, after), 'the screen is unchanged')
            st = xray_status(c)
            t.check(st.get('on') is True and st.get('blur') == 20, 'the settings are unchanged',
                    str(st))

        with t.case('blur 40'):
            blurs = xray_status(c).get('blurs')
            ok, err = c.msg(f'output {OUT} veil blur 40')
            t.check(ok, 'blur 40 accepted', err)
            settle_blurs(c, blurs + 1, 'blurred again')
            shot = c.settled_screenshot(OUT)
            check_patch(t, shot, blurred(first, 40, t, 'first'), (100, 80) + WIN, 'blur 40')
            ok, err = c.msg(f'output {OUT} veil blur 20')
            t.check(ok, 'blur 20 accepted', err)

        with t.case('a wallpaper change blurs the new picture'):
            blurs = xray_status(c).get('blurs')
            ok, err = c.msg(f'output {OUT} veil {second} fill')
            t.check(ok, 'second wallpaper accepted', err)
            c.wait_veil(OUT, file=second)
            settle_blurs(c, blurs + 1, 'blurred again')
            # The copy of the new picture at blur 20 (one job or two: `blur 20` came just before).
            blur2 = blurred(second, 20, t, 'second')
            c.check_until(lambda: patch_close(c, blur2, (100, 80) + WIN), 'the new picture\'s copy',
                          timeout=30)
            shot = c.settled_screenshot(OUT)
            check_patch(t, shot, blur2, (100, 80) + WIN, 'changed')

        with t.case('a dark switch blurs the dark picture'):
            blurs = xray_status(c).get('blurs')
            ok, err = c.msg(f'output {OUT} veil {second} fill dark {first}')
            t.check(ok, 'a setting with a dark picture accepted', err)
            ok, err = c.msg(f'output {OUT} veil scheme dark')
            t.check(ok, 'scheme dark accepted', err)
            c.wait_veil(OUT, file=first)
            settle_blurs(c, blurs + 1, 'blurred again')
            shot = c.settled_screenshot(OUT)
            check_patch(t, shot, blur1, (100, 80) + WIN, 'dark')
            ok, err = c.msg(f'output {OUT} veil scheme light')
            c.wait_veil(OUT, file=second)

        with t.case('another output, then gone'):
            before = set(c.outputs())
            ok, err = c.msg('create_output')
            t.check(ok, 'create_output', err)
            new = sorted(c.wait_until(lambda: set(c.outputs()) - before, 'a new output'))[0]
            c.wait_mode(new, W, H)
            ok, err = c.msg(f'output {new} veil {first} fill')
            c.wait_veil(new, file=first)
            x = c.outputs()[new]['rect']['x']
            ok, err = c.msg(f'move position {x + 100} 80')
            t.check(ok, 'the window moved to the new output', err)
            settle_blurs(c, 1, f'a blurred copy on {new}', output=new)
            shot = c.settled_screenshot(new)
            check_patch(t, shot, blur1, (100, 80) + WIN, 'on another output')
            ok, err = c.msg(f'output {new} unplug')
            t.check(ok, f'{new} unplugged under the window', err)
            c.wait_until(lambda: new not in c.outputs(), f'{new} to go away')
            t.check(c.responsive(), 'the compositor lives on')
            ok, err = c.msg('move position 100 80')
            t.check(ok, 'the window moved back', err)
            # The output's copy went with its last node: a new one is made on the worker.
            settle_blurs(c, 1, f'a blurred copy on {OUT} again')
            shot = c.settled_screenshot(OUT)
            check_patch(t, shot, blurred(second, 20, t, 'second'), (100, 80) + WIN, 'back')

        with t.case('xray off: the plain wallpaper'):
            blurs = xray_status(c).get('blurs')
            ok, err = c.msg('output * veil xray off')
            t.check(ok, 'xray off accepted', err)
            shot = c.settled_screenshot(OUT)
            diff = np.abs(shot[80:380, 100:500].astype(float) - blend(wall2[80:380, 100:500]))
            t.check(diff.max() <= 2, 'the window over the plain wallpaper',
                    f'max {diff.max():.0f}')
            ok, err = c.msg(f'output {OUT} veil {first} fill')
            c.wait_veil(OUT, file=first)
            c.settled_screenshot(OUT)
            t.check(xray_status(c).get('blurs') == blurs, 'nothing blurred while off',
                    f'{blurs} then {xray_status(c).get("blurs")}')

        with t.case('the window goes'):
            win.stop()
            shot = c.settled_screenshot(OUT)
            check_plain(t, shot, wall1, (0, 0, W, H), 'no window')
            t.check(xray_status(c).get('nodes') == 0, 'its node went with its tree',
                    str(xray_status(c)))

    # The state file keeps `xray` and `blur`; `veil restore` brings them back.
    state_home = t.path('state-home')
    state_file = os.path.join(state_home, 'veil', 'veil-tinywl.json')
    env = {'XDG_STATE_HOME': state_home}
    with t.compositor(outputs=1, env=env, name='first') as c:
        with t.case('written down'):
            for words in (f'{first} fill', 'xray on', 'blur 30'):
                ok, err = c.msg(f'output {OUT} veil {words}')
                t.check(ok, f'`veil {words}` accepted', err)

            def written():
                try:
                    with open(state_file) as f:
                        return json.load(f).get('xray', {}).get(OUT)
                except (OSError, ValueError):
                    return None
            got = c.check_until(written, 'the state file has the output\'s xray', timeout=20)
            t.check(got == {'xray': True, 'blur': 30}, 'xray on, blur 30 in the state file',
                    str(got))
    with t.compositor(outputs=1, env=env, name='second', args=['--xray']) as c:
        with t.case('restored'):
            ok, err = c.msg(f'output {OUT} veil restore')
            t.check(ok, 'restore accepted', err)
            got = c.check_until(lambda: xray_status(c).get('on') and xray_status(c),
                                'xray on again', timeout=20)
            t.check(bool(got) and got.get('blur') == 30, 'blur 30 again', str(got))
    t.finish()


if __name__ == '__main__':
    sys.exit(main())
