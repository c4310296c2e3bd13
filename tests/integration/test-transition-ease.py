#!/usr/bin/env python3
"""
Easing curves (`transition <kind> ... ease <curve>`) and `transition random`, on one output of
veil-tinywl (headless, pixman), set with the real swaymsg and seen with grim.

Each eased transition runs 4 s and is judged mid-way, as test-transition-kinds.py judges the
linear ones: the status's progress (the time fraction) is read before and after a screenshot,
and what the screenshot shows (a fade's blend, a wipe's line, a slide's offset, a grow's
radius) must be the curve's value for some time fraction between the two readings. The curve
is computed here on its own (bisection on CSS's cubic Bézier, not veil's solver), and where the
curve and a straight line give disjoint answers the picture must not be the straight line's.
Bad curves fail through swaymsg with a sentence, the wallpaper unchanged. random: each change
runs a kind the status names, never the last one again, and the screen shows that kind.
"""
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('transition-ease')
OUT = 'HEADLESS-1'
W, H = 1280, 720
EXACT = dict(tolerance=0, ignore_border=0)
SLACK = 2  # pixels of rounding on each side of a computed boundary
media = t.media

B = (200, 160, 40)
C = (30, 220, 90)

# CSS's control points of each keyword (CSS Easing Functions Level 1).
CURVES = {
    'linear': None,
    'in': (0.42, 0.0, 1.0, 1.0),
    'out': (0.0, 0.0, 0.58, 1.0),
    'in-out': (0.42, 0.0, 0.58, 1.0),
    'ease': (0.25, 0.1, 0.25, 1.0),
}


def bezier(a1, a2, s):
    u = 1.0 - s
    return 3 * u * u * s * a1 + 3 * u * s * s * a2 + s ** 3


def curve_at(points, x):
    """y at the time fraction x: bisection on x(s), then y(s), held within [0,1] as veil does."""
    if points is None:
        return min(1.0, max(0.0, x))
    x1, y1, x2, y2 = points
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if bezier(x1, x2, mid) < x:
            lo = mid
        else:
            hi = mid
    return min(1.0, max(0.0, bezier(y1, y2, (lo + hi) / 2)))


def curve_range(points, p1, p2):
    """The least and the greatest value of the curve for time fractions in [p1, p2]."""
    ys = [curve_at(points, p1 + (p2 - p1) * i / 64) for i in range(65)]
    return min(ys), max(ys)


def flat(color):
    return np.broadcast_to(np.array(color, np.uint8), (H, W, 3)).copy()


def gradient():
    """Every column and row its own colour, blue 128 (never B's 40)."""
    x = np.linspace(0, 255, W).astype(np.uint8)
    y = np.linspace(0, 255, H).astype(np.uint8)
    img = np.zeros((H, W, 3), np.uint8)
    img[:, :, 0] = x[None, :]
    img[:, :, 1] = y[:, None]
    img[:, :, 2] = 128
    return img


OLD = flat(B)
NEW = gradient()
old_png = vt.make_png(os.path.join(media, 'old.png'), OLD)
new_png = vt.make_png(os.path.join(media, 'new.png'), NEW)
c_png = vt.make_png(os.path.join(media, 'c.png'), flat(C))


def transition_of(v):
    return v.get('transition')


def progress(c):
    return (transition_of(c.veil(OUT)) or {}).get('progress')


def start(c, words, kind, ease_shown, points, to=new_png):
    """Shows old.png at once, then `to` with the transition; returns when it runs."""
    c.msg(f'output {OUT} veil {vt.quote(old_png)} fill transition none')
    c.wait_veil(OUT, 'shown', file=old_png)
    c.settled_screenshot(OUT)
    ok, err = c.msg(f'output {OUT} veil {vt.quote(to)} fill transition {words}')
    t.check(ok, f'`veil {os.path.basename(to)} fill transition {words}` accepted', err)
    v = c.wait_veil(OUT, 'shown', file=to)
    tr = transition_of(v) or {}
    t.check(tr.get('kind') == kind and tr.get('ease') == ease_shown and
            tr.get('random') is False, f'the status says {kind} ease {ease_shown}', str(tr))
    p, eased = tr.get('progress'), tr.get('eased')
    t.check(p is not None and eased is not None and
            abs(eased - curve_at(points, p)) < 2e-3,
            'the status\'s eased is the curve at its progress', f'{p} -> {eased}')


def mid_shot(c, at=1.5):
    """A screenshot at about `at` s into a 4 s transition, between two progress readings."""
    time.sleep(at)
    p1 = progress(c)
    shot = vt.grab(c, OUT)
    p2 = progress(c)
    t.check(p1 is not None and p2 is not None and 0 < p1 <= p2 < 1,
            'the transition runs around the screenshot', f'progress {p1} then {p2}')
    return shot, p1 or 0.0, p2 or 0.0


