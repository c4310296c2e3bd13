#!/usr/bin/env python3
"""
slideshow-stall.py --compositor PATH [--outdir DIR] [--seconds N] [--every S]: whether a
slideshow's steps stall the compositor. veil-tinywl (headless, pixman, one 1920x1080 output)
shows a still while stall.py's probe (GET_VERSION every 5 ms on the IPC socket) runs for N
seconds, then a slideshow of six noisy 4000x3000 photos (PNG and JPEG, decoded ahead on veil's
workers) changing every S seconds with a 500 ms fade, for N seconds more: the probe's longest
round trip and p99 in each phase, and the steps seen (the status's position).

    tools/devroot python3 tests/bench/slideshow-stall.py --compositor build/examples/veil-tinywl
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import veiltest as vt  # noqa: E402

SECONDS = 20.0
EVERY = 2
i = 0
while i < len(sys.argv):
    if sys.argv[i] == '--seconds':
        SECONDS = float(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    elif sys.argv[i] == '--every':
        EVERY = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    else:
        i += 1

import stall  # noqa: E402

t = vt.Test('slideshow-stall')
OUT = 'HEADLESS-1'
show = os.path.join(t.media, 'show')
os.makedirs(show, exist_ok=True)
for k in range(6):
    ext = 'png' if k % 2 == 0 else 'jpg'
    path = os.path.join(show, f'{k}.{ext}')
    colour = ['0x204060', '0x806040', '0x408020'][k % 3]
    subprocess.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i',
                    f'color=c={colour}:s=4000x3000,noise=alls=60:allf=t', '-frames:v', '1',
                    path], check=True)
still = vt.make_png(os.path.join(t.media, 'still.png'), vt.quadrant_pixels(1920, 1080))


def phase(probe, seconds, watch=None):
    a = time.monotonic()
    seen = set()
    while time.monotonic() - a < seconds:
        time.sleep(0.5)
        if watch is not None:
            seen.add(watch())
    b = time.monotonic()
    trips = sorted(probe.window(a, b))
    p99 = trips[min(len(trips) - 1, int(0.99 * len(trips)))] if trips else 0.0
    return trips, p99, seen


with t.compositor(outputs=1) as c:
    c.msg(f'output {OUT} resolution 1920x1080')
    c.wait_mode(OUT, 1920, 1080)
    c.msg(f'output {OUT} veil {vt.quote(still)} fill')
    c.wait_veil(OUT, 'shown', file=still)
    probe = stall.Probe(c.swaysock).start()
    time.sleep(1.0)
    idle, idle_p99, _ = phase(probe, SECONDS)
    ok, err = c.msg(f'output {OUT} veil {vt.quote(show)} fill every {EVERY}s '
                    f'transition fade 500')
    t.check(ok, 'the slideshow starts', err)
    steps, steps_p99, seen = phase(
        probe, SECONDS, lambda: ((c.veil(OUT).get('slideshow') or {}).get('file')))
    probe.stop()
    files = {f for f in seen if f}
    t.check(len(files) >= 3, f'the show stepped: {len(files)} pictures seen in '
            f'{SECONDS:.0f} s', str(sorted(files)))
    for name, trips, p99 in (('idle', idle, idle_p99), ('slideshow', steps, steps_p99)):
        t.check(bool(trips), f'probe, {name}: {len(trips)} requests, longest '
                f'{trips[-1] if trips else 0:.2f} ms, p99 {p99:.2f} ms')
with open('/proc/loadavg') as f:
    t.check(True, f'load average at the end: {f.read().strip()}')
t.finish()
