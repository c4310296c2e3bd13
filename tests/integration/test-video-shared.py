#!/usr/bin/env python3
"""
Two outputs showing one file run one pipeline: both report the same source "pipeline" with
"outputs": 2, the compositor's thread count with the video on both outputs is the one with the
video on one output (a second pipeline would add its threads: checked with two files), both
outputs show the video (pixels against ffmpeg's decode, in two modes), and the source's frame
counter is one for both. `output * veil FILE` and a second name of the file (a symlink) share
too; an output powered off stops being a viewer while the other keeps playing.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video-shared')
A, B = 'HEADLESS-1', 'HEADLESS-2'
W, H = 1280, 720  # the headless default
# Lossy video on both sides. These clips are scaled up 3.75 to 5.6 times: wlroots 0.19's pixman
# renderer samples outside a buffer as transparent, which darkens half a source pixel (up to
# 3 output pixels) along a scaled frame's own edges, here the output's border.
VIDEO = dict(tolerance=16, mean_tolerance=4.5, ignore_edges=4, ignore_border=3)
# GLib's shared pool workers (pool-N) come and go on their own: counts may differ by that much.
SLACK = 2
BARS = '#202020'


def make_clip(name, pixels, seconds=2, fps=15):
    still = vt.make_png(os.path.join(t.media, name + '.png'), pixels)
    path = os.path.join(t.media, name + '.mp4')
    vt._ffmpeg(['-loop', '1', '-framerate', str(fps), '-i', still, '-t', str(seconds),
                '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '8', '-g', str(fps),
                '-pix_fmt', 'yuv420p', '-colorspace', 'smpte170m', '-color_primaries',
                'smpte170m', '-color_trc', 'smpte170m', '-color_range', 'tv', path])
    os.chmod(path, 0o644)
    return path


# The pictures' edges fall on 8-pixel boundaries, so that 4:2:0 chroma does not blur them (see
# test-video.py): x 120, y 120 and (mirrored) x 160, y 80.
clip = make_clip('clip-320x192', vt.quadrant_pixels(320, 192))
other = make_clip('other-256x128', vt.quadrant_pixels(256, 128)[:, ::-1].copy())
link = os.path.join(t.media, 'second-name.mp4')
os.symlink(os.path.basename(other), link)


def src(c, out):
    return c.veil(out).get('source') or {}


def settled_threads(c, pid, what):
    """The thread count once it has not changed for a second (pipelines start threads lazily)."""
    last = [None]

    def pred():
        n = vt.thread_count(pid, decoders=True)
        same = n == last[0]
        last[0] = n
        return (n,) if same else None
    n, = c.wait_until(pred, f'the thread count to settle ({what})', interval=1.0)
    return n


def frames_rise(c, out, n=10, what=None):
    f0 = c.veil(out).get('frames', 0)
    what = what or f'{n} more frames on {out}'
    return c.check_until(lambda: c.veil(out).get('frames', 0) >= f0 + n, what)


with t.compositor(outputs=2) as c:
    pid = c.proc.pid
    with t.case('setup'):
        outs = c.outputs()
        t.check(A in outs and B in outs, 'two outputs', str(list(outs)))
        # GLib's pool-spawner starts with the first video and stays: start it before counting.
        ok, err = c.msg(f'output {A} veil {vt.quote(other)} fill')
        t.check(ok, 'a first video', err)
        c.wait_veil(A, 'shown', file=other)
        ok, err = c.msg(f'output {A} veil off')
        t.check(ok, 'off again', err)
        c.wait_veil(A, 'off')
        threads0 = settled_threads(c, pid, 'no video')
        vt._say(f'   {threads0} threads without a video')

    with t.case('one output'):
        ok, err = c.msg(f'output {A} veil {vt.quote(clip)} fill')
        t.check(ok, f'`output {A} veil clip fill` accepted', err)
        c.wait_veil(A, 'shown', file=clip)
        frames_rise(c, A)
        s1 = src(c, A)
        t.check(s1.get('outputs') == 1, 'one viewer', str(s1))
        threads1 = settled_threads(c, pid, 'one output')
        vt._say(f'   {threads1} threads with the video on one output')
        t.check(threads1 > threads0 + SLACK,
                'a pipeline has threads of its own (the count is a measure)',
                f'{threads0} -> {threads1}')

    with t.case('two outputs, one file'):
        ok, err = c.msg(f'output {B} veil {vt.quote(clip)} fit {BARS}')
        t.check(ok, f'`output {B} veil clip fit` accepted', err)
        c.wait_veil(B, 'shown', file=clip)
        frames_rise(c, A)
        frames_rise(c, B)
        sa, sb = src(c, A), src(c, B)
        t.check(sa.get('pipeline') and sa.get('pipeline') == sb.get('pipeline'),
                'both outputs report the same pipeline', f'{sa.get("pipeline")} / '
                f'{sb.get("pipeline")}')
        t.check(sa.get('pipeline') == s1.get('pipeline'), 'the pipeline of the first output',
                f'{s1.get("pipeline")} -> {sa.get("pipeline")}')
        t.check(sa.get('outputs') == 2 and sb.get('outputs') == 2, '"outputs": 2 on both',
                f'{sa.get("outputs")} / {sb.get("outputs")}')
        threads2 = settled_threads(c, pid, 'two outputs')
        vt._say(f'   {threads2} threads with the video on two outputs')
        t.check(threads2 <= threads1 + SLACK, 'the thread count does not grow with the second '
                'output', f'one output {threads1}, two {threads2} (none {threads0})')
        # One source, one counter: one get_outputs reply gives both outputs the same numbers.
        outs = c.outputs()
        sa, sb = outs[A]['veil'].get('source') or {}, outs[B]['veil'].get('source') or {}
        t.check(sa.get('frames') == sb.get('frames') and sa.get('loops') == sb.get('loops'),
                'one decoded-frame counter for both', f'{sa} / {sb}')
        shot_a, shot_b = c.screenshot(A), c.screenshot(B)
        t.compare(shot_a, vt.expect_fill(clip, W, H), 'shared-fill', **VIDEO)
        t.compare_structure(shot_b, vt.expect_fit(clip, W, H, BARS), 'shared-fit', bars=None)
        t.compare(shot_b, vt.expect_fit(clip, W, H, BARS), 'shared-fit', **VIDEO)

    with t.case('one output powered off'):
        ok, err = c.msg(f'output {B} power off')
        t.check(ok, f'{B} power off', err)
        c.check_until(lambda: src(c, A).get('outputs') == 1, 'one viewer left')
        frames_rise(c, A, what=f'{A} keeps playing: 10 more frames')
        ok, err = c.msg(f'output {B} power on')
        t.check(ok, f'{B} power on', err)
        c.wait_veil(B, 'shown', file=clip)
        c.wait_until(lambda: src(c, A).get('outputs') == 2, 'two viewers again')
        frames_rise(c, B)
        t.check(src(c, A).get('pipeline') == src(c, B).get('pipeline'),
                'still one pipeline', f'{src(c, A)} / {src(c, B)}')

    with t.case('two files, two pipelines'):
        ok, err = c.msg(f'output {B} veil {vt.quote(other)} fill')
        t.check(ok, f'`output {B} veil other fill` accepted', err)
        c.wait_veil(B, 'shown', file=other)
        frames_rise(c, B)
        sa, sb = src(c, A), src(c, B)
        t.check(sa.get('pipeline') != sb.get('pipeline'), 'two pipelines',
                f'{sa.get("pipeline")} / {sb.get("pipeline")}')
        t.check(sa.get('outputs') == 1 and sb.get('outputs') == 1, 'one viewer each',
                f'{sa.get("outputs")} / {sb.get("outputs")}')
        threads3 = settled_threads(c, pid, 'two files')
        vt._say(f'   {threads3} threads with two files')
        t.check(threads3 > threads1 + SLACK, 'a second pipeline adds threads (what sharing saves)',
                f'one pipeline {threads1}, two {threads3}')

    with t.case('output * and a second name of the file'):
        ok, err = c.msg('output * veil off')
        t.check(ok, '`output * veil off` accepted', err)
        c.wait_veil(A, 'off')
        c.wait_veil(B, 'off')
        ok, err = c.msg(f'output * veil {vt.quote(other)} stretch')
        t.check(ok, '`output * veil other stretch` accepted', err)
        c.wait_veil(A, 'shown', file=other)
        c.wait_veil(B, 'shown', file=other)
        frames_rise(c, A)
        frames_rise(c, B)
        sa, sb = src(c, A), src(c, B)
        t.check(sa.get('pipeline') == sb.get('pipeline') and sa.get('outputs') == 2,
                'one pipeline for `output *`', f'{sa} / {sb}')
        first = sa.get('pipeline')
        ok, err = c.msg(f'output {B} veil {vt.quote(link)} fill')
        t.check(ok, f'`output {B} veil second-name.mp4 fill` (a symlink) accepted', err)
        v = c.wait_veil(B, 'shown', mode='fill')
        frames_rise(c, B)
        sa, sb = src(c, A), src(c, B)
        t.check(sa.get('pipeline') == first and sb.get('pipeline') == first,
                'the second name shares the pipeline', f'{first}: {sa} / {sb}')
        t.check(sb.get('outputs') == 2, '"outputs": 2', str(sb))
        vt._say(f'   file reported for the second name: {v.get("file")}')
        threads4 = settled_threads(c, pid, '* and a second name')
        t.check(threads4 <= threads1 + SLACK, 'the thread count is that of one pipeline',
                f'one pipeline {threads1}, now {threads4}')
        shot_b = c.screenshot(B)
        t.compare(shot_b, vt.expect_fill(other, W, H), 'second-name-fill', **VIDEO)

    with t.case('after'):
        t.check(c.veil(A).get('error') is None and c.veil(B).get('error') is None,
                'no error', f'{c.veil(A).get("error")} / {c.veil(B).get("error")}')
        t.check(c.responsive(), 'the compositor answers IPC')

t.finish()
