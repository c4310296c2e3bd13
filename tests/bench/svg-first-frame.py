#!/usr/bin/env python3
"""
Time from command to first frame of a 4096x4096 SVG (GNOME's blobs-l.svg, fetched by apt) in
`fill`, against the same picture as a 4096x4096 PNG (rsvg-convert's drawing of it), on a
1920x1080 output and on a 3840x2160 one (docs/measurements.md, "SVG at the output's size").
veil-tinywl on its default path (stills decoded in veil-decoder); commands alternate between
the two files (each switch decodes anew: the last file's source is gone), --pause seconds apart
(1). Each time is from just before the IPC command is sent to the moment `veilctl status
--watch --json` prints the output shown with the new file. Prints the medians and maxima.

    tools/devroot python3 tests/bench/svg-first-frame.py \
        --compositor build-rel/examples/veil-tinywl --veilctl build-rel/clients/veilctl/veilctl \
        --outdir build-rel/bench-svg [--runs 10] [--pause 1]
"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
RUNS = 10
PAUSE = 1.0
for flag in ('--runs', '--pause'):
    if flag in sys.argv:
        i = sys.argv.index(flag)
        if flag == '--runs':
            RUNS = int(sys.argv[i + 1])
        else:
            PAUSE = float(sys.argv[i + 1])
        del sys.argv[i:i + 2]
import veiltest as vt  # noqa: E402
from veiltest import debfiles  # noqa: E402

t = vt.Test('svg-first-frame')
OUT = 'HEADLESS-1'
svg = debfiles.path('gnome-backgrounds', 'usr/share/backgrounds/gnome/blobs-l.svg')
png = os.path.join(t.media, 'blobs-l-4096.png')
subprocess.run(['rsvg-convert', '-w', '4096', '-h', '4096', '-o', png, svg], check=True)


def first_frame(c, watch, path):
    ms, o = watch.shown_after(c, OUT, f'{vt.quote(path)} fill', path, timeout=60)
    return ms, (o.get('source') or {}).get('decoder')


load = [open('/proc/loadavg').read().split()[0]]
results = {}
with t.compositor(outputs=1) as c:
    watch = vt.StatusWatch(t.veilctl, c.client_env)
    try:
        for w, h in ((1920, 1080), (3840, 2160)):
            ok, err = c.msg(f'output {OUT} resolution {w}x{h}')
            c.wait_mode(OUT, w, h)
            first_frame(c, watch, png)  # the warm-up
            times = {'svg': [], 'png': []}
            decoders = {}
            for i in range(RUNS):
                for name, path in (('svg', svg), ('png', png)):
                    time.sleep(PAUSE)
                    ms, decoders[name] = first_frame(c, watch, path)
                    times[name].append(ms)
            results[(w, h)] = (times, decoders)
    finally:
        watch.stop()
load.append(open('/proc/loadavg').read().split()[0])

for (w, h), (times, decoders) in results.items():
    for name in ('svg', 'png'):
        v = times[name]
        print(f'{w}x{h} {name} ({decoders[name]}): median {statistics.median(v):.0f} ms, '
              f'max {max(v):.0f} ms over {len(v)}')
print(f'load average {load[0]} -> {load[1]}')
t.check(True, 'measured')
t.finish()
