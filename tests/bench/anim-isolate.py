#!/usr/bin/env python3
"""
What an animation costs decoded in veil-decoder against in the compositor's process
(docs/measurements.md, "Animations in the helper").

Two animated GIFs made here with ffmpeg (testsrc2): a 1080p one of 30 frames at 10 fps (8 MiB
a frame: larger than veil's 64 MiB budget, so decoded on the fly for as long as it plays) and
a 480x270 one of 40 frames (kept whole after the first play). For each, veil-tinywl runs with
VEIL_DECODER=inprocess and with the helper, in turn, for --rounds rounds (A B, then B A, ...):
each round shows the GIF on one 1920x1080 output, waits --warmup s, then measures --duration s:

  CPU of the compositor (every thread) and of its descendants (the helper's two processes),
  from /proc/PID/stat; wake-ups of the compositor's main thread (voluntary context switches);
  frames shown (veil's status); memory of the compositor and of the helpers at the end (Pss
  from /proc/PID/smaps_rollup, summed: pages they share, the frames' memfds and libraries,
  count once); how many helpers (the animation's two processes, and the spare waiting for the
  next decode); how many of the helper's frame memfds the compositor maps (the recycled
  slots, source/remote/frame_pool.c).

Prints the medians per mode and the load average before and after.

    tools/devroot python3 tests/bench/anim-isolate.py --compositor build/examples/veil-tinywl \
        --veilctl build/clients/veilctl/veilctl --outdir build/bench-anim-isolate [--rounds 3]
(VEIL_DECODER_HELPER=build/helper/veil-decoder when veil is not installed.)
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
sys.path.insert(0, HERE)


def take(flag, default, cast):
    if flag in sys.argv:
        i = sys.argv.index(flag)
        value = cast(sys.argv[i + 1])
        del sys.argv[i:i + 2]
        return value
    return default


ROUNDS = take('--rounds', 3, int)
WARMUP = take('--warmup', 3.0, float)
DURATION = take('--duration', 15.0, float)
from veiltest import bench as bl  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('anim-isolate-bench')
OUT = 'HEADLESS-1'


def make_gif(name, size, frames):
    path = os.path.join(t.media, name)
    subprocess.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i',
                    f'testsrc2=size={size}:rate=10', '-frames:v', str(frames), '-loop', '0',
                    path], check=True)
    return path


GIFS = [('1080p, on the fly', make_gif('fly-1080p.gif', '1920x1080', 30)),
        ('480x270, kept', make_gif('kept-270p.gif', '480x270', 40))]
MODES = ('inprocess', 'process')


def ticks(pid):
    _, ut, st, _, _ = bl.proc_stat(pid)
    return ut + st


def helpers_ticks(pid):
    total = 0
    for d in bl.descendants(pid):
        try:
            total += ticks(d)
        except OSError:
            pass  # ended meanwhile
    return total


def frame_mappings(pid):
    """The helper's frame memfds the compositor maps (source/remote/frame_pool.c)."""
    try:
        return sum('memfd:veil-frame' in line
                   for line in bl.read_text(f'/proc/{pid}/maps').splitlines())
    except OSError:
        return 0


def one_round(mode, path):
    with t.compositor(outputs=1, name=f'{mode}-{os.path.basename(path)}',
                      env={'VEIL_DECODER': mode}) as c:
        c.msg(f'output {OUT} resolution 1920x1080')
        c.wait_mode(OUT, 1920, 1080)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
        if not ok:
            raise RuntimeError(err)
        c.wait_veil(OUT, 'shown', file=path)
        time.sleep(WARMUP)
        pid = c.proc.pid
        f0 = (c.veil(OUT).get('source') or {}).get('frames', 0)
        c0, h0, w0 = ticks(pid), helpers_ticks(pid), vt.proc.wakeups(pid, pid)
        t0 = time.monotonic()
        time.sleep(DURATION)
        c1, h1, w1 = ticks(pid), helpers_ticks(pid), vt.proc.wakeups(pid, pid)
        secs = time.monotonic() - t0
        f1 = (c.veil(OUT).get('source') or {}).get('frames', 0)
        helpers = bl.descendants(pid)
        mem = bl.pss_kib(pid) + sum(bl.pss_kib(d) for d in helpers)
        frames = max(f1 - f0, 1)
        # A helper that ended inside the window takes its ticks with it: say so.
        return {
            'compositor %': 100 * (c1 - c0) / bl.CLK_TCK / secs,
            'helper %': 100 * max(h1 - h0, 0) / bl.CLK_TCK / secs,
            'wake-ups a frame': (w1 - w0) / frames,
            'frames/s': (f1 - f0) / secs,
            'PSS MiB': mem / 1024,
            'helpers': len(helpers),
            'frame memfds': frame_mappings(pid),
        }


load = [bl.loadavg()]
results = {}
for label, path in GIFS:
    for r in range(ROUNDS):
        for mode in (MODES if r % 2 == 0 else MODES[::-1]):
            results.setdefault((label, mode), []).append(one_round(mode, path))
load.append(bl.loadavg())

print(f'# load average before {load[0]}, after {load[1]}; {ROUNDS} rounds of {DURATION:.0f} s')
keys = ['compositor %', 'helper %', 'wake-ups a frame', 'frames/s', 'PSS MiB', 'helpers',
        'frame memfds']
print('| GIF | decoded | ' + ' | '.join(keys) + ' |')
print('|---|---|' + '---|' * len(keys))
for (label, mode), rows in results.items():
    cells = [f'{statistics.median(r[k] for r in rows):.2f}' for k in keys]
    print(f'| {label} | {mode} | ' + ' | '.join(cells) + ' |')
t.finish()
