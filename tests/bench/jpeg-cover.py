#!/usr/bin/env python3
"""
jpeg-cover.py: a large JPEG decoded for a smaller output, whole or at a reduced size
(libjpeg-turbo's DCT scaling, decode/jpeg.c's load_cover), on the worker's path alone.

    tools/devroot sh -c 'meson setup build-rel --buildtype=release && \\
        meson compile -C build-rel tests/tools/decode-still'
    tools/devroot python3 tests/bench/jpeg-cover.py --build build-rel

The 6000x4000 texture and zone plate of scaling.py (docs/scaling.md) are written as JPEGs by
ImageMagick (quality 92, 4:2:0). Each is run through tests/tools/decode-still
(veil_still_decode: the decode, the `smooth` shrink to cover the output, the colour) --rounds
times whole (--full) and as veil runs it (reduced), the two interleaved; the report gives the
median CPU time of the worker's thread, and PSNR (R, G, B) and SSIM of the output's centre
against ImageMagick's fill of the same JPEG:

    convert in.jpg -filter Lanczos -resize WxH^ -gravity center -extent WxH ref.png
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
from veiltest import decode_still  # noqa: E402
import scaling  # noqa: E402


def centre(img, w, h):
    y = (img.shape[0] - h) // 2
    x = (img.shape[1] - w) // 2
    return img[y:y + h, x:x + w]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default='build-rel')
    ap.add_argument('--out', default=None)
    ap.add_argument('--sizes', default='1920x1080,3840x2160')
    ap.add_argument('--pictures', default='texture,zoneplate')
    ap.add_argument('--rounds', type=int, default=5)
    args = ap.parse_args()
    tool = os.path.join(args.build, 'tests', 'tools', 'decode-still')
    out = args.out or os.path.join(args.build, 'bench', 'jpeg-cover')
    os.makedirs(out, exist_ok=True)
    pngs = scaling.make_pictures(os.path.join(out, 'pictures'), args.pictures.split(','))
    rows = []
    for name, png in pngs.items():
        jpg = png[:-4] + '.jpg'
        if not os.path.exists(jpg):
            subprocess.run(['convert', png, '-quality', '92', '-sampling-factor', '2x2',
                            jpg], check=True)
        for size in args.sizes.split(','):
            w, h = (int(v) for v in size.split('x'))
            ref = scaling.read_png(scaling.reference(jpg, (w, h), out))
            # The two interleaved, round by round: the machine's load drifts.
            cpu, info, pixels = {'full': [], 'reduced': []}, {}, {}
            for _ in range(args.rounds):
                for mode in cpu:
                    pam = os.path.join(out, f'{name}-{w}x{h}-{mode}.pam')
                    info[mode], pixels[mode] = decode_still.run(tool, jpg, pam, cover=(w, h),
                                                                full=mode == 'full')
                    if pixels[mode] is None:
                        raise bl.BenchError(f"{jpg}: {info[mode].get('error')}")
                    cpu[mode].append(info[mode]['cpu_ms'])
            for mode in cpu:
                img = centre(pixels[mode][:, :, :3], w, h)
                row = dict(picture=name, output=size, mode=mode,
                           cpu_ms=statistics.median(cpu[mode]),
                           kept=f"{info[mode]['width']}x{info[mode]['height']}",
                           psnr=scaling.psnr(img, ref), ssim=scaling.ssim(img, ref))
                rows.append(row)
                bl.say(f"{name} {size} {mode}: {row['cpu_ms']:.0f} ms, "
                       f"{row['psnr']:.1f} dB, SSIM {row['ssim']:.4f}")
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump(rows, f, indent=1)
    print('| picture | output | decode | worker CPU (median) | PSNR | SSIM |')
    print('|---|---|---|---|---|---|')
    for r in rows:
        print(f"| {r['picture']} | {r['output']} | {r['mode']} | {r['cpu_ms']:.0f} ms | "
              f"{r['psnr']:.1f} dB | {r['ssim']:.4f} |")
    return 0


if __name__ == '__main__':
    sys.exit(main())
