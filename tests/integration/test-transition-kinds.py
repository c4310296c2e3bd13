#!/usr/bin/env python3
"""
The transitions that move or cut the new picture (grow, slide, wipe from each edge) and the
fade at a video's loop seam (loopfade), on one output of veil-tinywl (headless, pixman), set with
the real swaymsg and seen with grim.

Each transition runs long (4 s) and is judged mid-way: the status's progress is read before and
after a screenshot, and the boundary the screenshot shows must lie where the geometry puts it
for some progress between the two (computed here on its own: a circle's radius, a slide's offset,
a wipe's line), the pixels on each side exactly the old picture's or the new one's (moved for a
slide, in place for a wipe). The new picture is a gradient, so that a slide and a wipe differ.
"""
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('transition-kinds')
OUT = 'HEADLESS-1'
W, H = 1280, 720
EXACT = dict(tolerance=0, ignore_border=0)
# grow draws its circle as this many bands (module/core/transition/grow.c).
STRIPS = 48
SLACK = 2  # pixels of rounding on each side of a computed boundary
media = t.media

B = (200, 160, 40)


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


# At the output's size: unscaled, so that no filter touches an edge.
OLD = flat(B)
NEW = gradient()
old_png = vt.make_png(os.path.join(media, 'old.png'), OLD)
new_png = vt.make_png(os.path.join(media, 'new.png'), NEW)


def transition_of(v):
    return v.get('transition')


def progress(c):
    return (transition_of(c.veil(OUT)) or {}).get('progress')


def start(c, words, kind, **fields):
    """Shows old.png at once, then new.png with the transition; returns when it runs."""
    c.msg(f'output {OUT} veil {vt.quote(old_png)} fill transition none')
    c.wait_veil(OUT, 'shown', file=old_png)
    c.settled_screenshot(OUT)
    ok, err = c.msg(f'output {OUT} veil {vt.quote(new_png)} fill transition {words}')
    t.check(ok, f'`veil new.png fill transition {words}` accepted', err)
    v = c.wait_veil(OUT, 'shown', file=new_png)
    tr = transition_of(v) or {}
    t.check(tr.get('kind') == kind and all(tr.get(k) == v for k, v in fields.items()),
            f'the status says {kind} {fields}', str(tr))


def mid_shot(c, at=1.5):
    """A screenshot at about `at` s into a 4 s transition, between two progress readings."""
    time.sleep(at)
    p1 = progress(c)
    shot = vt.grab(c, OUT)
    p2 = progress(c)
    t.check(p1 is not None and p2 is not None and 0 < p1 <= p2 < 1,
            'the transition runs around the screenshot', f'progress {p1} then {p2}')
    return shot, p1 or 0.0, p2 or 0.0


def finish(c, label):
    c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the transition ends', timeout=10)
    t.compare(c.settled_screenshot(OUT), NEW, label, **EXACT)


def is_old(shot):
    return (shot == OLD).all(axis=2)


def within(value, lo, hi, slack=SLACK):
    return lo - slack <= value <= hi + slack


def run_of_new(row_is_old):
    """The [first, last+1) of the pixels that are not old along a line, or None."""
    idx = np.flatnonzero(~row_is_old)
    if len(idx) == 0:
        return None
    return int(idx[0]), int(idx[-1]) + 1