def judge(measured, points, p1, p2, scale, slack, what):
    """measured (in units of scale) is the curve's, and not the straight line's when apart."""
    lo, hi = curve_range(points, p1, p2)
    t.check(lo * scale - slack <= measured <= hi * scale + slack,
            f'{what}: {measured:.3f} for the curve\'s {lo * scale:.3f} to {hi * scale:.3f} '
            f'(time {p1:.3f} to {p2:.3f})')
    # The straight line's window, widened by the same slack: when the two are apart, the
    # measurement must tell them apart.
    if hi * scale + slack < p1 * scale - slack or lo * scale - slack > p2 * scale + slack:
        t.check(not (p1 * scale - slack <= measured <= p2 * scale + slack),
                f'{what}: not the straight line\'s {p1 * scale:.3f} to {p2 * scale:.3f}')


def finish(c, expected, label):
    c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the transition ends', timeout=10)
    t.compare(c.settled_screenshot(OUT), expected, label, **EXACT)


def is_old(shot):
    return (shot == OLD).all(axis=2)


with t.compositor(outputs=1) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    with t.case('fade ease in'):
        pts = CURVES['in']
        start(c, 'fade 4000 ease in', 'fade', 'in', pts, to=c_png)
        time.sleep(1.5)
        p1 = progress(c)
        a, why = vt.blend_of(vt.grab(c, OUT), B, C)
        p2 = progress(c)
        t.check(a is not None and p1 is not None and p2 is not None,
                'a blend of the two pictures mid-fade', f'{why} progress {p1} {p2}')
        if a is not None and p1 is not None and p2 is not None:
            # 8-bit blending: a channel that changes by 130 moves a by under 0.01 a unit.
            judge(a, pts, p1, p2, 1.0, 0.02, 'the new picture\'s opacity')
        finish(c, flat(C), 'fade-in-end')

    with t.case('wipe with a cubic-bezier() in words split at spaces'):
        # Unquoted: sway cuts a command at commas, so the numbers are given with spaces.
        pts = (0.2, 0.9, 0.3, 1.0)
        start(c, 'wipe 4000 ease cubic-bezier(0.2 0.9 0.3 1)', 'wipe',
              'cubic-bezier(0.2,0.9,0.3,1)', pts)
        shot, p1, p2 = mid_shot(c)
        old = is_old(shot)
        revealed = W - int(old[0].sum())
        judge(revealed, pts, p1, p2, W, SLACK, 'the new picture\'s width')
        n = revealed
        t.check((shot[:, :n] == NEW[:, :n]).all() and old[:, n:].all(),
                'the new picture in its place from the left, the old one beyond')
        finish(c, NEW, 'wipe-bezier-end')

    with t.case('slide ease out, the curve quoted in one word'):
        pts = (0.0, 0.0, 0.58, 1.0)
        start(c, 'slide 4000 from right ease "cubic-bezier(0, 0, 0.58, 1)"', 'slide',
              'cubic-bezier(0,0,0.58,1)', pts)
        shot, p1, p2 = mid_shot(c)
        old = is_old(shot)
        d = int(old[0].sum())
        # The old picture still shows the distance the new one has to go: (1 - y) of the width.
        judge(W - d, pts, p1, p2, W, SLACK, 'the distance the new picture came')
        t.check((shot[:, d:] == NEW[:, :W - d]).all() and old[:, :d].all(),
                'the new picture moved in from the right, the old one beside it')
        finish(c, NEW, 'slide-out-end')

    with t.case('grow ease in-out'):
        pts = CURVES['in-out']
        start(c, 'grow 4000 ease in-out', 'grow', 'in-out', pts)
        shot, p1, p2 = mid_shot(c)
        old = is_old(shot)
        new = (shot == NEW).all(axis=2)
        t.check((old | new).all(), 'every pixel is the old picture or the new one in its place')
        far = math.hypot(W / 2, H / 2)
        # Across the centre's row the circle is its whole diameter (within the output).
        idx = np.flatnonzero(~old[H // 2])
        t.check(len(idx) > 0, 'the circle crosses the centre\'s row')
        if len(idx) > 0:
            radius = (idx[-1] + 1 - idx[0]) / 2
            judge(min(radius, W / 2), pts, p1, p2, far, SLACK, 'the circle\'s radius')
        finish(c, NEW, 'grow-in-out-end')

    with t.case('a curve beyond 1 holds the new picture whole'):
        pts = (0.3, 1.6, 0.7, 1.0)
        start(c, 'fade 4000 ease "cubic-bezier(0.3,1.6,0.7,1)"', 'fade',
              'cubic-bezier(0.3,1.6,0.7,1)', pts, to=c_png)
        # From a time fraction of about 0.35 the curve is above 1 until the end.
        time.sleep(2.0)
        p1 = progress(c)
        shot = vt.grab(c, OUT)
        tr = transition_of(c.veil(OUT)) or {}
        t.check(p1 is not None and 0.4 < p1 and tr.get('progress', 1) < 1 and
                tr.get('eased') == 1.0, 'mid-way the status says eased 1', f'{p1} {tr}')
        t.compare(shot, flat(C), 'overshoot-held', **EXACT)
        finish(c, flat(C), 'overshoot-end')

    with t.case('the default with a curve'):
        # 2 s, not 0.3: the status is polled for it, and a poll that comes late on a loaded
        # machine (two tests at a time) must still find it running.
        ok, err = c.msg(f'output {OUT} veil transition fade 2000 ease ease')
        t.check(ok, '`veil transition fade 2000 ease ease` accepted', err)
        c.msg(f'output {OUT} veil {vt.quote(c_png)} fill')
        seen = c.wait_until(lambda: transition_of(c.veil(OUT)), 'the default fade to run',
                            timeout=5, interval=0.01)
        t.check(seen.get('kind') == 'fade' and seen.get('ease') == 'ease',
                'the default\'s curve applies', str(seen))
        finish(c, flat(C), 'default-ease-end')
        c.msg(f'output {OUT} veil transition none')

    with t.case('bad curves change nothing'):
        c.msg(f'output {OUT} veil {vt.quote(old_png)} fill transition none')
        c.wait_veil(OUT, 'shown', file=old_png)
        for words, part in (
                ('fade ease bounce', "Unknown curve 'bounce'"),
                ('fade ease "cubic-bezier(1.5,0,0.5,1)"', 'x1 and x2 must be from 0 to 1'),
                ('wipe ease cubic-bezier(0.1 0.7 1)', "Invalid curve 'cubic-bezier(0.1 0.7 1)'"),
                # Unquoted commas: sway's command list is cut there; the first part fails.
                ('fade ease cubic-bezier(0.1,0.7,1,0.1)', "Invalid curve 'cubic-bezier(0.1'"),
                ('random from top', "Unexpected word 'from'")):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(new_png)} fill transition {words}')
            t.check(not ok and part in (err or ''), f'`transition {words}` refused', err)
            v = c.veil(OUT)
            t.check(v.get('file') == old_png and transition_of(v) is None,
                    'the wallpaper unchanged, no transition', str(v))
        t.compare(c.settled_screenshot(OUT), OLD, 'unchanged-after-bad-curves', **EXACT)

    with t.case('random picks a kind per change, never the last one again'):
        ok, err = c.msg(f'output {OUT} veil transition random 3000')
        t.check(ok, '`veil transition random 3000` accepted', err)
        kinds = []
        pictures = [(c_png, flat(C), C, B), (old_png, OLD, B, C)]
        for i in range(8):
            path, pixels, new_c, old_c = pictures[i % 2]
            c.msg(f'output {OUT} veil {vt.quote(path)} fill')
            v = c.wait_veil(OUT, 'shown', file=path)
            tr = transition_of(v) or {}
            kind = tr.get('kind')
            kinds.append(kind)
            t.check(kind in ('fade', 'wipe', 'grow', 'slide') and tr.get('random') is True,
                    f'change {i}: the status says random picked {kind}', str(tr))
            time.sleep(0.8)
            p1 = progress(c)
            shot = vt.grab(c, OUT)
            p2 = progress(c)
            if p1 is not None and p2 is not None and 0 < p1 <= p2 < 1:
                was_old = (shot == np.array(old_c, np.uint8)).all(axis=2)
                is_new = (shot == np.array(new_c, np.uint8)).all(axis=2)
                if kind == 'fade':
                    a, why = vt.blend_of(shot, old_c, new_c)
                    t.check(a is not None, f'change {i}: a fade shows a blend', why)
                else:
                    t.check((was_old | is_new).all() and was_old.any() and is_new.any(),
                            f'change {i}: a {kind} shows each picture whole in its part',
                            f'{int(was_old.sum())} old, {int(is_new.sum())} new of {W * H}')
            else:
                t.check(False, f'change {i}: the transition runs around the screenshot',
                        f'progress {p1} then {p2}')
            finish(c, pixels, f'random-{i}')
        t.check(all(a != b for a, b in zip(kinds, kinds[1:])), 'never the same kind twice',
                str(kinds))
        c.msg(f'output {OUT} veil transition none')

t.finish()
