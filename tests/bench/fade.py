#!/usr/bin/env python3
"""
fade.py --compositor PATH [--outdir DIR] [--rounds N] [--kind WORDS] [--probe]: what a
transition costs the compositor's main thread. veil-tinywl (headless, pixman) shows a 1920x1080
still, then changes to another over 4 s with `transition WORDS 4000` (WORDS: fade when not
given; `grow`, `slide from top`, ...); the main thread's CPU time (/proc/PID/task/PID/stat) and
voluntary context switches (its wake-ups, /proc/PID/task/PID/status) are read over 2 s inside
the transition, and over 3 s idle before it and after it. Nothing talks to the compositor inside
a window. The compositor's RssAnon (/proc/PID/status) is read in each window (reading it wakes
nobody): before, the largest inside, after.

--probe: then one more transition while stall.py's probe (GET_VERSION every 5 ms on the IPC
socket) runs: the longest round trip and the p99 during the transition against 2 s idle before
it (the probe's own wake-ups would spoil the CPU rounds, so it runs apart).

    tools/devroot python3 tests/bench/fade.py --compositor build-x/examples/veil-tinywl
    tools/devroot python3 tests/bench/fade.py --compositor ... --kind grow --probe
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import veiltest as vt  # noqa: E402

ROUNDS = 3
KIND = 'fade'
PROBE = False
i = 0
while i < len(sys.argv):
    if sys.argv[i] == '--rounds':
        ROUNDS = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    elif sys.argv[i] == '--kind':
        KIND = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    elif sys.argv[i] == '--probe':
        PROBE = True
        del sys.argv[i]
    else:
        i += 1

t = vt.Test('fade-bench')
OUT = 'HEADLESS-1'
W, H = 1920, 1080
CLK_TCK = os.sysconf('SC_CLK_TCK')


def main_thread(pid):
    """(now, CPU ticks, wake-ups) of the compositor's main thread."""
    _, ut, st, _, _ = vt.proc.proc_stat(pid, pid)
    return time.monotonic(), ut + st, vt.proc.wakeups(pid, pid)


def window(pid, seconds):
    """(span, % CPU, wake-ups/s, largest RssAnon in MiB) of the main thread over seconds."""
    t0, ticks0, vcs0 = main_thread(pid)
    rss = vt.proc.rss_anon_kb(pid)
    end = t0 + seconds
    while time.monotonic() < end:
        time.sleep(min(0.25, max(0.0, end - time.monotonic())))
        rss = max(rss, vt.proc.rss_anon_kb(pid))
    t1, ticks1, vcs1 = main_thread(pid)
    span = t1 - t0
    return span, (ticks1 - ticks0) / CLK_TCK / span * 100.0, (vcs1 - vcs0) / span, rss / 1024.0


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
        c.msg(f'output {OUT} veil {vt.quote(new)} fill transition {KIND} 4000')
        v = c.wait_until(lambda: (c.veil(OUT).get('transition') or {}).get('progress'),
                         'the fade to run', interval=0.02)
        during = window(pid, 2.0)
        c.wait_until(lambda: c.veil(OUT).get('transition') is None, 'the fade to end')
        time.sleep(0.5)
        after = window(pid, 3.0)
        rows.append((before, during, after))
        t.check(True, f'round {r + 1}: idle {before[1]:.1f}% CPU {before[2]:.1f} wake-ups/s; '
                f'{KIND} {during[1]:.1f}% CPU {during[2]:.1f} wake-ups/s = '
                f'{during[2] / hz:.2f} per frame at {hz:.0f} Hz, '
                f'{during[1] / 100.0 * 1000.0 / hz:.2f} ms CPU per frame; '
                f'after {after[1]:.1f}% CPU {after[2]:.1f} wake-ups/s; RssAnon MiB before '
                f'{before[3]:.1f}, during {during[3]:.1f}, after {after[3]:.1f}')
    if PROBE:
        import stall  # noqa: E402
        probe = stall.Probe(c.swaysock).start()
        time.sleep(2.5)
        i0 = time.monotonic()
        time.sleep(2.0)
        i1 = time.monotonic()
        c.msg(f'output {OUT} veil {vt.quote(pictures[0])} fill transition {KIND} 4000')
        c.wait_until(lambda: c.veil(OUT).get('transition'), 'the transition to run')
        d0 = time.monotonic()
        c.wait_until(lambda: c.veil(OUT).get('transition') is None, 'the transition to end')
        d1 = time.monotonic()
        probe.stop()
        for name, (a, b) in (('idle', (i0, i1)), ('transition', (d0, d1))):
            trips = sorted(probe.window(a, b))
            p99 = trips[min(len(trips) - 1, int(0.99 * len(trips)))] if trips else 0.0
            t.check(bool(trips), f'probe, {name}: {len(trips)} requests, longest '
                    f'{trips[-1] if trips else 0:.2f} ms, p99 {p99:.2f} ms')
with open('/proc/loadavg') as f:
    t.check(True, f'load average at the end: {f.read().strip()}')
t.finish()