def check_grow(c, words, cx, cy, label, at):
    start(c, words, 'grow', at=at)
    shot, p1, p2 = mid_shot(c)
    old = is_old(shot)
    new = (shot == NEW).all(axis=2)
    t.check((old | new).all(), 'every pixel is the old picture or the new one in its place',
            f'{int((~(old | new)).sum())} pixels of neither')
    far = math.hypot(max(cx, W - cx), max(cy, H - cy))
    r1, r2 = p1 * far, p2 * far
    # Across the centre's row: the circle's diameter (cut by the output's edges).
    run = run_of_new(old[int(cy)])
    lo = (max(0, cx - r2), min(W, cx + r1))
    hi = (max(0, cx - r1), min(W, cx + r2))
    t.check(run is not None and within(run[0], *lo) and within(run[1], *hi),
            f'row {cy}: the new picture from {run} (radius {r1:.0f} to {r2:.0f})',
            f'expected from {lo[0]:.0f}..{hi[0]:.0f} to {lo[1]:.0f}..{hi[1]:.0f}')
    # Down the centre's column: the same, within a band's height.
    band = math.ceil(min(H, cy + r2) - max(0, cy - r2)) / STRIPS + 1
    col = run_of_new(old[:, int(cx)])
    t.check(col is not None and within(col[0], max(0, cy - r2), max(0, cy - r1), band + SLACK)
            and within(col[1], min(H, cy + r1), min(H, cy + r2), band + SLACK),
            f'column {cx}: the new picture from {col} (radius {r1:.0f} to {r2:.0f}, bands of '
            f'{band:.0f})')
    # A circle, not a square: half way up, the chord is the circle's.
    y = int(cy - r1 / 2)
    if 0 <= y < H:
        run = run_of_new(old[y])
        half = (math.sqrt(max(0.0, r1 * r1 - (cy - y) ** 2)),
                math.sqrt(max(0.0, r2 * r2 - (cy - y) ** 2)))
        slack = band + SLACK
        t.check(run is not None and within(run[0], max(0, cx - half[1]), max(0, cx - half[0]),
                                           slack) and
                within(run[1], min(W, cx + half[0]), min(W, cx + half[1]), slack),
                f'row {y}: a chord of the circle {run}',
                f'half width {half[0]:.0f} to {half[1]:.0f}')
    # Outside the circle's bounding box the old picture is whole.
    box = old.copy()
    y0, y1 = int(max(0, cy - r2 - band - SLACK)), int(min(H, cy + r2 + band + SLACK))
    x0, x1 = int(max(0, cx - r2 - SLACK)), int(min(W, cx + r2 + SLACK))
    box[y0:y1, x0:x1] = True
    t.check(box.all(), 'the old picture outside the circle')
    finish(c, label)


def check_slide(c, side, label):
    start(c, f'slide 4000 from {side}', 'slide', **{'from': side})
    shot, p1, p2 = mid_shot(c)
    old = is_old(shot)
    horizontal = side in ('left', 'right')
    size = W if horizontal else H
    # How far the new picture still has to go: the old picture shows that much.
    lo, hi = (1 - p2) * size, (1 - p1) * size
    line = old[0] if horizontal else old[:, 0]
    shown = int(line.sum())
    t.check(within(shown, lo, hi), f'{shown} px of the old picture left (expected '
            f'{lo:.0f} to {hi:.0f})')
    d = shown
    if side == 'right':
        ok = (shot[:, d:] == NEW[:, :W - d]).all() and old[:, :d].all()
    elif side == 'left':
        ok = (shot[:, :W - d] == NEW[:, d:]).all() and old[:, W - d:].all()
    elif side == 'bottom':
        ok = (shot[d:] == NEW[:H - d]).all() and old[:d].all()
    else:
        ok = (shot[:H - d] == NEW[d:]).all() and old[H - d:].all()
    t.check(ok, f'from {side}: the new picture moved in by {size - d} px, the old one beside it')
    finish(c, label)


