#!/usr/bin/env python3
"""
What a newcomer runs: veil-tinywl from the build tree with no VEIL_* variable in its environment
shows a still and a video, both decoded in the veil-decoder of the same build, which libveil
finds by itself (module/core/decoders.c). Then the fault cases, each a non-default path named so:
a helper that is missing, or not executable (VEIL_DECODER_HELPER points at it), decodes in the
compositor's process with one warning in the log and the reason in the status, the wallpaper
shown all the same; and killing each process of a video's helper in turn (the monitor, then the
decoding process) leaves no process behind.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('default-path')
OUT = 'HEADLESS-1'
W, H = 1280, 720
# Nothing of veil's in the environment: the test runner's own variables (VEIL_STILL_DECODERS,
# read by the tests only) are taken out too.
CLEAN = {k: None for k in os.environ if k.startswith('VEIL_')}
WARNING = 'decoding in the compositor\'s process, where a crash in a decoder ends the session'

still = vt.make_png(os.path.join(t.media, 'still.png'), vt.quadrant_pixels(320, 180))
clip = vt.make_colour_clip(
    os.path.join(t.media, 'clip.mp4'), [('red', (255, 0, 0)), ('blue', (0, 0, 255))], 10, 1,
    ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'])


def source(c):
    return c.veil(OUT).get('source') or {}


def show_still(c, where):
    ok, err = c.msg(f'output {OUT} veil {vt.quote(still)} fill')
    t.check(ok, f'the still is set ({where})', err)
    c.wait_veil(OUT, 'shown', file=still)
    t.compare(c.screenshot(OUT), vt.expect_fill(still, W, H), f'the still on screen ({where})',
              tolerance=8, ignore_edges=2)


def show_video(c, where):
    ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill')
    t.check(ok, f'the video is set ({where})', err)
    c.wait_veil(OUT, 'shown', file=clip)
    f0 = c.veil(OUT).get('frames', 0)
    c.check_until(lambda: c.veil(OUT).get('frames', 0) >= f0 + 10,
                  f'the video plays ({where})')


def warnings(c):
    with open(c.log_path, 'rb') as f:
        return f.read().decode(errors='replace').count(WARNING)


with t.compositor(outputs=1, name='default', env=CLEAN) as c:
    with t.case('no VEIL_* variable: a still, in the build\'s veil-decoder'):
        t.check(not any(k.startswith('VEIL_') for k in c.environ()),
                'the compositor\'s environment has no VEIL_* variable', str(c.environ()))
        show_still(c, 'default')
        t.check(source(c).get('process') == 'veil-decoder', 'decoded in veil-decoder',
                str(source(c)))
        # The helper that decoded it exits by itself and is reaped, not left <defunct> or its
        # pidfd held until the next decode (it has 2 s, VEIL_HELPER_EXIT_GRACE_MS, before it
        # is killed): the compositor holds the spare's pidfd and no other.
        c.check_until(lambda: not vt.children(c.proc.pid, 'Z') and
                      vt.pidfd_count(c.proc.pid) <= 1,
                      'the still\'s veil-decoder is reaped after its answer', timeout=10)
    with t.case('no VEIL_* variable: a video, in the build\'s veil-decoder'):
        show_video(c, 'default')
        t.check(source(c).get('process') == 'veil-decoder', 'played in veil-decoder',
                str(source(c)))
        t.check(len(vt.decoding_pids(c.proc.pid)) == 1, 'one decoding process plays it',
                str(vt.children(c.proc.pid)))
        t.check(warnings(c) == 0, 'no warning in the log')
    with t.case('fault: each process of a video\'s helper killed leaves none behind'):
        for which in ('monitor', 'decoding process'):
            # The video's helper: the monitor whose child decodes (the spare has none).
            pairs = [(m, d) for m, name in vt.children(c.proc.pid) if name == 'veil-decoder'
                     for d, dname in vt.children(m) if dname == 'veil-decoder']
            if not t.check(len(pairs) == 1, f'a video\'s helper runs (before the {which})',
                           str(vt.children(c.proc.pid))):
                break
            monitor, decoding = pairs[0]
            os.kill(monitor if which == 'monitor' else decoding, 9)
            gone = c.check_until(lambda: not os.path.exists(f'/proc/{decoding}') or
                                 open(f'/proc/{decoding}/stat').read().split()[2] == 'Z',
                                 f'the decoding process ends with the {which}', timeout=10)
            if gone:
                # The video is set again: a fresh helper for the next round.
                ok, err = c.msg(f'output {OUT} veil off')
                show_video(c, f'after the {which} was killed')

# A helper that cannot run: named so, VEIL_DECODER_HELPER is the fault here.
not_executable = os.path.join(t.media, 'veil-decoder')
with open(not_executable, 'w') as f:
    f.write('#!/bin/sh\n')
os.chmod(not_executable, 0o644)
for label, path in (('missing', '/nonexistent/veil-decoder'),
                    ('not executable', not_executable)):
    env = dict(CLEAN, VEIL_DECODER_HELPER=path)
    with t.compositor(outputs=1, name='fault-' + label.replace(' ', '-'), env=env) as c:
        with t.case(f'fault: a {label} helper decodes in process, said once'):
            show_still(c, f'{label} helper')
            process = source(c).get('process') or ''
            t.check(process.startswith(f'in process (veil-decoder not found at {path}:'),
                    'the status says where and why', process)
            show_video(c, f'{label} helper')
            t.check((source(c).get('process') or '').startswith('in process (veil-decoder'),
                    'the video plays in process too', str(source(c)))
            t.check(warnings(c) == 1, 'one warning in the log', str(warnings(c)))
            t.check(vt.decoding_pids(c.proc.pid) == [], 'no helper runs')

t.finish()
