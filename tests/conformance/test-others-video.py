#!/usr/bin/env python3
"""
Videos that other programs wrote, through the real command path (swaymsg, veil-tinywl at
1280x720, grim), each `center #000000`, against ffmpeg's own decoders (veil plays them through
GStreamer's):

- Flowblade's gpu_test_clip.mp4 (flowblade: H.264 in MP4 with AAC sound, 1920x1080 at
  30 fps, 5 s) and GNOME's help video display-dual-monitors.webm (gnome-user-docs: VP8 in
  WebM, 1024x768 at 15 fps, 37 s): the status says a video of the file's
  size; it plays (the frame counters rise); paused, the picture on screen is a frame ffmpeg
  decodes within 0.3 s of the status's position_ms (the frame's timestamp, as
  ffprobe's pts_time), within 30 dB; it plays on after
  resume; the 5 s MP4 loops (the loop counter rises) and still plays after its loop;
- the WebM cut in its first frame (its header and half of that frame), asked for while the
  whole WebM is shown (paused): one sentence naming the file, the screen as it was, the compositor
  answering.
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import otherslib as ol  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('others-video')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
VIDEOS = []  # (path, width, height)

with t.case('the files'):
    for pm, size in ((ol.MP4, (1920, 1080)), (ol.WEBM, (1024, 768))):
        path = ol.fetch(t, pm)
        got = vt.image_size(path)
        t.check(got == size, f'{os.path.basename(path)} is {size[0]}x{size[1]} (ffprobe)',
                str(got))
        VIDEOS.append((path, *got))


def counters(c):
    v = c.veil(OUT)
    s = v.get('source') or {}
    return v.get('frames', 0), s.get('frames', 0), s.get('loops', 0)


def paused_frame(c, path):
    """Paused: the screenshot against ffmpeg's frames around the status's position."""
    ok, err = c.msg(f'output {OUT} veil pause')
    t.check(ok, '`veil pause` accepted', err)
    c.wait_veil(OUT, 'paused')
    c.settled('the frame counters', lambda: counters(c)[:2])
    shot = c.settled_screenshot(OUT)
    pos = c.veil(OUT).get('position_ms')
    if not t.check(isinstance(pos, int) and pos >= 0, 'paused: the status has position_ms',
                   str(pos)):
        return
    # position_ms is the frame's timestamp, as ffprobe's pts_time; ffmpeg's -ss counts from
    # the file's first timestamp (0.54 s in Kivy's cityCC0.mpg, an MPEG program stream).
    refs, area = ol.ffmpeg_centred(path, W, H, pos / 1000.0 - ol.start_time(path) - 0.3, 0.6)
    if not t.check(refs, f'ffmpeg decodes frames around {pos} ms'):
        return
    i, db = ol.match(shot, refs, area)
    vt._say(f'   paused at {pos} ms: {db:.1f} dB against the closest of ffmpeg\'s '
            f'{len(refs)} frames around it')
    t.check(db >= ol.THRESHOLD_DB, f'paused at {pos} ms: the frame on screen is ffmpeg\'s '
            f'within {ol.THRESHOLD_DB} dB', f'{db:.1f} dB')
    if db < ol.THRESHOLD_DB:
        vt.write_png(t.path(f'{os.path.basename(path)}-shot.png'), shot)
        vt.write_png(t.path(f'{os.path.basename(path)}-want.png'), refs[i])
    ok, err = c.msg(f'output {OUT} veil resume')
    t.check(ok, '`veil resume` accepted', err)
    c.wait_veil(OUT, 'shown')


with t.compositor(outputs=1) as c:
    for path, w, h in VIDEOS:
        name = os.path.basename(path)
        with t.case(name):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} center #000000')
            t.check(ok, 'accepted', err)
            v = c.wait_veil(OUT, 'shown', file=path)
            t.check(v.get('kind') == 'video', 'status kind video', str(v.get('kind')))
            t.check(v.get('source_size') == {'width': w, 'height': h},
                    f'source_size {w}x{h}', str(v.get('source_size')))
            t.check(v.get('error') is None, 'no error', str(v.get('error')))
            f0 = counters(c)
            c.check_until(lambda: counters(c)[1] >= f0[1] + 10, 'ten more decoded frames')
            c.check_until(lambda: counters(c)[0] >= f0[0] + 10, 'ten more frames shown')
            paused_frame(c, path)
            f1 = counters(c)
            c.check_until(lambda: counters(c)[1] >= f1[1] + 5, 'it plays on after resume')
            if path.endswith('.mp4'):
                c.check_until(lambda: counters(c)[2] >= 1, 'the 5 s video loops', timeout=30)
                f2 = counters(c)
                c.check_until(lambda: counters(c)[1] >= f2[1] + 5, 'it plays on after its loop')
                t.check(c.veil(OUT).get('error') is None, 'no error after its loop',
                        str(c.veil(OUT).get('error')))

    with t.case('the WebM cut short: refused, the screen as it was'):
        webm = VIDEOS[1][0]
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, '`veil pause` accepted (the screen holds still to compare)', err)
        c.wait_veil(OUT, 'paused')
        c.settled('the frame counters', lambda: counters(c)[:2])
        before = c.settled_screenshot(OUT)
        pos, size = ol.first_packet(VIDEOS[1][0])
        bad = ol.cut(t, VIDEOS[1][0], length=pos + size // 2)
        err = c.refused_file(OUT, f'{vt.quote(bad)} center #000000', bad, [],
                             os.path.basename(bad))
        vt._say(f'   {os.path.basename(bad)}: {err}')
        t.check(err.strip().count('. ') == 0 and '\n' not in err.strip(), 'one sentence', err)
        after = c.settled_screenshot(OUT)
        t.check(np.array_equal(after, before), 'the screen is as it was')
        t.check(c.responsive(), 'the compositor answers')
        t.check(c.veil(OUT).get('file') == webm, 'the status still shows the whole WebM',
                str(c.veil(OUT).get('file')))
t.finish()