def check_wipe(c, side, label):
    start(c, f'wipe 4000 from {side}', 'wipe', **{'from': side})
    shot, p1, p2 = mid_shot(c)
    old = is_old(shot)
    horizontal = side in ('left', 'right')
    size = W if horizontal else H
    lo, hi = p1 * size, p2 * size
    line = old[0] if horizontal else old[:, 0]
    revealed = size - int(line.sum())
    t.check(within(revealed, lo, hi), f'{revealed} px of the new picture (expected {lo:.0f} '
            f'to {hi:.0f})')
    n = revealed
    if side == 'left':
        new_part, old_part = (slice(None), slice(0, n)), (slice(None), slice(n, W))
    elif side == 'right':
        new_part, old_part = (slice(None), slice(W - n, W)), (slice(None), slice(0, W - n))
    elif side == 'top':
        new_part, old_part = (slice(0, n), slice(None)), (slice(n, H), slice(None))
    else:
        new_part, old_part = (slice(H - n, H), slice(None)), (slice(0, H - n), slice(None))
    t.check((shot[new_part] == NEW[new_part]).all() and old[old_part].all(),
            f'from {side}: the new picture in its place from that edge, the old one beyond')
    finish(c, label)


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    with t.case('grow from the centre'):
        check_grow(c, 'grow 4000', W / 2, H / 2, 'grow-centre', '50% 50%')

    with t.case('grow from a point'):
        check_grow(c, 'grow 4000 at 320 180', 320, 180, 'grow-point', '320 180')

    with t.case('grow from a point in percent'):
        check_grow(c, 'grow 4000 at 90% 75%', W * 0.9, H * 0.75, 'grow-percent',
                   '90% 75%')

    for side in ('right', 'left', 'top', 'bottom'):
        with t.case(f'slide from {side}'):
            check_slide(c, side, f'slide-{side}')

    for side in ('right', 'top', 'bottom'):
        with t.case(f'wipe from {side}'):
            check_wipe(c, side, f'wipe-{side}')

    with t.case('a video grows in: every band plays it'):
        # Two colours 0.4 s each, at the output's size; flat, so each band's colour says which
        # frame it shows.
        FX, FY = (220, 30, 30), (30, 30, 220)
        flicker = vt.make_colour_clip(os.path.join(media, 'flicker.mp4'), [('X', FX), ('Y', FY)],
                                      15, 0.4, ['-c:v', 'libx264', '-preset', 'veryfast',
                                                '-pix_fmt', 'yuv420p'], size=(W, H))
        c.msg(f'output {OUT} veil {vt.quote(old_png)} fill transition none')
        c.wait_veil(OUT, 'shown', file=old_png)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(flicker)} fill transition grow 5000')
        t.check(ok, '`veil flicker.mp4 fill transition grow 5000` accepted', err)
        c.wait_veil(OUT, 'shown', file=flicker)
        time.sleep(1.5)
        seen = set()
        mixed = []
        for _ in range(10):
            shot = vt.grab(c, OUT).astype(int)
            inside = ~(shot == np.array(B)).all(axis=2)
            # The centre's band is the output's own nodes; the rows above and below are
            # copies: the same frame on all of them.
            rows = [r for r in range(0, H, 8) if inside[r].sum() > 16]
            names = set()
            line = ''
            for r in rows:
                mean = shot[r][inside[r]].mean(axis=0)
                dx, dy = np.abs(mean - FX).max(), np.abs(mean - FY).max()
                names.add('X' if dx < dy else 'Y')
                line += 'X' if dx < dy else 'Y'
            if len(names) > 1:
                mixed.append((rows[0], line))
            elif len(rows) >= 10:
                seen |= names
            time.sleep(0.15)
        t.check(seen == {'X', 'Y'}, 'the circle shows the video playing', f'saw {sorted(seen)}')
        # The output's nodes and the copies get each frame in the same dispatch: no screenshot
        # shows two frames.
        t.check(not mixed, 'every band shows the same frame', str(mixed))
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the grow ends', timeout=10)

    with t.case('a default with a side'):
        # 2 s, not 0.3: the status is polled for it, and a poll that comes late on a loaded
        # machine (two tests at a time) must still find it running.
        ok, err = c.msg(f'output {OUT} veil transition slide 2000 from top')
        t.check(ok, '`veil transition slide 2000 from top` accepted', err)
        c.msg(f'output {OUT} veil {vt.quote(old_png)} fill')
        seen = c.wait_until(lambda: transition_of(c.veil(OUT)), 'the default slide to run',
                            timeout=5, interval=0.01)
        t.check(seen.get('kind') == 'slide', 'the default applies', str(seen))
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the slide ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), OLD, 'old-default', **EXACT)
        c.msg(f'output {OUT} veil transition none')

    with t.case('errors'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(new_png)} fill transition wipe from up')
        t.check(not ok and 'from where' in (err or ''), 'an unknown side refused', err)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(new_png)} fill transition grow at 5')
        t.check(not ok and 'at where' in (err or ''), 'a point without y refused', err)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(new_png)} fill loopfade soon')
        t.check(not ok and 'loopfade' in (err or ''), 'a bad loopfade refused', err)
        v = c.veil(OUT)
        t.check(v.get('file') == old_png, 'a refused command changes nothing', str(v))

    # A clip whose last frame (Y) differs from its first (X): 1 s of X then 1 s of Y.
    X, Y = (220, 30, 30), (30, 30, 220)
    clip = vt.make_colour_clip(os.path.join(media, 'seam.mp4'), [('X', X), ('Y', Y)], 15, 1.0,
                               ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'],
                               size=(320, 180))

    def fit(shot):
        """(a, error) of the centre's mean as Y*(1-a) + X*a: 0 is Y (the held frame), 1 X."""
        p = shot[H // 4:3 * H // 4, W // 4:3 * W // 4].reshape(-1, 3).mean(axis=0)
        y, x = np.array(Y, float), np.array(X, float)
        a = float(np.dot(p - y, x - y) / np.dot(x - y, x - y))
        return a, float(np.abs(y * (1 - a) + x * a - p).max())

    def sample(seconds):
        """
        (status transition after, a, error, loops, status transition before) about every
        50 ms: the screenshot shows a moment between the two readings.
        """
        out = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            before = transition_of(c.veil(OUT))
            shot = vt.grab(c, OUT)
            v = c.veil(OUT)
            a, err = fit(shot)
            out.append((transition_of(v), a, err, v.get('source', {}).get('loops', 0), before))
            time.sleep(0.03)
        return out

    with t.case('a video without loopfade cuts at its seam'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill')
        t.check(ok, '`veil seam.mp4 fill` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=clip)
        t.check(v.get('loopfade') is None, 'no loopfade in the status', str(v.get('loopfade')))
        samples = sample(4.5)
        t.check(all(s[0] is None and s[4] is None for s in samples), 'no transition at the seams')
        blends = [round(s[1], 2) for s in samples if s[2] < 12 and 0.1 < s[1] < 0.9]
        t.check(not blends, 'every sample X or Y', f'blends {blends}')
        t.check(samples[-1][3] >= 2, f'it looped ({samples[-1][3]} loops)')

    with t.case('loopfade fades the last frame into the first'):
        threads0 = vt.thread_count(pid)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill loopfade 800')
        t.check(ok, '`veil seam.mp4 fill loopfade 800` accepted', err)
        v = c.wait_until(lambda: c.veil(OUT).get('loopfade') == 800 and c.veil(OUT),
                         'the status says loopfade 800', timeout=5)
        t.check(v.get('file') == clip, 'the same file shows', str(v))
        samples = sample(8.0)
        def kind(tr):
            return (tr or {}).get('kind')

        # Within one fade: the readings before and after the screenshot.
        fading = [s for s in samples if kind(s[0]) == 'loopfade' and kind(s[4]) == 'loopfade'
                  and s[4]['progress'] <= s[0]['progress']]
        t.check(len(fading) >= 2, f'{len(fading)} samples during loopfades')
        # Mid-fade: the held last frame (Y) under the first frames (X), a strictly between.
        mixes = [(round(s[4]['progress'], 2), round(s[1], 2), round(s[0]['progress'], 2))
                 for s in fading if s[2] < 16 and 0.08 < s[1] < 0.92]
        t.check(len(mixes) >= 2, 'mid-fade the screen is a mix of the last frame and the first',
                f'(progress, a, error) of the samples during fades: '
                f'{[(round(s[0]["progress"], 2), round(s[1], 2), round(s[2])) for s in fading]}')
        # The mix follows the fade's progress, read before and after the screenshot.
        t.check(all(p1 - 0.05 <= a <= p2 + 0.05 for p1, a, p2 in mixes),
                'a follows the progress', str(mixes))
        # A seam is never a cut: a sample right after a loop started is not pure X.
        loops = sorted({s[3] for s in samples})
        t.check(len(loops) >= 3, f'it looped during the samples ({loops})')
        outside = [s for s in samples if s[0] is None and s[4] is None]
        t.check(all(s[2] < 16 and (s[1] < 0.08 or s[1] > 0.92) for s in outside),
                'outside the fades, X or Y only',
                str([(round(s[1], 2), round(s[2])) for s in outside
                     if not (s[1] < 0.08 or s[1] > 0.92)]))
        t.check(vt.thread_count(pid) <= threads0 + 2, 'no second decoder',
                f'{threads0} threads then {vt.thread_count(pid)}')

    with t.case('a command during a loopfade'):
        c.wait_until(lambda: (transition_of(c.veil(OUT)) or {}).get('kind') == 'loopfade',
                     'a loopfade', timeout=5, interval=0.01)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(old_png)} fill')
        t.check(ok, 'a still during a loopfade accepted', err)
        c.wait_veil(OUT, 'shown', file=old_png)
        t.check(transition_of(c.veil(OUT)) is None, 'the loopfade ended')
        t.compare(c.settled_screenshot(OUT), OLD, 'old-after-loopfade', **EXACT)
        t.check(c.veil(OUT).get('loopfade') is None, 'a still has no loopfade')

t.finish()
