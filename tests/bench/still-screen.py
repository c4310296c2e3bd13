#!/usr/bin/env python3
"""
still-screen.py: a large still, from the command to the new picture on screen, in veil-tinywl
(the default path, veil-decoder, and in process) and in sway 1.12 with swaybg, in one run.

    tools/devroot sh -c 'meson setup build-rel --buildtype=release -Dwlroots=0.20 && \\
        meson compile -C build-rel'
    tools/devroot python3 tests/bench/still-screen.py --build build-rel [--rounds 3]

The files (made once in <out>/media from scaling.py's 6000x4000 texture: a natural-looking
picture with grain, docs/scaling.md):

  jpeg  6000x4000 JPEG, ImageMagick quality 92, 4:2:0
  png   2600x1200 PNG of 16 bits a sample (RGB), a crop of the texture
  heic  3840x2160 HEIC (heif-enc, x265, quality 80)
  avif  3840x2160 AVIF (ffmpeg's libsvtav1, preset 8, crf 30, 4:2:0)

The systems, one headless 1920x1080 output each, pixman:

  helper     veil-tinywl, `output * veil FILE fill` (veil-decoder decodes: the default)
  inprocess  veil-tinywl --decoding inprocess, the same command
  swaybg     sway 1.12, `output * bg FILE fill` (sway starts swaybg, which decodes through
             gdk-pixbuf: HEIC and AVIF need the package heif-gdk-pixbuf, or swaybg shows
             nothing and the run ends at --timeout)

Each run starts the compositor on a solid colour (#203040), then sends the command and grabs
a 16x16 region at the output's centre (regioncopy.py: the compositor copies the region into one
buffer, not grim's whole output) again and again until it has not changed for --settle seconds.
The time to screen is from the command's send to the end of the first grab equal to the
settled picture (every sample within 2 levels): what the user sees as the new wallpaper.
Rounds interleave the systems (their order rotates each round), so a drift of the machine
lands on none; the report gives the median and the range over the rounds.

With --decode-still (BUILD/tests/tools/decode-still), each file is also decoded --rounds times
as veil's worker does it, the tool printing the CPU and wall time of each step on its thread
(read, decode, shrink, colour): the worker's part of the time to screen.

Writes <out>/results.json and report.txt (also printed); <out> is BUILD/bench/still-screen.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import compare  # noqa: E402
import scaling  # noqa: E402

BASE_TEXT = '#203040'
REGION = 16
FILES = {
    'jpeg': 'texture-6000x4000.jpg',
    'png': 'texture-2600x1200-16bit.png',
    'heic': 'texture-3840x2160.heic',
    'avif': 'texture-3840x2160.avif',
}
SYSTEMS = ('helper', 'inprocess', 'swaybg')


def run(argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def make_media(folder):
    os.makedirs(folder, exist_ok=True)
    src = scaling.make_pictures(folder, ['texture'])['texture']
    paths = {k: os.path.abspath(os.path.join(folder, v)) for k, v in FILES.items()}
    if not os.path.exists(paths['jpeg']):
        run(['convert', src, '-quality', '92', '-sampling-factor', '2x2', paths['jpeg']])
    if not os.path.exists(paths['png']):
        run(['convert', src, '-crop', '2600x1200+1700+1400', '+repage', '-depth', '16',
             'PNG48:' + paths['png']])
    small = os.path.join(folder, 'texture-3840x2160.png')
    if not os.path.exists(small):
        run(['convert', src, '-filter', 'Lanczos', '-resize', '3840x2160^', '-gravity',
             'center', '-extent', '3840x2160', small])
    if not os.path.exists(paths['heic']):
        run(['heif-enc', '-q', '80', '-o', paths['heic'], small])
    if not os.path.exists(paths['avif']):
        # Debian's heif-enc has no AV1 encoder: ffmpeg's SVT-AV1, one still picture.
        run(['ffmpeg', '-loglevel', 'error', '-y', '-i', small, '-frames:v', '1', '-c:v',
             'libsvtav1', '-preset', '8', '-crf', '30', '-pix_fmt', 'yuv420p', paths['avif']])
    return paths


def grab_until_settled(screen, t0, settle, timeout, alive):
    """[(seconds since t0, pixels)] until the region has not changed for settle seconds."""
    grabs = []
    changed = time.monotonic()
    deadline = t0 + timeout
    while True:
        img = screen.grab().astype(np.int16)
        t = time.monotonic()
        if grabs and np.abs(img - grabs[-1][1]).max() > 2:
            changed = t
        grabs.append((t - t0, img))
        if t - changed > settle and len(grabs) > 1 and \
                np.abs(img - grabs[0][1]).max() > 2:
            return grabs
        if t > deadline:
            raise bl.BenchError(f'the picture did not settle within {timeout:.0f} s')
        alive()


def once(args, system, path, outdir):
    name = f'{system}-{os.path.basename(path)}'
    if system == 'swaybg':
        comp = bl.Compositor('sway', args.sway, outdir, name=name,
                             sway_config_extra=[f'output * bg {BASE_TEXT} solid_color'])
        cmd = f'output * bg {bl.quote(path)} fill'
    else:
        extra = ['--decoding', 'inprocess'] if system == 'inprocess' else []
        comp = bl.Compositor('veil', args.compositor, outdir, name=name, args=extra)
        cmd = f'output * veil {bl.quote(path)} fill'
    w, h = comp.size
    region = (w // 2 - REGION // 2, h // 2 - REGION // 2, REGION, REGION)
    with comp:
        if system != 'swaybg':
            comp.ipc.must(f'output * veil {BASE_TEXT} solid_color')
        screen = compare.Screen(comp, region)
        try:
            base = np.array([0x20, 0x30, 0x40])

            def on_base():
                m = screen.grab().reshape(-1, 3).mean(axis=0)
                return float(np.abs(m - base).max()) < 2
            bl.wait_until(on_base, 'the solid colour', alive=comp.require_alive)
            time.sleep(0.3)
            t0 = time.monotonic()
            comp.ipc.must(cmd)
            grabs = grab_until_settled(screen, t0, args.settle, args.timeout,
                                       comp.require_alive)
        finally:
            screen.close()
        if system != 'swaybg':
            v = comp.veil_status().get(comp.output_names[0]) or {}
            if v.get('error') or v.get('file') != path:
                raise bl.BenchError(f'{system}: veil shows {v.get("file")!r}: '
                                    f'{v.get("error")}')
        final = grabs[-1][1]
        first = next(t for t, img in grabs if np.abs(img - final).max() <= 2)
    return {'system': system, 'file': os.path.basename(path), 'ms': 1000.0 * first,
            'grabs': len(grabs)}


def decode_steps(tool, path, rounds, cover):
    rows = []
    for _ in range(rounds):
        out = subprocess.run([tool, '--steps', path, '/dev/null', str(cover[0]),
                              str(cover[1])], check=True, capture_output=True, text=True)
        row = {}
        for line in out.stdout.splitlines():
            if line.startswith('step '):
                _, step, cpu, wall = line.split()
                row[step] = (float(cpu), float(wall))
        rows.append(row)
    return {step: (bl.median([r[step][0] for r in rows]), bl.median([r[step][1] for r in rows]))
            for step in rows[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=bl.default_build())
    ap.add_argument('--compositor', help='veil-tinywl (default BUILD/examples/veil-tinywl)')
    ap.add_argument('--sway', default='sway')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--files', default=','.join(FILES))
    ap.add_argument('--systems', default=','.join(SYSTEMS))
    ap.add_argument('--settle', type=float, default=1.0)
    ap.add_argument('--timeout', type=float, default=180.0)
    ap.add_argument('--decode-still', help='decode-still binary (default BUILD/tests/tools/'
                    'decode-still; "none": no step times)')
    ap.add_argument('--out')
    args = ap.parse_args()
    args.compositor = args.compositor or bl.compositor_path(args.build)
    out = args.out or os.path.join(args.build, 'bench', 'still-screen')
    os.makedirs(out, exist_ok=True)
    bl.need('convert', 'heif-enc', 'ffmpeg', 'sway')
    media = make_media(os.path.join(out, 'media'))
    files = args.files.split(',')
    systems = args.systems.split(',')
    load0 = bl.loadavg()
    results = []
    for rnd in range(args.rounds):
        order = systems[rnd % len(systems):] + systems[:rnd % len(systems)]
        for f in files:
            for system in order:
                rdir = os.path.join(out, f'round{rnd}')
                os.makedirs(rdir, exist_ok=True)
                r = once(args, system, media[f], rdir)
                r['round'] = rnd
                r['kind'] = f
                bl.say(f'round {rnd} {f} {system}: {r["ms"]:.0f} ms')
                results.append(r)
    steps = {}
    tool = args.decode_still or os.path.join(args.build, 'tests', 'tools', 'decode-still')
    if tool != 'none' and os.path.exists(tool):
        for f in files:
            steps[f] = decode_steps(tool, media[f], args.rounds, (1920, 1080))
    load1 = bl.loadavg()
    lines = [f'still-screen: {args.rounds} rounds, 1920x1080, load average {load0[0]:.1f} '
             f'before, {load1[0]:.1f} after; ms from the command to the picture on screen, '
             'median (min-max)',
             f'{"file":6} ' + ' '.join(f'{s:>22}' for s in systems)]
    for f in files:
        cells = []
        for s in systems:
            v = [r['ms'] for r in results if r['kind'] == f and r['system'] == s]
            cells.append(f'{bl.median(v):6.0f} ({min(v):4.0f}-{max(v):4.0f})'.rjust(22))
        lines.append(f'{f:6} ' + ' '.join(cells))
    if steps:
        lines.append('the worker\'s steps (decode-still --steps, median CPU / wall ms):')
        for f, st in steps.items():
            lines.append(f'{f:6} ' + ', '.join(f'{k} {c:.0f}/{w:.0f}' for k, (c, w) in
                                                 st.items()))
    report = '\n'.join(lines)
    print(report)
    with open(os.path.join(out, 'report.txt'), 'w') as fh:
        fh.write(report + '\n')
    with open(os.path.join(out, 'results.json'), 'w') as fh:
        json.dump({'results': results, 'steps': steps, 'load': [load0, load1]}, fh, indent=1)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except bl.BenchError as e:
        print(f'still-screen: {e}', file=sys.stderr)
        sys.exit(1)
