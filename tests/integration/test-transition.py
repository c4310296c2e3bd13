#!/usr/bin/env python3
"""
Transitions on one output of veil-tinywl (headless, pixman), set with the real swaymsg and seen
with grim (fade, wipe, none, defaults, videos, a disabled output). The pictures are flat
colours, so that a pixel during a fade from A to B is A*(1-a) + B*a for one a in (0, 1),
computable here on its own; after it the screen is exactly B.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('transition')
OUT = 'HEADLESS-1'
W, H = 1280, 720
EXACT = dict(tolerance=0, ignore_border=0)

A = '#204080'
B = (200, 160, 40)
C = (30, 220, 90)
D = (120, 20, 200)
media = t.media


def flat_png(name, color):
    # At the output's size: unscaled, so that no filter touches the edges (wlroots 0.19's
    # pixman renderer darkens them when it scales).
    return vt.make_png(os.path.join(media, name),
                       np.broadcast_to(np.array(color, np.uint8), (H, W, 3)).copy())


b_png, c_png, d_png = flat_png('b.png', B), flat_png('c.png', C), flat_png('d.png', D)


def hexc(color):
    return '#%02x%02x%02x' % tuple(color)


def transition_of(v):
    return v.get('transition')


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        ok, err = c.msg(f'output {OUT} veil {A} solid_color')
        t.check(ok, f'`veil {A} solid_color` accepted', err)
        v = c.wait_veil(OUT, 'shown', kind='color')
        t.check(transition_of(v) is None, 'no transition without the word', str(v))
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(A, W, H), 'a', **EXACT)

    with t.case('fade from a colour to a still'):
        # 4 s, and a judged against the progress read around each screenshot: on a loaded
        # machine a status query or a grim run takes a good part of a second.
        ok, err = c.msg(f'output {OUT} veil {vt.quote(b_png)} fill transition fade 4000')
        t.check(ok, '`veil b.png fill transition fade 4000` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=b_png)
        tr = transition_of(v)
        t.check(isinstance(tr, dict) and tr.get('kind') == 'fade' and
                0 <= tr.get('progress', -1) < 1, 'the status says a fade runs', str(tr))

        def shot_between():
            before = (transition_of(c.veil(OUT)) or {}).get('progress')
            a, why = vt.blend_of(vt.grab(c, OUT), vt.rgb(A), B)
            after = (transition_of(c.veil(OUT)) or {}).get('progress')
            return before, a, why, after

        time.sleep(0.3)
        p0, a1, why1, p1 = shot_between()
        t.check(a1 is not None, 'a blend of A and B during the fade', why1)
        time.sleep(0.5)
        p1b, a2, why2, p2 = shot_between()
        t.check(a2 is not None, 'a blend of A and B later in the fade', why2)
        if a1 is not None and a2 is not None:
            t.check(a2 > a1, f'B rises: a {a1:.3f} then {a2:.3f}')
        # The opacity is the progress: a lies between the readings around its screenshot.
        for name, lo, a, hi in (('first', p0, a1, p1), ('second', p1b, a2, p2)):
            t.check(None not in (lo, a, hi) and lo - 0.02 <= a <= hi + 0.02,
                    f'a follows the progress ({name}): {lo} <= {a} <= {hi}')
        t.check(p1 is not None and p2 is not None and 0 < p1 < p2 < 1,
                'the status progress rises', f'{p1} then {p2}')
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(B), W, H), 'b', **EXACT)
        # The decoder's threads exist by now: later fades add none.
        threads0, fds0 = vt.thread_count(pid), vt.fd_count(pid)

    with t.case('fade from a still to a colour'):
        ok, err = c.msg(f'output {OUT} veil {A} solid_color transition fade 2000')
        t.check(ok, '`veil #204080 solid_color transition fade 2000` accepted', err)
        c.wait_veil(OUT, 'shown', kind='color')
        time.sleep(0.5)
        a1, why1 = vt.blend_of(vt.grab(c, OUT), B, vt.rgb(A))
        t.check(a1 is not None, 'a blend of B and A (premultiplied rect colour)', why1)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(A, W, H), 'a-again', **EXACT)

    with t.case('fade from a still to a still'):
        c.msg(f'output {OUT} veil {vt.quote(b_png)} fill')
        c.wait_veil(OUT, 'shown', file=b_png)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'instant', timeout=1)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(c_png)} stretch transition fade 2000')
        t.check(ok, '`veil c.png stretch transition fade 2000` accepted', err)
        c.wait_veil(OUT, 'shown', file=c_png)
        time.sleep(0.5)
        a1, why1 = vt.blend_of(vt.grab(c, OUT), B, C)
        t.check(a1 is not None, 'a blend of B and C', why1)

    with t.case('a command during a fade ends on its picture'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(d_png)} fill transition none')
        t.check(ok, '`veil d.png fill transition none` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=d_png)
        t.check(transition_of(v) is None, 'no transition after `transition none`', str(v))
        # Instant: the first screenshot is already D.
        t.compare(vt.grab(c, OUT), vt.expect_solid(hexc(D), W, H), 'd-at-once', **EXACT)
        # A fade cut by another fade: it ends on the last one's picture.
        c.msg(f'output {OUT} veil {vt.quote(b_png)} fill transition fade 3000')
        c.wait_veil(OUT, 'shown', file=b_png)
        time.sleep(0.3)
        c.msg(f'output {OUT} veil {vt.quote(c_png)} fill transition fade 400')
        c.wait_veil(OUT, 'shown', file=c_png)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fades end', timeout=10)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(C), W, H), 'c-last',
                  **EXACT)

    with t.case('the default transition'):
        ok, err = c.msg(f'output {OUT} veil transition fade 300')
        t.check(ok, '`veil transition fade 300` accepted', err)
        v = c.veil(OUT)
        t.check(transition_of(v) is None, 'setting the default changes nothing shown', str(v))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(d_png)} fill')
        t.check(ok, '`veil d.png fill` accepted', err)
        seen = c.wait_until(lambda: transition_of(c.veil(OUT)), 'the default fade to run',
                            timeout=5, interval=0.01)
        t.check(seen.get('kind') == 'fade', 'the default applies to the next change', str(seen))
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=5)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(D), W, H), 'd-default',
                  **EXACT)
        ok, err = c.msg(f'output {OUT} veil transition none')
        t.check(ok, '`veil transition none` accepted', err)
        c.msg(f'output {OUT} veil {vt.quote(b_png)} fill')
        v = c.wait_veil(OUT, 'shown', file=b_png)
        t.check(transition_of(v) is None, 'default none: instant', str(v))

    def wipe_line(shot, left, right):
        """The x where a screenshot turns from left's colour to right's, else None, why."""
        rows = shot.reshape(H, W, 3)
        if not (rows == rows[0]).all():
            return None, 'rows differ'
        row = rows[0].astype(int)
        is_left = (row == np.array(left)).all(axis=1)
        is_right = (row == np.array(right)).all(axis=1)
        if not (is_left | is_right).all():
            return None, f'columns of neither colour: {np.flatnonzero(~(is_left | is_right))[:8]}'
        x = int(is_left.sum())
        if not is_left[:x].all():
            return None, 'the left colour is not all on the left'
        return x, ''

    with t.case('wipe'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(c_png)} fill transition wipe 2000')
        t.check(ok, '`veil c.png fill transition wipe 2000` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=c_png)
        t.check((transition_of(v) or {}).get('kind') == 'wipe', 'the status says wipe', str(v))
        time.sleep(0.6)
        x1, why1 = wipe_line(vt.grab(c, OUT), C, B)
        time.sleep(0.5)
        x2, why2 = wipe_line(vt.grab(c, OUT), C, B)
        t.check(x1 is not None and 0 < x1 < W, f'mid-wipe: C left of x {x1}, B right', why1)
        t.check(x2 is not None and x1 is not None and x1 < x2 < W, f'the line moves right: {x1} '
                f'then {x2}', why2)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the wipe ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(C), W, H), 'c-wiped', **EXACT)
        # To a colour: the rect is cut.
        c.msg(f'output {OUT} veil {A} solid_color transition wipe 2000')
        c.wait_veil(OUT, 'shown', kind='color')
        time.sleep(0.8)
        x3, why3 = wipe_line(vt.grab(c, OUT), vt.rgb(A), C)
        t.check(x3 is not None and 0 < x3 < W, f'wiping to a colour: A left of x {x3}', why3)
        # From a colour: the nodes right of the line are left out.
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the wipe ends', timeout=10)
        c.msg(f'output {OUT} veil {vt.quote(b_png)} fill transition wipe 2000')
        c.wait_veil(OUT, 'shown', file=b_png)
        time.sleep(0.8)
        x4, why4 = wipe_line(vt.grab(c, OUT), B, vt.rgb(A))
        t.check(x4 is not None and 0 < x4 < W, f'wiping from a colour: B left of x {x4}', why4)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the wipe ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(B), W, H), 'b-wiped', **EXACT)

    with t.case('errors'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(c_png)} fill transition wipe-out')
        t.check(not ok and 'Unknown transition' in (err or ''), 'unknown kind refused', err)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(c_png)} fill transition fade 20000')
        t.check(not ok and 'duration' in (err or ''), 'long duration refused', err)
        v = c.veil(OUT)
        t.check(v.get('file') == b_png, 'a refused command changes nothing', str(v))

    with t.case('threads and descriptors after'):
        c.check_until(lambda: vt.thread_count(pid) == threads0,
                      f'{threads0} threads again', timeout=10)
        c.check_until(lambda: vt.fd_count(pid) <= fds0, f'{fds0} descriptors again', timeout=10)

    with t.case('a video plays on while it fades in'):
        still = vt.make_png(os.path.join(media, 'v.png'), vt.quadrant_pixels(320, 192))
        clip = os.path.join(media, 'v.mp4')
        vt._ffmpeg(['-loop', '1', '-framerate', '15', '-i', still, '-t', '2', '-c:v', 'libx264',
                    '-preset', 'veryfast', '-pix_fmt', 'yuv420p', clip])
        os.chmod(clip, 0o644)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill transition fade 3000')
        t.check(ok, '`veil v.mp4 fill transition fade 3000` accepted', err)
        v1 = c.wait_veil(OUT, 'shown', file=clip)
        time.sleep(1.0)
        v2 = c.veil(OUT)
        t.check(transition_of(v2) is not None, 'still fading after 1 s', str(v2))
        t.check(v2.get('frames', 0) > v1.get('frames', 0) + 5,
                'the video\'s frames reach the fading nodes',
                f'{v1.get("frames")} then {v2.get("frames")}')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(b_png)} fill transition fade 1000')
        t.check(ok, 'fading from the video to a still accepted', err)
        c.wait_veil(OUT, 'shown', file=b_png)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(B), W, H), 'b-after-video',
                  **EXACT)

    with t.case('a video fading out plays on'):
        X, Y = (220, 30, 30), (30, 30, 220)
        flicker = os.path.join(media, 'flicker.mp4')
        colour = 'color=c=0x%02x%02x%02x:s=%dx%d:r=15:d=0.4'
        vt._ffmpeg(['-f', 'lavfi', '-i', colour % (X + (W, H)), '-f', 'lavfi',
                    '-i', colour % (Y + (W, H)), '-filter_complex', '[0][1]concat=n=2:v=1',
                    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', flicker])
        os.chmod(flicker, 0o644)
        c.msg(f'output {OUT} veil {vt.quote(flicker)} fill')
        c.wait_veil(OUT, 'shown', file=flicker)
        time.sleep(0.5)
        c.msg(f'output {OUT} veil {vt.quote(d_png)} fill transition fade 4000')
        c.wait_veil(OUT, 'shown', file=d_png)
        olds = set()
        for _ in range(12):
            p = vt.grab(c, OUT).reshape(-1, 3).mean(axis=0)
            fits = []
            for name, old in (('X', X), ('Y', Y)):
                old, new = np.array(old, float), np.array(D, float)
                a = float(np.dot(p - old, new - old) / np.dot(new - old, new - old))
                fits.append((float(np.abs(old * (1 - a) + new * a - p).max()), name))
            err, name = min(fits)
            if err < 12:
                olds.add(name)
            time.sleep(0.1)
        t.check(olds == {'X', 'Y'}, 'the old video\'s frames go on under the fade',
                f'blends seen with {sorted(olds)}')
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(D), W, H), 'd-after-flicker',
                  **EXACT)

    # Last: enabling the output again gives the compositor new buffers (descriptors).
    with t.case('a disabled output skips the transition'):
        c.msg(f'output {OUT} veil {vt.quote(d_png)} fill transition fade 5000')
        c.wait_veil(OUT, 'shown', file=d_png)
        t.check(transition_of(c.veil(OUT)) is not None, 'a fade runs')
        ok, err = c.msg(f'output {OUT} disable')
        t.check(ok, f'output {OUT} disable', err)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends on disable',
                     timeout=2)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(b_png)} fill transition fade 5000')
        t.check(ok, 'a command for the disabled output accepted', err)
        c.wait_until(lambda: c.veil(OUT).get('file') == b_png, 'b set', timeout=5)
        t.check(transition_of(c.veil(OUT)) is None, 'no fade while disabled',
                str(c.veil(OUT)))
        ok, err = c.msg(f'output {OUT} enable')
        t.check(ok, f'output {OUT} enable', err)
        c.wait_veil(OUT, 'shown', file=b_png)
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(B), W, H), 'b-enabled',
                  **EXACT)

t.finish()
