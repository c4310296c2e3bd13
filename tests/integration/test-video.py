#!/usr/bin/env python3
"""
A video wallpaper through GStreamer: an H.264 MP4 made by ffmpeg from a generated picture is
shown in fill mode and compared with ffmpeg's own decode of it; it plays (the frame counters
grow) and loops; pause stops it on a frame and resume restarts it; an output that is powered
off stops decoding (state off or hidden) and shows the video again when powered on.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
# Lossy video on both sides: a wider tolerance than for stills, same structure check.
VIDEO = dict(tolerance=16, mean_tolerance=4.5, ignore_edges=4)

# 512x320: the picture's edges (x 192, y 200) fall on 8-pixel boundaries, so 4:2:0 chroma
# does not blur them. 2 s at 25 fps, so that it loops within the test.
still = vt.make_png(os.path.join(t.media, 'still-512x320.png'), vt.quadrant_pixels(512, 320))
video = os.path.join(t.media, 'clip-512x320.mp4')
vt._ffmpeg(['-loop', '1', '-framerate', '25', '-i', still, '-t', '2', '-c:v', 'libx264',
            '-preset', 'veryfast', '-crf', '8', '-g', '25', '-pix_fmt', 'yuv420p',
            '-colorspace', 'smpte170m', '-color_primaries', 'smpte170m',
            '-color_trc', 'smpte170m', '-color_range', 'tv', '-movflags', '+faststart', video])
os.chmod(video, 0o644)
expected = vt.expect_fill(video, W, H)


def counters(c):
    v = c.veil(OUT)
    src = v.get('source') or {}
    return v.get('frames', 0), src.get('frames', 0), src.get('loops', 0)


def wait_still(c, what):
    """Waits until the frame counters stop (a frame already on its way may still land)."""
    last = [None]

    def pred():
        cur = counters(c)[:2]
        same = cur == last[0]
        last[0] = cur
        return same
    c.wait_until(pred, f'the frame counters to stop ({what})', interval=0.5)


with t.compositor(outputs=1) as c:
    with t.case('plays'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fill')
        t.check(ok, '`veil clip.mp4 fill` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=video)
        t.check(v.get('kind') == 'video', 'status kind video', str(v.get('kind')))
        t.check(v.get('source_size') == {'width': 512, 'height': 320}, 'source_size 512x320',
                str(v.get('source_size')))
        src = v.get('source') or {}
        t.check(isinstance(src.get('decoder'), str) and src.get('decoder'),
                'status names the decoder', str(src))
        # veil's own decoder over libavcodec, ranked above avdec: the process that decodes
        # (veil-decoder's, or the compositor in process) never loads gst-libav, nor the
        # libavfilter and libavformat it links.
        t.check(src.get('decoder') == 'veilavdec', 'decoded by veilavdec', str(src))
        for pid in vt.decoding_pids(c.proc.pid) or [c.proc.pid]:
            with open(f'/proc/{pid}/maps') as f:
                libs = {os.path.basename(line.split()[-1]) for line in f
                        if len(line.split()) >= 6}
            loaded = sorted(n for n in libs if n.startswith(('libgstlibav', 'libavfilter',
                                                               'libavformat')))
            t.check(loaded == [], f'process {pid} maps no gst-libav, libavfilter, '
                    'libavformat', ' '.join(loaded))
            t.check(any(n.startswith('libavcodec') for n in libs),
                    f'process {pid} maps libavcodec', '')
        f0 = counters(c)
        c.wait_until(lambda: counters(c)[1] >= f0[1] + 10, 'ten more decoded frames')
        c.wait_until(lambda: counters(c)[0] >= f0[0] + 10, 'ten more frames on the output')
        t.check(c.veil(OUT).get('error') is None, 'no error while playing',
                str(c.veil(OUT).get('error')))

    with t.case('pixels'):
        shot = c.screenshot(OUT)
        t.compare_structure(shot, expected, 'video-fill', slack=2)
        t.compare(shot, expected, 'video-fill', **VIDEO)

    with t.case('loops'):
        c.check_until(lambda: counters(c)[2] >= 1, 'the 2 s clip looped')
        t.check(c.veil(OUT).get('state') == 'shown', 'still shown after looping')

    with t.case('pause and resume'):
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, '`veil pause` accepted', err)
        v = c.wait_veil(OUT, 'paused')
        t.check(v.get('paused') == 'command', 'status paused: "command"', str(v.get('paused')))
        wait_still(c, 'paused')
        a = counters(c)
        shot_a = c.screenshot(OUT)
        time.sleep(1.0)
        b = counters(c)
        shot_b = c.screenshot(OUT)
        t.check(a[:2] == b[:2], 'no frame decoded or shown while paused', f'{a} -> {b}')
        t.compare(shot_b, shot_a, 'paused-still', tolerance=0, ignore_border=0)
        t.compare(shot_b, expected, 'paused-frame', **VIDEO)
        ok, err = c.msg(f'output {OUT} veil resume')
        t.check(ok, '`veil resume` accepted', err)
        v = c.wait_veil(OUT, 'shown')
        t.check(v.get('paused') is False, 'status paused: false', str(v.get('paused')))
        c.wait_until(lambda: counters(c)[1] >= b[1] + 10, 'frames again after resume')

    with t.case('power off hides it'):
        ok, err = c.msg(f'output {OUT} power off')
        t.check(ok, f'output {OUT} power off', err)
        v = c.wait_until(lambda: c.veil(OUT).get('state') != 'shown' and c.veil(OUT),
                         'the video to stop being shown')
        # Nothing is seen on a powered-off output: "off" (veil took its nodes away) or
        # "hidden" (its nodes are there but show nowhere) both say so.
        t.check(v.get('state') in ('off', 'hidden'), 'state off or hidden while powered off',
                str(v))
        t.check((v.get('source') or {}).get('outputs') == 0, 'no output views the source',
                str(v.get('source')))
        wait_still(c, 'powered off')
        a = counters(c)
        time.sleep(1.0)
        b = counters(c)
        t.check(a[1] == b[1], 'no decoding while no output shows the video', f'{a} -> {b}')
        ok, err = c.msg(f'output {OUT} power on')
        t.check(ok, f'output {OUT} power on', err)
        c.wait_veil(OUT, 'shown')
        c.wait_until(lambda: counters(c)[1] >= b[1] + 10, 'decoding again after power on')
        shot = c.screenshot(OUT)
        t.compare(shot, expected, 'after-power-on', **VIDEO)

    with t.case('off and on again'):
        ok, err = c.msg(f'output {OUT} veil off')
        t.check(ok, '`veil off` accepted', err)
        c.wait_veil(OUT, 'off')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fill')
        t.check(ok, 'the video again', err)
        c.wait_veil(OUT, 'shown', file=video)
        f = counters(c)
        c.wait_until(lambda: counters(c)[1] >= f[1] + 5, 'frames from the new pipeline')
    # Leaving the block stops the compositor with the video playing: teardown of a live
    # pipeline must exit cleanly too.

t.finish()
