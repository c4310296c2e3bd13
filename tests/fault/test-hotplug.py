#!/usr/bin/env python3
"""
Output hotplug storms while a video plays on every output ("output * veil clip.mp4"): headless
outputs are added and removed 100 times (one at a time, waiting for each to show the video; in
threes, removed before they have drawn anything; resized before they go). Throughout, the first
output keeps playing (its frame counter grows), each new output shows the video, and memory,
descriptors and threads stay bounded; at the end the first output's picture is the video's.
"""
import os
import time

from veiltest import fault as fl  # noqa: E402

vt = fl.vt
t = vt.Test('fault-hotplug')
OUT = 'HEADLESS-1'
W, H = 1280, 720
CYCLES = 100
VIDEO = dict(tolerance=24, mean_tolerance=4, ignore_edges=4)

# 512x320 (edges on 8-pixel boundaries, see test-video.py), 2 s: it loops during the test.
video = fl.make_video(os.path.join(t.media, 'clip-512x320.mp4'), seconds=2, size='512x320')
expected = vt.expect_fill(video, W, H)

with t.compositor(outputs=1, env=fl.compositor_env()) as c:
    pid = c.proc.pid
    with t.case('setup'):
        ok, err = c.msg(f'output * veil {vt.quote(video)} fill')
        t.check(ok, 'video set for every output', err)
        v = c.wait_veil(OUT, 'shown', file=video)
        t.check(v.get('kind') == 'video', 'it is a video', str(v.get('kind')))
        fl.wait_frames(c, OUT, 10, 'the video plays')
    bounded = fl.Bounded(t, pid, 'hotplug')
    added = removed = 0
    start = time.monotonic()

    def add(n=1):
        global added
        before = set(c.outputs())
        for _ in range(n):
            ok, err = c.msg('create_output')
            if not ok:
                t.fail('create_output', err)
        new = c.wait_until(lambda: sorted(set(c.outputs()) - before)
                           if len(set(c.outputs()) - before) == n else None,
                           f'{n} new outputs')
        added += n
        return new

    def remove(names):
        global removed
        for name in names:
            ok, err = c.msg(f'output {name} unplug')
            if not ok:
                t.fail(f'unplug {name}', err)
        c.wait_until(lambda: not (set(names) & set(c.outputs())), 'outputs gone')
        removed += len(names)

    cycle = 0
    with t.case('one at a time, each showing the video'):
        for _ in range(CYCLES):
            cycle += 1
            name, = add()
            v = c.wait_veil(name, 'shown', file=video)
            if v.get('kind') != 'video':
                t.fail(f'{name} shows the video', str(v))
            remove([name])
            if cycle % 25 == 0:
                fl.wait_frames(c, OUT, 5, f'{OUT} still plays after {cycle} cycles')
                bounded.round_done(f'{cycle} cycles')
        vt._say(f'   {CYCLES} outputs came, showed the video and went ({fl.elapsed(start)})')

    with t.case('in threes, gone before they draw'):
        for _ in range(10):
            cycle += 1
            remove(add(3))
        fl.wait_frames(c, OUT, 5, f'{OUT} still plays')
        bounded.round_done(f'{cycle} cycles')
        vt._say('   30 outputs came and went in threes')

    with t.case('resized, then gone'):
        for i in range(20):
            cycle += 1
            name, = add()
            size = ('800x600', '1920x1080', '640x480', '2560x1440')[i % 4]
            ok, err = c.msg(f'output {name} resolution {size}')
            if not ok:
                t.fail(f'{name} resolution {size}', err)
            if i % 2 == 0:
                c.wait_veil(name, 'shown', file=video)
            remove([name])
        fl.wait_frames(c, OUT, 5, f'{OUT} still plays')
        bounded.round_done(f'{cycle} cycles')
        vt._say('   20 outputs came, were resized and went')

    with t.case('the first output plays on'):
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('kind') == 'video' and
                v.get('error') is None, f'{OUT} shows the video without error', str(v))
        src = v.get('source') or {}
        t.check(src.get('outputs') == 1, 'the source has one output left', str(src))
        fl.wait_frames(c, OUT, 10, 'ten more frames')
        t.compare(c.screenshot(OUT), expected, 'after-hotplug', **VIDEO)
    with t.case('bounded'):
        bounded.check()
    vt._say(f'tried: {added} outputs added and {removed} removed in {cycle} cycles while a '
            f'video played ({fl.elapsed(start)})')

t.finish()
