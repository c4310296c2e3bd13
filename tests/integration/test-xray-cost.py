#!/usr/bin/env python3
"""
xray-cost (issue 41): what xray does not do. veil-tinywl --xray puts an xray node under each
window; a real client's translucent window (tests/tools/solid-window --alpha) sits over a
wallpaper that changes by itself. The blurs are counted from the status (xray.blurs) over a few
seconds, with bounds generous enough for a loaded machine:

- a solid colour whose blur changes twice in one message gets a copy for each (the second is
  due within 200 ms of the first, when nothing commits any more: a timer makes it), then none;
- an animated GIF of 10 colours at 10 frames a second (written byte by byte, veiltest.anim):
  its blurred copy follows at a capped rate, at least 1 and at most 5 blurs a second (the cap,
  200 ms between blurs), while its frames go on at 10 a second;
- a 30 fps video: the same cap; then an opaque window of the same client over the translucent
  one, covering its node whole, makes no blur for 3 s while the video plays on, and moving it
  away blurs again; a workspace switch, which disables the window's tree and so its node, makes
  none either, and switching back blurs again.
"""
import os
import sys
import time

import numpy as np

import veiltest as vt
from veiltest import anim as animlib
from veiltest import ws

OUT = 'HEADLESS-1'
WIN = (400, 300)
COLOUR = (0x20, 0x40, 0xe0)
RATE_SECONDS = 3.0
CAP = 5.0  # blurs a second: one each 200 ms (module/xray/xray.c, MIN_INTERVAL_MS)


def xray_status(c):
    return c.veil(OUT).get('xray') or {}


def blurs(c):
    return xray_status(c).get('blurs', 0)


def source_frames(c):
    return (c.veil(OUT).get('source') or {}).get('frames', 0)


def count(c, seconds):
    """Blurs and source frames made over seconds (the status read before and after only)."""
    b0, f0, t0 = blurs(c), source_frames(c), time.monotonic()
    time.sleep(seconds)
    b1, f1, t1 = blurs(c), source_frames(c), time.monotonic()
    return (b1 - b0) / (t1 - t0), (f1 - f0) / (t1 - t0)


def media(t, name, data):
    path = os.path.join(t.media, name)
    with open(path, 'wb') as f:
        f.write(data)
    os.chmod(path, 0o644)
    return path


def check_rate(t, c, what):
    rate, frames = count(c, RATE_SECONDS)
    print(f'{what}: {rate:.2f} blurs/s, {frames:.1f} source frames/s', flush=True)
    t.check(1.0 <= rate <= CAP + 1.0 / RATE_SECONDS,
            f'{what}: the blurred copy follows, capped at {CAP:.0f} a second',
            f'{rate:.2f} blurs/s over {RATE_SECONDS} s ({frames:.1f} frames/s)')
    return rate, frames


def check_none(t, c, what):
    """No blur over 3 s once what is in place (a job already running may still land)."""
    time.sleep(0.5)
    b0 = blurs(c)
    f0 = source_frames(c)
    time.sleep(3.0)
    b1, f1 = blurs(c), source_frames(c)
    print(f'{what}: {b1 - b0} blurs, {f1 - f0} source frames in 3 s', flush=True)
    t.check(f1 - f0 >= 15, f'{what}: the wallpaper plays on', f'{f1 - f0} frames in 3 s')
    t.check(b1 == b0, f'{what}: no blur', f'{b0} then {b1}')


def check_again(t, c, what):
    b0 = blurs(c)
    c.check_until(lambda: blurs(c) >= b0 + 2, f'{what}: blurred again', timeout=20)


