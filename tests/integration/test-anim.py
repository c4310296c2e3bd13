#!/usr/bin/env python3
"""
Animated GIF, APNG, WebP and JPEG XL played by veil (source/anim_source.c), with media written
in the test (veiltest/anim.py for GIF and APNG byte by byte, ffmpeg's libwebp_anim for WebP, cjxl's
encoding of an APNG for JPEG XL):

- a GIF of mixed delays (red and blue 100 ms, green and yellow 500 ms): the colours grim sees
  come in the file's order, the long ones stay on screen longer than any short one can, and
  the frame counter rises by the file's rate (frames per loop over the loop's length);
- an APNG and a WebP playing twice (their loop counts): colours in order, then the last
  frame stays ("finished"), the counters stop; a GIF without a loop extension plays once; a
  looping JPEG XL: colours in order, its status naming libjxl;
- transparency: half-transparent and transparent pixels over the setting's colour, blended as
  computed here, for an APNG and a GIF (its transparent index);
- memory: a long GIF (larger than the 64 MiB budget decoded) is decoded on the fly, a few
  frames kept, and the compositor's resident memory grows by less than the budget; a short
  one keeps every frame;
- pause: `veil pause` stops the frame counter and the picture; under a fullscreen client
  (waylandsink) the source is paused: no frame, no timer wake-up, and it plays on after;
- shared: two outputs showing one file have one source (outputs 2, the same counters);
- a truncated GIF and an APNG whose frame lies outside its canvas fail with a sentence naming
  the file and the wallpaper on screen stays; a truncated WebP is refused at once.

Timing is judged from ordered samples and the counters, with bounds a loaded machine meets.
"""
import os
import subprocess
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from veiltest import anim as animlib  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('anim')
OUT = 'HEADLESS-1'
# A small output: grim captures it quickly enough to see 100 ms frames on a loaded machine.
W, H = 320, 240
COLOURS = [('red', (220, 40, 40)), ('green', (40, 200, 40)), ('blue', (40, 40, 220)),
           ('yellow', (220, 200, 40))]
TOL = 12  # GIF and APNG are lossless; WebP lossy at quality 95 on flat colours
FW, FH = 64, 48


def media(name, data):
    path = os.path.join(t.media, name)
    with open(path, 'wb') as f:
        f.write(data)
    os.chmod(path, 0o644)
    return path


def colour_gif(delays_cs, loop=0):
    palette = [c for _, c in COLOURS]
    frames = [{'indices': np.full((FH, FW), i, np.uint8), 'delay_cs': d}
              for i, d in enumerate(delays_cs)]
    return animlib.gif(FW, FH, palette, frames, loop=loop)


def colour_apng(delay_ms, plays):
    frames = [{'rgba': animlib.solid(FW, FH, c), 'delay_ms': delay_ms} for _, c in COLOURS]
    return animlib.apng(FW, FH, frames, plays=plays)


def colour_webp(path, seconds_each, loop):
    """ffmpeg: each colour for seconds_each (10 fps input), lossy WebP, loop count loop."""
    fps = 10
    frames = []
    for _, c in COLOURS:
        frames += [np.broadcast_to(np.array(c, np.uint8), (FH, FW, 3))] * \
            int(round(fps * seconds_each))
    vt._ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{FW}x{FH}', '-r', str(fps),
                '-i', '-', '-c:v', 'libwebp_anim', '-lossless', '1', '-loop', str(loop), path],
               input=np.ascontiguousarray(np.stack(frames)).tobytes())
    os.chmod(path, 0o644)
    return path


def classify(img):
    return vt.classify_colour(img, COLOURS, TOL)


def name(i):
    return COLOURS[i][0] if i is not None else 'none'


def src(c, out=OUT):
    return c.veil(out).get('source') or {}


def sample(c, seconds):
    """[(time, colour index, mean, source frames)] for seconds, as fast as grim goes."""
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = time.monotonic()
        idx, mean = classify(vt.grab(c, OUT))
        out.append((now, idx, mean))
    return out


