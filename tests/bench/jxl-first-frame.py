#!/usr/bin/env python3
"""
jxl-first-frame.py: how long GNOME's adwaita-l.jxl (gnome-backgrounds: 4096x4096, lossy, Display
P3) takes from `output HEADLESS-1 veil FILE fill` to the status showing it, beside the same
picture as a PNG (djxl's 8-bit decode, its P3 profile kept: the same colour conversion), on
veil-tinywl's 1920x1080 and 3840x2160 outputs; the files alternate, --rounds times each, with
a solid colour between them.

    tools/devroot python3 tests/bench/jxl-first-frame.py \\
        --compositor build-rel/examples/veil-tinywl --outdir build-rel/bench-jxl [--rounds 5]

Twice: stills decoded in veil-decoder (the default), then in the compositor's process
(VEIL_DECODER=inprocess), where the time is the worker's own (read, decode, shrink, colour)
with no helper to start and no memfd to fill. Times from the command's send to the first status
that shows the file, polled every 10 ms through the IPC socket.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from veiltest import debfiles  # noqa: E402
import veiltest as vt  # noqa: E402

ROUNDS = 5
for i, arg in enumerate(sys.argv):
    if arg == '--rounds':
        ROUNDS = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
        break

t = vt.Test('jxl-first-frame')
OUT = 'HEADLESS-1'
jxl = os.path.join(t.media, 'adwaita-l.jxl')
shutil.copyfile(debfiles.path('gnome-backgrounds', 'usr/share/backgrounds/gnome/adwaita-l.jxl'),
                jxl)
png = os.path.join(t.media, 'adwaita-l.png')
subprocess.run(['djxl', jxl, png, '--bits_per_sample=8'], check=True, capture_output=True)
for path in (jxl, png):
    os.chmod(path, 0o644)


def first_frame(c, path):
    ok, err = c.msg(f'output {OUT} veil #203040 solid_color')
    c.wait_until(lambda: c.veil(OUT).get('state') == 'shown' and
                 c.veil(OUT).get('file') is None, 'the colour')
    start = time.monotonic()
    ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
    if not ok:
        raise vt.Failure(err)
    c.wait_until(lambda: (c.veil(OUT).get('state') == 'shown' and
                          c.veil(OUT).get('file') == path), path, interval=0.01)
    return 1000 * (time.monotonic() - start)


rows = []
for place, env in (('veil-decoder', {}), ('in process', {'VEIL_DECODER': 'inprocess'})):
    with t.compositor(outputs=1, env=env, name=f'compositor-{place.replace(" ", "-")}') as c:
        for w, h in ((1920, 1080), (3840, 2160)):
            c.msg(f'output {OUT} resolution {w}x{h}')
            c.wait_mode(OUT, w, h)
            times = {jxl: [], png: []}
            for _ in range(ROUNDS):
                for path in (jxl, png):
                    times[path].append(first_frame(c, path))
            for path in (jxl, png):
                ms = sorted(times[path])
                rows.append((place, f'{w}x{h}', os.path.basename(path), statistics.median(ms),
                             ms[0], ms[-1]))
                vt._say(f'{place:13} {w}x{h} {os.path.basename(path):14} median '
                        f'{statistics.median(ms):7.1f} ms, {ms[0]:7.1f} to {ms[-1]:7.1f} '
                        f'({ROUNDS} runs)')

print('| decoded in | output | file | median | fastest | slowest |')
print('|---|---|---|---|---|---|')
for place, size, name, med, lo, hi in rows:
    print(f'| {place} | {size} | {name} | {med:.0f} ms | {lo:.0f} ms | {hi:.0f} ms |')
t.finish()