def main():
    t = vt.Test('xray-cost')
    window_path = os.environ.get('VEIL_TEST_SOLID_WINDOW')
    if not window_path or not os.access(window_path, os.X_OK):
        t.fail('solid-window is built', str(window_path))
        t.finish()
    # Ten colours at 10 cs each, for ever; a GIF written by hand has exactly these frames.
    palette = [(25 * i, 255 - 25 * i, (80 * i) % 256) for i in range(10)]
    frames = [{'indices': np.full((90, 160), i, np.uint8), 'delay_cs': 10} for i in range(10)]
    gif = media(t, 'colours.gif', animlib.gif(160, 90, palette, frames, loop=0))
    video = os.path.join(t.media, 'testsrc2.mp4')
    vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30', '-t', '10',
                '-c:v', 'libx264', '-pix_fmt', 'yuv420p', video])
    os.chmod(video, 0o644)

    with t.compositor(outputs=1, args=['--xray']) as c:
        win = ws.Window(window_path, c.client_env, COLOUR, t.path('window.log'), size=WIN,
                        extra=('--alpha', '80'))
        ok, err = c.msg('move position 100 80')
        t.check(ok, 'move position accepted', err)
        ok, err = c.msg(f'output {OUT} veil #204060 solid_color')
        t.check(ok, 'a solid colour accepted', err)
        ok, err = c.msg(f'output {OUT} veil xray on')
        t.check(ok, 'xray on accepted', err)

        with t.case('a still changed twice at once gets both blurs, then none'):
            c.check_until(lambda: blurs(c) >= 1, 'a first blurred copy', timeout=30)
            time.sleep(0.5)
            b0 = blurs(c)
            # One message: the second change comes while the first one's blur runs, and its own
            # is due within 200 ms of it, when nothing commits any more (the timer makes it).
            ok, err = c.msg(f'output {OUT} veil blur 30; output {OUT} veil blur 20')
            t.check(ok, 'blur 30 then blur 20 accepted', err)
            c.check_until(lambda: blurs(c) >= b0 + 2, 'both changes blurred', timeout=10)
            time.sleep(0.5)
            b1 = blurs(c)
            time.sleep(2.0)
            t.check(blurs(c) == b1 == b0 + 2, 'two blurs, then none for 2 s on a still',
                    f'{b0}, {b1}, then {blurs(c)}')

        with t.case('an animation\'s blur rate'):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(gif)} fill')
            t.check(ok, 'the GIF accepted', err)
            c.wait_veil(OUT, file=gif)
            anim = c.check_until(lambda: (c.veil(OUT).get('source') or {}).get('animation'),
                                 'the GIF plays as an animation')
            t.check(bool(anim) and anim.get('frames') == 10, 'ten frames', str(anim))
            c.check_until(lambda: blurs(c) >= 1, 'a first blurred copy', timeout=30)
            rate, frames = check_rate(t, c, 'animation')
            t.check(rate <= 0.75 * frames, 'fewer blurs than frames (10 a second)',
                    f'{rate:.2f} blurs/s, {frames:.1f} frames/s')

        with t.case('a video\'s blur rate'):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fill')
            t.check(ok, 'the video accepted', err)
            c.wait_veil(OUT, file=video)
            check_again(t, c, 'video')
            check_rate(t, c, 'video')

        with t.case('a covered node makes no blur'):
            cover = ws.Window(window_path, c.client_env, (0x60, 0x60, 0x60),
                              t.path('cover.log'), size=(700, 500))
            try:
                # The newest window moves, and is on top: it covers the translucent one whole.
                ok, err = c.msg('move position 50 50')
                t.check(ok, 'the opaque window moved over the translucent one', err)
                time.sleep(0.3)
                shot = c.screenshot(OUT)  # the video goes on: no two alike
                t.check(np.all(shot[80:380, 100:500] == (0x60, 0x60, 0x60)),
                        'the translucent window is covered whole', str(shot[200, 300]))
                check_none(t, c, 'covered')
                ok, err = c.msg('move position 5000 5000')
                t.check(ok, 'the opaque window moved off the output', err)
                check_again(t, c, 'uncovered')
            finally:
                cover.stop()

        with t.case('a disabled node makes no blur'):
            ok, err = c.msg('workspace 2')
            t.check(ok, 'workspace 2', err)
            check_none(t, c, 'on another workspace')
            ok, err = c.msg('workspace 1')
            t.check(ok, 'workspace 1', err)
            check_again(t, c, 'back on the window\'s workspace')
        win.stop()
    t.finish()


if __name__ == '__main__':
    sys.exit(main())