def check_order(runs, what, durations):
    """
    Each run's colour is the next one of the file, unless the samples around a skip are far
    enough apart (more than the skipped frames' durations) to have missed them: said, not failed.
    """
    bad, missed = [], []
    for a, b in zip(runs, runs[1:]):
        step = (b[0] - a[0]) % len(COLOURS)
        if step == 1:
            continue
        gap = b[1][0] - a[2][0]
        skipped = sum(durations[(a[0] + k) % len(COLOURS)] for k in range(1, step or 4))
        if gap > 0.9 * skipped:
            missed.append(f'{name(a[0])}->{name(b[0])} ({gap:.2f} s between samples)')
        else:
            bad.append(f'{name(a[0])}->{name(b[0])} within {gap:.2f} s')
    if missed:
        vt._say('   missed between samples far apart: ' + ', '.join(missed))
    t.check(not bad, f'{what}: each colour is followed by the next one', '; '.join(bad))


def settled_counter(c, out=OUT):
    return c.settled('the frame counter', lambda: src(c, out).get('frames'))


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
    with t.case('gif with mixed delays'):
        # red 100 ms, green 500 ms, blue 100 ms, yellow 500 ms: 1.2 s a loop, for ever.
        path = media('mixed.gif', colour_gif([10, 50, 10, 50]))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch')
        t.check(ok, '`veil mixed.gif stretch` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=path)
        s = v.get('source') or {}
        anim = s.get('animation') or {}
        t.check(v.get('kind') == 'video', 'status kind video (it moves)', str(v.get('kind')))
        t.check(s.get('decoder') == 'giflib', 'decoder giflib', str(s.get('decoder')))
        t.check(anim.get('format') == 'gif' and anim.get('frames') == 4 and
                anim.get('plays') == 0, 'animation: gif, 4 frames, plays for ever', str(anim))
        f0, t0 = src(c).get('frames', 0), time.monotonic()
        samples = sample(c, 3.7)
        f1, t1 = src(c).get('frames', 0), time.monotonic()
        runs = vt.colour_runs(samples)
        vt._say('   runs: ' + ' '.join(f'{name(r[0])}:{r[2][0] - r[1][0]:.2f}' for r in runs))
        unknown = [s for s in samples if s[1] is None]
        t.check(not unknown, f'each of {len(samples)} screenshots shows one of the colours',
                f'{len(unknown)} do not, e.g. {unknown[0][2] if unknown else ""}')
        check_order(runs, 'gif', [0.1, 0.5, 0.1, 0.5])
        inner = runs[1:-1]  # the first and last runs are cut by the sampling window
        long_spans = [r[2][0] - r[1][0] for r in inner if r[0] in (1, 3)]
        short_spans = [r[2][0] - r[1][0] for r in inner if r[0] in (0, 2)]
        t.check(long_spans and max(long_spans) >= 0.3,
                'a 500 ms frame stays on screen at least 300 ms', str(long_spans))
        t.check(not short_spans or max(short_spans) <= 0.3,
                'a 100 ms frame is never seen for more than 300 ms', str(short_spans))
        rate = (f1 - f0) / (t1 - t0)
        t.check(4 / 1.2 * 0.6 <= rate <= 4 / 1.2 * 1.25,
                f'frame counter rises at the file\'s rate ({4 / 1.2:.2f}/s)',
                f'{rate:.2f}/s ({f1 - f0} frames in {t1 - t0:.2f} s)')
        t.check(s.get('loops', 0) <= src(c).get('loops', 0), 'loops counted', '')

    with t.case('pause freezes the animation'):
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, '`veil pause` accepted', err)
        c.wait_veil(OUT, 'paused')
        n = settled_counter(c)
        first = vt.grab(c, OUT)
        time.sleep(1.5)
        t.check(src(c).get('frames') == n, 'no frame while paused',
                f'{n} -> {src(c).get("frames")}')
        t.check(np.array_equal(vt.grab(c, OUT), first), 'the picture stays while paused')
        t.check(src(c).get('state') == 'paused', 'source state paused', str(src(c)))
        ok, err = c.msg(f'output {OUT} veil resume')
        t.check(ok, '`veil resume` accepted', err)
        c.check_until(lambda: src(c).get('frames', 0) > n, 'frames again after resume')

    with t.case('covered by a fullscreen client: no frame, no wake-up'):
        log = t.path('fullscreen-client.log')
        with vt.fullscreen_client(c, log, (0x18, 0xc0, 0x40), W, H) as client:
            def covered():
                vt.require_running(client, log)
                return c.veil(OUT).get('state') == 'hidden'
            if c.check_until(covered, 'state hidden under a fullscreen client'):
                t.check(src(c).get('outputs') == 0 and src(c).get('state') == 'paused',
                        'the source has no viewer and is paused', str(src(c)))
                a = src(c)
                time.sleep(1.5)
                b = src(c)
                t.check(a.get('frames') == b.get('frames') and
                        a.get('wakeups') == b.get('wakeups'),
                        'no frame and no timer wake-up while covered (1.5 s)',
                        f'{a.get("frames")}/{a.get("wakeups")} -> '
                        f'{b.get("frames")}/{b.get("wakeups")}')
        c.check_until(lambda: c.veil(OUT).get('state') == 'shown', 'shown again without it')
        n = src(c).get('frames', 0)
        c.check_until(lambda: src(c).get('frames', 0) > n + 2, 'it plays on')

    for kind in ('apng', 'webp'):
        with t.case(f'{kind} colours in order, plays twice, stops on the last'):
            if kind == 'apng':
                path = media('twice.png', colour_apng(300, plays=2))
            else:
                if 'webp' not in vt.still_decoders():
                    t.fail('veil built without libwebp: animated WebP is not played')
                    continue
                path = colour_webp(os.path.join(t.media, 'twice.webp'), 0.3, loop=2)
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch')
            t.check(ok, f'`veil twice.{kind}` accepted', err)
            c.wait_veil(OUT, 'shown', file=path)
            samples = sample(c, 3.2)
            runs = vt.colour_runs(samples)
            vt._say('   runs: ' + ' '.join(name(r[0]) for r in runs))
            check_order(runs, kind, [0.3] * 4)
            t.check(runs and runs[-1][0] == 3, 'the last colour seen is the last frame',
                    name(runs[-1][0]) if runs else 'none')
            final = c.check_until(lambda: src(c).get('state') == 'finished' and src(c),
                                  'source state finished after two plays', timeout=10)
            if final:
                anim = final.get('animation') or {}
                t.check(anim.get('plays') == 2 and anim.get('frames') == 4,
                        'animation: 4 frames, plays 2', str(anim))
                t.check(final.get('loops') == 2 and final.get('frames') == 8,
                        'two plays of four frames shown', str(final))
            idx, mean = classify(vt.grab(c, OUT))
            t.check(idx == 3, 'the last frame (yellow) stays on screen', str(mean))
            time.sleep(1.0)
            idx, mean = classify(vt.grab(c, OUT))
            t.check(idx == 3 and src(c).get('frames') == (final or {}).get('frames'),
                    'still the last frame a second later, no frame more', str(mean))

    with t.case('jxl colours in order, played by libjxl'):
        # cjxl's encoding of the APNG (lossless): it writes no loop count, so it loops.
        jxl = os.path.join(t.media, 'loop.jxl')
        r = subprocess.run(['cjxl', '-d', '0', media('loop.png', colour_apng(300, plays=0)),
                            jxl], capture_output=True, timeout=120)
        if r.returncode != 0:
            raise vt.Failure(f'cjxl: {r.stderr.decode(errors="replace")}')
        os.chmod(jxl, 0o644)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(jxl)} stretch')
        t.check(ok, '`veil loop.jxl` accepted', err)
        c.wait_veil(OUT, 'shown', file=jxl)
        runs = vt.colour_runs(sample(c, 2.6))
        vt._say('   runs: ' + ' '.join(name(r[0]) for r in runs))
        check_order(runs, 'jxl', [0.3] * 4)
        t.check(len({r[0] for r in runs}) == 4, 'jxl: all four colours seen',
                ' '.join(name(r[0]) for r in runs))
        s = src(c)
        t.check(s.get('decoder') == 'libjxl' and
                (s.get('animation') or {}).get('frames') == 4 and
                (s.get('animation') or {}).get('plays') == 0,
                'libjxl, 4 frames, plays 0 (for ever)', str(s))

    with t.case('a GIF without a loop extension plays once'):
        path = media('once.gif', colour_gif([30, 30, 30, 30], loop=None))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch')
        t.check(ok, '`veil once.gif` accepted', err)
        c.wait_veil(OUT, 'shown', file=path)
        final = c.check_until(lambda: src(c).get('state') == 'finished' and src(c),
                              'finished after one play', timeout=10)
        if final:
            t.check((final.get('animation') or {}).get('plays') == 1 and
                    final.get('frames') == 4 and final.get('decoder') == 'giflib',
                    'giflib, plays 1, four frames shown', str(final))
        idx, mean = classify(vt.grab(c, OUT))
        t.check(idx == 3, 'the last frame (yellow) stays', str(mean))

    with t.case('transparency over the colour'):
        colour = '#2040c0'
        # Left third transparent, middle third red at alpha 128, right third opaque green.
        rgba = np.zeros((FH, 3 * 20, 4), np.uint8)
        rgba[:, 20:40] = (255, 0, 0, 128)
        rgba[:, 40:] = (0, 255, 0, 255)
        frames = [{'rgba': rgba, 'delay_ms': 500}, {'rgba': rgba, 'delay_ms': 500}]
        path = media('alpha.png', animlib.apng(60, FH, frames))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch {colour}')
        t.check(ok, '`veil alpha.png stretch #2040c0` accepted', err)
        c.wait_veil(OUT, 'shown', file=path)
        shot = c.settled_screenshot(OUT)
        bg = np.array(vt.rgb(colour), np.int16)
        half = np.array([255, 0, 0]) * 128 / 255 + bg * (1 - 128 / 255)
        for label, x, want in (('transparent', W // 6, bg), ('alpha 128', W // 2, half),
                               ('opaque', 5 * W // 6, np.array([0, 255, 0]))):
            got = shot[H // 2, x].astype(np.int16)
            t.check(np.abs(got - want).max() <= 3, f'apng {label}: {vt.px(want)} on screen',
                    str(vt.px(got)))
        # A GIF's transparent index shows the colour too.
        idx = np.zeros((FH, FW), np.uint8)
        idx[:, FW // 2:] = 1
        gif = animlib.gif(FW, FH, [(0, 0, 0), (250, 250, 0)],
                          [{'indices': idx, 'delay_cs': 50, 'transparent': 0}] * 2)
        path = media('alpha.gif', gif)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch {colour}')
        t.check(ok, '`veil alpha.gif stretch #2040c0` accepted', err)
        c.wait_veil(OUT, 'shown', file=path)
        shot = c.settled_screenshot(OUT)
        got_l, got_r = shot[H // 2, W // 4].astype(np.int16), shot[H // 2, 3 * W // 4]
        t.check(np.abs(got_l - bg).max() <= 3, 'gif transparent index: the colour',
                str(vt.px(got_l)))
        t.check(np.abs(got_r.astype(np.int16) - (250, 250, 0)).max() <= 3,
                'gif opaque index: its colour', str(vt.px(got_r)))

    with t.case('memory of a long animation stays under its budget'):
        ok, err = c.msg(f'output {OUT} veil #000000 solid_color')
        c.wait_veil(OUT, 'shown')
        # 320x240, 400 frames: 117 MiB decoded, more than the 64 MiB budget.
        long_gif = os.path.join(t.media, 'long.gif')
        vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=25', '-frames:v', '400',
                    '-loop', '0', long_gif])
        os.chmod(long_gif, 0o644)
        before = vt.proc.rss_kb(pid)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(long_gif)} center')
        t.check(ok, '`veil long.gif center` accepted', err)
        c.wait_veil(OUT, 'shown', file=long_gif)
        c.check_until(lambda: src(c).get('frames', 0) > 120, 'more than 120 frames shown',
                      timeout=60)
        anim = src(c).get('animation') or {}
        t.check(anim.get('frames') == 400 and anim.get('kept', 99) <= 3,
                'decoded on the fly: 400 frames, at most 3 kept', str(anim))
        grown = (vt.proc.rss_kb(pid) - before) / 1024
        size = os.path.getsize(long_gif) / 2**20
        vt._say(f'   resident memory +{grown:.1f} MiB (file {size:.1f} MiB)')
        t.check(grown < 64, 'the compositor grew by less than the 64 MiB budget',
                f'+{grown:.1f} MiB')
        short_gif = os.path.join(t.media, 'short.gif')
        vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=25', '-frames:v', '40',
                    '-loop', '0', short_gif])
        os.chmod(short_gif, 0o644)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(short_gif)} center')
        c.wait_veil(OUT, 'shown', file=short_gif)
        c.check_until(lambda: (src(c).get('animation') or {}).get('kept') == 40,
                      'a short GIF (12 MiB decoded) keeps all 40 frames')
        # Kept frames are not decoded again: the workers rest while it plays on.
        c.check_until(lambda: src(c).get('loops', 0) >= 1, 'the short GIF looped once')
        f0 = src(c).get('frames', 0)
        before = vt.proc_threads(pid)
        time.sleep(2.0)
        after = vt.proc_threads(pid)
        worker = sum(ticks - before.get(tid, (None, 0))[1] for tid, (n, ticks) in after.items()
                     if n == 'veil-worker')
        t.check(src(c).get('frames', 0) > f0 + 20, 'it plays on (25 frames a second)',
                f'{f0} -> {src(c).get("frames")}')
        t.check(worker <= 1, 'its frames are not decoded again: veil-worker used at most one '
                'clock tick in 2 s', f'{worker} ticks')

    with t.case('bad files: a clear error, the wallpaper stays'):
        still = vt.make_png(os.path.join(t.media, 'still.png'), vt.quadrant_pixels(64, 48))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(still)} stretch')
        c.wait_veil(OUT, 'shown', file=still)
        before = c.settled_screenshot(OUT)
        good = colour_gif([10, 10, 10, 10])
        cut = media('cut.gif', good[:len(good) * 6 // 10])
        apng = bytearray(colour_apng(100, 0))
        # The second frame's x offset (its fcTL after the first frame's IDAT) moved out.
        k = apng.index(b'fcTL', apng.index(b'IDAT'))
        body = k + 4
        apng[body + 12:body + 16] = (1000).to_bytes(4, 'big')
        apng[body + 26:body + 30] = (zlib.crc32(bytes(apng[k:body + 26])) &
                                     0xffffffff).to_bytes(4, 'big')
        outside = media('outside.png', bytes(apng))
        for bad in (cut, outside):
            base = os.path.basename(bad)
            ok, err = c.msg(f'output {OUT} veil {vt.quote(bad)} stretch')
            if ok:
                v = c.wait_until(lambda: c.veil_error(OUT, bad), f'an error for {base}')
                err = v.get('error')
            t.check(err and bad in err, f'{base}: the error names the file', str(err))
            vt._say(f'   {base}: {err}')
            t.check(c.veil(OUT).get('file') == still, f'{base}: the still is still shown',
                    str(c.veil(OUT).get('file')))
            t.compare(c.settled_screenshot(OUT), before, f'{base}-wallpaper-stays')
        if 'webp' in vt.still_decoders():
            webp = open(colour_webp(os.path.join(t.media, 'w.webp'), 0.3, 0), 'rb').read()
            cutw = media('cut.webp', webp[:len(webp) // 2])
            ok, err = c.msg(f'output {OUT} veil {vt.quote(cutw)} stretch')
            t.check(not ok and cutw in err and 'truncated' in err,
                    'a truncated WebP is refused at once, naming the file', err)
        t.check(c.responsive(), 'the compositor answers IPC')

with t.compositor(outputs=2, name='two-outputs') as c:
    with t.case('one source for two outputs'):
        path = media('shared.gif', colour_gif([20, 20, 20, 20]))
        ok, err = c.msg(f'output * veil {vt.quote(path)} stretch')
        t.check(ok, '`output * veil shared.gif` accepted', err)
        c.wait_veil('HEADLESS-1', 'shown', file=path)
        c.wait_veil('HEADLESS-2', 'shown', file=path)
        s1 = c.check_until(lambda: src(c, 'HEADLESS-1').get('outputs') == 2 and
                           src(c, 'HEADLESS-1'), 'the source has two viewers')
        a, b = src(c, 'HEADLESS-1'), src(c, 'HEADLESS-2')
        t.check(abs(a.get('frames', 0) - b.get('frames', 0)) <= 1,
                'both outputs report the same source counters', f'{a} / {b}')

t.finish()
