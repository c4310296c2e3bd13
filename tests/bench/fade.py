#!/usr/bin/env python3
"""
fade.py --compositor PATH [--outdir DIR] [--rounds N]: what a crossfade costs the compositor's
main thread. veil-tinywl (headless, pixman) shows a 1920x1080 still, then fades to another over
4 s; the main thread's CPU time (/proc/PID/task/PID/stat) and voluntary context switches (its
wake-ups, /proc/PID/task/PID/status) are read over 2 s inside the fade, and over 3 s idle
before it and after it. Nothing talks to the compositor inside a window.

    tools/devroot python3 tests/bench/fade.py --compositor build-x/examples/veil-tinywl
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'integration'))
import veiltest as vt  # noqa: E402

ROUNDS = 3
for i, arg in enumerate(sys.argv):
    if arg == '--rounds':
        ROUNDS = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
        break

t = vt.Test('fade-bench')
OUT = 'HEADLESS-1'
W, H = 1920, 1080
CLK_TCK = os.sysconf('SC_CLK_TCK')


def main_thread(pid):
    with open(f'/proc/{pid}/task/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    vcs = 0
    with open(f'/proc/{pid}/task/{pid}/status') as f:
        for line in f:
            if line.startswith('voluntary_ctxt_switches:'):
                vcs = int(line.split()[1])
    return time.monotonic(), ticks, vcs


def window(pid, seconds):
    t0, ticks0, vcs0 = main_thread(pid)
    time.sleep(seconds)
    t1, ticks1, vcs1 = main_thread(pid)
    span = t1 - t0
    return span, (ticks1 - ticks0) / CLK_TCK / span * 100.0, (vcs1 - vcs0) / span


pictures = []
for name, pixels in (('a', vt.quadrant_pixels(W, H)), ('b', vt.quadrant_pixels(W, H)[::-1])):
    pictures.append(vt.make_png(os.path.join(t.media, f'{name}-{W}x{H}.png'), pixels.copy()))

rows = []
with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    c.msg(f'output {OUT} resolution {W}x{H}')
    mode = c.wait_mode(OUT, W, H)['current_mode']
    # wlroots' headless backend reports 0 and runs at its default, 60 Hz.
    hz = (mode.get('refresh') or 60000) / 1000.0
    c.msg(f'output {OUT} veil {vt.quote(pictures[0])} fill')
    c.wait_veil(OUT, 'shown', file=pictures[0])
    for r in range(ROUNDS):
        new = pictures[(r + 1) % 2]
        time.sleep(1.0)
        before = window(pid, 3.0)
        c.msg(f'output {OUT} veil {vt.quote(new)} fill transition fade 4000')
        v = c.wait_until(lambda: (c.veil(OUT).get('transition') or {}).get('progress'),
                         'the fade to run', interval=0.02)
        during = window(pid, 2.0)
        c.wait_until(lambda: c.veil(OUT).get('transition') is None, 'the fade to end')
        time.sleep(0.5)
        after = window(pid, 3.0)
        rows.append((before, during, after))
        t.check(True, f'round {r + 1}: idle {before[1]:.1f}% CPU {before[2]:.1f} wake-ups/s; '
                f'fade {during[1]:.1f}% CPU {during[2]:.1f} wake-ups/s = '
                f'{during[2] / hz:.2f} per frame at {hz:.0f} Hz, '
                f'{during[1] / 100.0 * 1000.0 / hz:.2f} ms CPU per frame; '
                f'after {after[1]:.1f}% CPU {after[2]:.1f} wake-ups/s')
t.finish()
