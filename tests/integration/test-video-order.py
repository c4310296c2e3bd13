#!/usr/bin/env python3
"""
A clip of solid colours, one a second (red, green, blue, yellow, 10 fps, 64x48 H.264), shown
in stretch: the colours grim sees are the clip's, in its order, across loop boundaries (yellow
is followed by red again), and the loop counter rises with the wraps seen on the screen. Pause
freezes the picture over more than one colour's time and resume goes on with the next colour;
`veil off` takes it away (the screen is as before any wallpaper) and the pipeline's threads and
descriptors go with it.

What test-video.py covers (pixels against ffmpeg's decode, counters, pause of a still-looking
clip, power off/on) is not repeated. No check depends on wall-clock time: samples are ordered,
and a colour missed between two samples is accepted only when the samples are more than one
colour's time apart (a loaded machine), and said.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video-order')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
FPS = 10
COLOURS = [('red', (220, 40, 40)), ('green', (40, 200, 40)), ('blue', (40, 40, 220)),
           ('yellow', (220, 200, 40))]
SECONDS_EACH = 1.0
LOOP = SECONDS_EACH * len(COLOURS)
# A shown frame is within this of its colour in every channel (4:2:0, limited range, H.264).
COLOUR_TOLERANCE = 24


clip = vt.make_colour_clip(
    os.path.join(t.media, 'colours-64x48.mp4'), COLOURS, FPS, SECONDS_EACH,
    ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '10', '-g', str(FPS), '-bf', '0',
     '-pix_fmt', 'yuv420p', '-movflags', '+faststart'])


def classify(img):
    """The index of the colour the middle of the screen shows, or None, and its mean pixel."""
    return vt.classify_colour(img, COLOURS, COLOUR_TOLERANCE)


def counters(c):
    v = c.veil(OUT)
    src = v.get('source') or {}
    return v.get('frames', 0), src.get('frames', 0), src.get('loops', 0)


def name(i):
    return COLOURS[i][0] if i is not None else 'none'


def sample(c, seconds_of_clip):
    """
    Screenshots and loop counters until the clip has looped seconds_of_clip / LOOP more times
    (by its own counter, not by the clock): [(monotonic time, colour index, mean, loops)].
    """
    loops0 = counters(c)[2]
    want = loops0 + int(seconds_of_clip / LOOP)
    out = []
    deadline = time.monotonic() + vt.WAIT_TIMEOUT + seconds_of_clip
    while True:
        now = time.monotonic()
        idx, mean = classify(vt.grab(c, OUT))
        loops = counters(c)[2]
        out.append((now, idx, mean, loops))
        if loops >= want and len(out) > 4:
            # One more colour change after the last counted loop, so that it is on screen.
            if len({s[1] for s in out if s[3] == loops}) >= 2:
                return out
        if now > deadline:
            raise vt.Failure(f'the clip did not loop {want - loops0} times in '
                             f'{vt.WAIT_TIMEOUT + seconds_of_clip:.0f} s (loops {loops})')


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    with t.case('before any wallpaper'):
        empty = c.settled_screenshot(OUT)
        idx, mean = classify(empty)
        t.check(idx is None, 'the screen shows none of the clip colours yet', str(mean))
        threads0 = vt.proc_threads(pid)
        fds0 = vt.fd_count(pid)
        vt._say(f'   {len(threads0)} threads, {fds0} descriptors')

    with t.case('colours in order across loops'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} stretch')
        t.check(ok, '`veil colours.mp4 stretch` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=clip)
        t.check(v.get('kind') == 'video', 'status kind video', str(v.get('kind')))
        t.check(v.get('source_size') == {'width': 64, 'height': 48}, 'source_size 64x48',
                str(v.get('source_size')))
        # Two full loops and a bit: the wrap from the last colour to the first, twice.
        samples = sample(c, 2 * LOOP)
        unknown = [s for s in samples if s[1] is None]
        t.check(not unknown, f'each of {len(samples)} screenshots shows one of the clip colours',
                f'{len(unknown)} do not, e.g. mean {unknown[0][2] if unknown else ""}')
        seen = [s for s in samples if s[1] is not None]
        # Runs of one colour: (colour, first sample, last sample).
        runs = vt.colour_runs(seen)
        vt._say('   colours seen: ' + ' '.join(name(r[0]) for r in runs))
        bad, explained, wraps = [], [], 0
        for a, b in zip(runs, runs[1:]):
            step = (b[0] - a[0]) % len(COLOURS)
            gap = b[1][0] - a[2][0]  # between the last sample of one and the first of the next
            if step == 1:
                if b[0] == 0:
                    wraps += 1
                continue
            if gap > SECONDS_EACH * (step - 1) * 0.9:
                # Samples too far apart to see every colour: the order still must go forward.
                explained.append(f'{name(a[0])}->{name(b[0])} ({gap:.2f} s between samples)')
                if b[0] < a[0] or b[0] == 0:
                    wraps += 1
                continue
            bad.append(f'{name(a[0])}->{name(b[0])} within {gap:.2f} s')
        if explained:
            vt._say('   colours missed between samples far apart: ' + ', '.join(explained))
        t.check(not bad, 'each colour is followed by the next one of the clip',
                '; '.join(bad))
        t.check(len({r[0] for r in runs}) == len(COLOURS), 'all four colours were seen',
                ' '.join(name(r[0]) for r in runs))
        t.check(wraps >= 2, 'the last colour is followed by the first at least twice '
                '(order across the loop boundary)', f'{wraps} wraps seen')
        loops_seen = samples[-1][3] - samples[0][3]
        t.check(abs(wraps - loops_seen) <= 1, 'the loop counter rose with the wraps on screen',
                f'counter +{loops_seen}, wraps seen {wraps}')
        after = {s[1] for s in seen if s[3] >= samples[0][3] + 2}
        t.check(len(after) >= 2, 'the picture still changes after two loops',
                f'colours after the second loop: {[name(i) for i in after]}')
        t.check(c.veil(OUT).get('error') is None, 'no error', str(c.veil(OUT).get('error')))

    with t.case('pause freezes across colour changes, resume goes on'):
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, '`veil pause` accepted', err)
        c.wait_veil(OUT, 'paused')
        last = [None]

        def still():
            cur = counters(c)[:2]
            same = cur == last[0]
            last[0] = cur
            return same
        c.wait_until(still, 'the frame counters to stop', interval=0.5)
        a = counters(c)
        first = vt.grab(c, OUT)
        idx_paused, mean = classify(first)
        t.check(idx_paused is not None, 'paused on one of the clip colours', str(mean))
        # Longer than two colours' time, checked throughout.
        changed = 0
        deadline = time.monotonic() + 2.5 * SECONDS_EACH
        n = 0
        while time.monotonic() < deadline:
            n += 1
            if not np.array_equal(vt.grab(c, OUT), first):
                changed += 1
            time.sleep(0.1)
        b = counters(c)
        t.check(changed == 0, f'the screen stays pixel-identical while paused ({n} shots)',
                f'{changed} differ')
        t.check(a[:2] == b[:2], 'no frame decoded or shown while paused', f'{a} -> {b}')
        ok, err = c.msg(f'output {OUT} veil resume')
        t.check(ok, '`veil resume` accepted', err)
        c.wait_veil(OUT, 'shown')

        def next_colour():
            i, _ = classify(vt.grab(c, OUT))
            return (i,) if i is not None and i != idx_paused else None
        nxt, = c.wait_until(next_colour, 'the colour to change after resume', interval=0.05)
        t.check(nxt == (idx_paused + 1) % len(COLOURS),
                'the colour after resume is the one after the paused colour',
                f'paused on {name(idx_paused)}, then {name(nxt)}')
        t.check(counters(c)[1] > b[1], 'decoding again after resume', f'{b} -> {counters(c)}')

    with t.case('off removes it'):
        ok, err = c.msg(f'output {OUT} veil off')
        t.check(ok, '`veil off` accepted', err)
        v = c.wait_veil(OUT, 'off')
        t.check(v.get('kind') == 'off' and v.get('file') is None,
                'status: kind off, no file', str(v))
        shot = c.settled_screenshot(OUT)
        t.compare(shot, empty, 'after-off-as-before', tolerance=0, ignore_border=0)
        f = v.get('frames')
        time.sleep(0.5)
        t.check(c.veil(OUT).get('frames') == f, 'no frame shown after off',
                f'{f} -> {c.veil(OUT).get("frames")}')
        # GLib's pool-spawner thread, made the first time a GThreadPool is used, stays for good;
        # so do veil's workers, started by the first load.
        def new_threads():
            return {tid: name for tid, (name, _) in vt.proc_threads(pid).items()
                    if tid not in threads0 and name not in ('pool-spawner', 'veil-worker')}
        def none_left():
            left = new_threads()
            if left:
                raise RuntimeError(f'still there: {left}')  # wait_until shows the last one
            return True
        c.check_until(none_left, 'the pipeline threads are gone', timeout=30)
        c.check_until(lambda: vt.fd_count(pid) <= fds0,
                      f'the pipeline descriptors are closed (back to {fds0})', timeout=30)
        t.check(c.responsive(), 'the compositor answers IPC')

t.finish()
