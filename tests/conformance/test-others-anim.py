#!/usr/bin/env python3
"""
A TIFF, an animated GIF, an APNG and animated WebPs that other programs wrote, through the real
command path (swaymsg, veil-tinywl at 320x240, grim), each `center #000000`, against an
independent decoder's frames (otherslib.py: ImageMagick for TIFF and GIF, ffmpeg's own
decoders for APNG and WebP):

- R's tiff package's Rlogo.tiff (r-cran-tiff: 100x76, LZW, unassociated alpha): on screen
  within 30 dB of ImageMagick's picture over black;
- Kivy's example simple_cv_joint_animated.gif (python-kivy-examples: 22 frames of 50 ms),
  apngasm's APNG of that GIF's frames (apngasm: its own frame rectangles and blend
  operations, 22 frames of 50 ms, played twice), Kdenlive's transition preview dissolve.webp
  (kdenlive-data: 11 lossy frames of 66-67 ms) and the WebP project's random_lossless.webp
  (../shared/conformance/webp: 3 frames of 100 ms): the status's frame and loop counts are
  the reference's (ImageMagick's, for the APNG the 2 asked of apngasm);
  every screenshot taken while it plays is one of the reference's frames (within 30 dB) and
  more than one frame is seen; the frame counter rises at the file's rate and the loop
  counter by one a loop; paused, the frame on screen is the one the counter says (frame
  (n - 1) mod the frame count, the first frame being frame 1), against the reference's; the
  APNG ends after its two plays (state finished, 44 frames, 2 loops) on its last frame;
- random_lossy.webp is left out: ffmpeg's frames of it are 28.6-28.8 dB from libwebp's, where
  the suite's own reference frames (image-rs's decoder) equal libwebp's exactly (ffmpeg's
  4:2:0 upsampling differs on its noise); test-conformance.py judges its first frame;
- each of these files cut in half, asked for while the TIFF is shown: one sentence naming the
  file, the screen unchanged, the compositor answering.
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import otherslib as ol  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('others-anim')
OUT = 'HEADLESS-1'
W, H = 320, 240
SUITE_WEBP = os.path.realpath(os.path.join(HERE, '..', '..', '..', 'shared', 'conformance',
                                           'webp'))
ANIMS = []  # (label, path, frames on black, area, delays in s, loop count)

with t.case('the files and their references'):
    tiff = ol.fetch(t, ol.TIFF)
    frames, _ = ol.magick_frames(tiff)
    tiff_ref, tiff_area = ol.on_black(frames[0], W, H)

    gif = ol.fetch(t, ol.GIF)
    frames, delays = ol.magick_frames(gif)
    t.check(len(frames) == 22, 'the GIF has 22 frames (ImageMagick)', str(len(frames)))
    ANIMS.append(('gif', gif, frames, delays, ol.magick_iterations(gif)))

    # apngasm's APNG of the GIF's frames (its own frame rectangles, dispose and blend
    # operations), 1/20 s each, played twice.
    frame_dir = os.path.join(t.media, 'gif-frames')
    os.makedirs(frame_dir)
    ol.run(['magick', gif, '-coalesce', '+repage', 'PNG32:' + frame_dir + '/f%03d.png'])
    apng = os.path.join(t.media, 'joint-apngasm.png')
    ol.run(['apngasm', apng, frame_dir + '/f000.png', '1', '20', '-l2', '-z0'])
    os.chmod(apng, 0o644)
    frames = ol.ffmpeg_frames(apng)
    t.check(len(frames) == 22, 'apngasm\'s APNG has 22 frames (ffmpeg)', str(len(frames)))
    ANIMS.append(('apng', apng, frames, ol.ffprobe_durations(apng), 2))

    webps = [ol.fetch(t, ol.WEBP)]
    for name in ('random_lossless.webp',):
        src = os.path.join(SUITE_WEBP, name)
        if not t.check(os.path.exists(src), f'{name} is in ../shared/conformance/webp', src):
            continue
        webps.append(src)
    for path in webps:
        frames = ol.ffmpeg_frames(path)
        delays = ol.ffprobe_durations(path)
        t.check(len(frames) == len(delays) and len(frames) > 1,
                f'{os.path.basename(path)}: {len(frames)} frames (ffmpeg)', str(len(delays)))
        ANIMS.append(('webp', path, frames, delays, ol.magick_iterations(path)))


def src_status(c):
    return c.veil(OUT).get('source') or {}


def counters(c):
    s = src_status(c)
    return s.get('frames', 0), s.get('loops', 0)



def sample(c, refs, area, seconds, until=None):
    """Screenshots for seconds (or until until() holds), each matched to a frame."""
    seen, worst = [], (None, float('inf'))
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (until and until()):
        i, db = ol.match(vt.grab(c, OUT), refs, area)
        seen.append(i)
        if db < worst[1]:
            worst = (i, db)
    vt._say(f'   {len(seen)} screenshots, frames {seen}, worst {worst[1]:.1f} dB '
            f'(frame {worst[0]})')
    t.check(worst[1] >= ol.THRESHOLD_DB,
            f'each of {len(seen)} screenshots is a frame of the reference within '
            f'{ol.THRESHOLD_DB} dB', f'{worst[1]:.1f} dB')
    t.check(len(set(seen)) > 1, 'it moves: more than one frame seen', str(seen))


def playing(c, refs, area, n, loop_s):
    """A looping animation: frames, rates, and the paused frame the counter names."""
    f0, l0, t0 = *counters(c), time.monotonic()
    sample(c, refs, area, 2.0)
    f1, l1, t1 = *counters(c), time.monotonic()
    rate, want = (f1 - f0) / (t1 - t0), n / loop_s
    t.check(0.6 * want <= rate <= 1.25 * want,
            f'the frame counter rises at the file\'s rate ({want:.1f}/s)',
            f'{rate:.1f}/s ({f1 - f0} frames in {t1 - t0:.2f} s)')
    loops = (l1 - l0) / (t1 - t0) * loop_s
    t.check(0.6 <= loops <= 1.25 or (t1 - t0 < 2 * loop_s and l1 - l0 >= 1),
            f'the loop counter rises by one a loop of {loop_s:.2f} s',
            f'{l0} -> {l1} in {t1 - t0:.2f} s')
    ok, err = c.msg(f'output {OUT} veil pause')
    t.check(ok, '`veil pause` accepted', err)
    c.wait_veil(OUT, 'paused')
    shown = c.settled('the frame counter', lambda: counters(c)[0])
    shot = c.settled_screenshot(OUT)
    want_i = (shown - 1) % n
    i, db = ol.match(shot, refs, area)
    same = [j for j in range(n) if np.array_equal(refs[j], refs[want_i])]
    db_want = max(ol.match(shot, [refs[j]], area)[1] for j in same)
    vt._say(f'   paused at counter {shown}: frame {want_i + 1} of {n} at {db_want:.1f} dB '
            f'(closest: frame {i + 1} at {db:.1f} dB)')
    t.check(db_want >= ol.THRESHOLD_DB,
            f'paused, the frame the counter names ({want_i + 1} of {n}) is on screen',
            f'{db_want:.1f} dB; closest frame {i + 1} at {db:.1f} dB')
    ok, err = c.msg(f'output {OUT} veil resume')
    t.check(ok, '`veil resume` accepted', err)


def played(c, refs, area, n, loop_s, plays):
    """An animation played a number of times: frames, then its last frame stays."""
    sample(c, refs, area, plays * loop_s + 5,
           until=lambda: src_status(c).get('state') == 'finished')
    final = c.check_until(lambda: src_status(c).get('state') == 'finished' and src_status(c),
                          f'source state finished after {plays} plays', timeout=10)
    if final:
        t.check(final.get('loops') == plays and final.get('frames') == plays * n,
                f'{plays} plays of {n} frames shown', str(final))
    i, db = ol.match(c.settled_screenshot(OUT), [refs[-1]], area)
    t.check(db >= ol.THRESHOLD_DB, 'its last frame stays on screen', f'{db:.1f} dB')


with t.compositor(outputs=1) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    with t.case('Rlogo.tiff from r-cran-tiff'):
        v, shot = t.show(c, OUT, tiff, 'center #000000', 'tiff')
        if v is not None:
            i, db = ol.match(shot, [tiff_ref], tiff_area)
            vt._say(f'   Rlogo.tiff: {db:.1f} dB against ImageMagick; '
                    f'colour: {(v.get("source") or {}).get("colour")}')
            t.check(db >= ol.THRESHOLD_DB, f'on screen within {ol.THRESHOLD_DB} dB of '
                    'ImageMagick', f'{db:.1f} dB')

    for kind, path, frames, delays, plays in ANIMS:
        name = os.path.basename(path)
        with t.case(name):
            refs = [ol.on_black(f, W, H) for f in frames]
            area = refs[0][1]
            refs = [r[0] for r in refs]
            n = len(refs)
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} center #000000')
            t.check(ok, 'accepted', err)
            v = c.wait_veil(OUT, 'shown', file=path)
            anim = (v.get('source') or {}).get('animation') or {}
            t.check(v.get('kind') == 'video' and anim.get('format') == kind,
                    f'status: kind video, animation format {kind}', str(v))
            t.check(anim.get('frames') == n and anim.get('plays') == plays,
                    f'status: {n} frames, plays {plays} (the reference\'s)', str(anim))
            loop_s = sum(delays)
            if plays in (1, 2):
                played(c, refs, area, n, loop_s, plays)
            else:
                playing(c, refs, area, n, loop_s)

    with t.case('cut in half: refused, the screen unchanged'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(tiff)} center #000000')
        t.check(ok, 'the TIFF again', err)
        c.wait_veil(OUT, 'shown', file=tiff)
        before = c.settled_screenshot(OUT)
        for path in [tiff] + [a[1] for a in ANIMS]:
            bad = ol.cut(t, path, 0.5)
            err = c.refused_file(OUT, f'{vt.quote(bad)} center #000000', bad, [],
                                 os.path.basename(bad))
            vt._say(f'   {os.path.basename(bad)}: {err}')
            t.check(err.count('. ') == 0 and '\n' not in err.strip(),
                    f'{os.path.basename(bad)}: one sentence', err)
            t.check(np.array_equal(c.settled_screenshot(OUT), before),
                    f'{os.path.basename(bad)}: the screen is unchanged')
            t.check(c.responsive(), f'{os.path.basename(bad)}: the compositor answers')
t.finish()
