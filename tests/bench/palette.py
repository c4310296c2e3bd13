#!/usr/bin/env python3
"""
palette.py --compositor PATH [--outdir DIR]: veil's palette (the status's "palette", median cut
on a 64x64 copy, util/palette.h) against ImageMagick's `convert IMG -resize 64x64 -colors 5
-unique-colors txt:` (its octree quantizer), on pictures made here (no photos in the tree: a
few multi-colour scenes with gradients and noise). veil-tinywl (headless, pixman) shows each
picture; the palette is read from its status.

For each picture it prints both palettes and, for each of ImageMagick's colours, the distance
(the largest channel difference, 0-255) to the nearest of veil's, and the other way round; the
mean of those is the figure in docs/measurements.md. Nothing here passes or fails: a
different quantizer gives different colours, the figure says how far apart they are.

    tools/devroot python3 tests/bench/palette.py --compositor build-x/examples/veil-tinywl
"""
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import veiltest as vt  # noqa: E402

W, H = 640, 400
OUT = 'HEADLESS-1'


def stripes():
    img = np.empty((H, W, 3), np.uint8)
    colours = [(200, 60, 40), (40, 120, 200), (240, 220, 90), (30, 160, 70), (120, 50, 150)]
    edges = np.cumsum([0, 0.35, 0.25, 0.20, 0.12, 0.08]) * W
    for c, a, b in zip(colours, edges[:-1], edges[1:]):
        img[:, int(a):int(b)] = c
    return img


def landscape(rng):
    y = np.linspace(0, 1, H)[:, None, None]
    sky = (1 - y) * np.array([40, 90, 200]) + y * np.array([170, 210, 250])
    ground = (1 - y) * np.array([60, 150, 50]) + y * np.array([20, 70, 20])
    img = np.where(np.arange(H)[:, None, None] < H * 0.6, sky, ground) * np.ones((1, W, 1))
    yy, xx = np.mgrid[0:H, 0:W]
    img[(yy - 80) ** 2 + (xx - 480) ** 2 < 45 ** 2] = (250, 220, 60)
    img += rng.normal(0, 6, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def sunset(rng):
    x = np.linspace(0, 1, W)[None, :, None]
    img = (1 - x) * np.array([250, 140, 40]) + x * np.array([110, 40, 130])
    img = img * np.ones((H, 1, 1))
    img[int(H * 0.75):] = (25, 20, 30)
    img += rng.normal(0, 4, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def quadrants_noise(rng):
    img = vt.quadrant_pixels(W, H).astype(np.float64)
    img += rng.normal(0, 12, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def blobs(rng):
    img = np.empty((H, W, 3), np.float64)
    img[:] = (225, 210, 180)
    yy, xx = np.mgrid[0:H, 0:W]
    colours = [(200, 40, 60), (30, 90, 160), (250, 190, 30), (40, 140, 90), (90, 60, 40),
               (160, 160, 200)]
    for i in range(40):
        c = colours[i % len(colours)]
        cy, cx, r = rng.integers(0, H), rng.integers(0, W), rng.integers(15, 70)
        img[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = c
    img += rng.normal(0, 5, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def two():
    img = np.empty((H, W, 3), np.uint8)
    img[:, :int(W * 0.7)] = (230, 200, 20)
    img[:, int(W * 0.7):] = (20, 40, 120)
    return img


def imagemagick(path):
    r = subprocess.run(['convert', path, '-resize', '64x64', '-colors', '5', '-unique-colors',
                        'txt:'], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise vt.Failure(f'convert {path}: {r.stderr}')
    return [tuple(int(v, 16) for v in (m[0:2], m[2:4], m[4:6]))
            for m in re.findall(r'#([0-9A-Fa-f]{6})', r.stdout)]


def nearest(colour, palette):
    return min(max(abs(a - b) for a, b in zip(colour, p)) for p in palette)


def hexes(palette):
    return ' '.join('#%02x%02x%02x' % c for c in palette)


t = vt.Test('palette-bench')
rng = np.random.default_rng(2026)
pictures = {
    'stripes (5 flat colours, 35/25/20/12/8 %)': stripes(),
    'landscape (sky and ground gradients, a sun, noise)': landscape(rng),
    'sunset (orange to purple, a dark band, noise)': sunset(rng),
    'quadrants with noise (sigma 12)': quadrants_noise(rng),
    'blobs (6 colours on beige, noise)': blobs(rng),
    'two colours (70/30)': two(),
}
rows = []
with t.compositor(outputs=1) as c:
    ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
    c.wait_mode(OUT, W, H)
    for i, (name, img) in enumerate(pictures.items()):
        path = vt.make_png(os.path.join(t.media, f'p{i}.png'), img)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
        t.check(ok, f'set {name}', err)
        v = c.wait_until(lambda: (lambda s: s.get('palette') if s.get('file') == path and
                                  s.get('palette') else None)(c.veil(OUT)),
                         f'the palette of {name}')
        veil = [tuple(int(x[k:k + 2], 16) for k in (1, 3, 5)) for x in v]
        im = imagemagick(path)
        im_to_veil = [nearest(x, veil) for x in im]
        veil_to_im = [nearest(x, im) for x in veil]
        rows.append((name, veil, im, im_to_veil, veil_to_im))
        print(f'\n{name}\n  veil        {hexes(veil)}\n  ImageMagick {hexes(im)}\n'
              f'  ImageMagick -> nearest veil: {im_to_veil}\n'
              f'  veil -> nearest ImageMagick: {veil_to_im}', flush=True)

print('\n| picture | veil | ImageMagick | IM→veil mean (max) | veil→IM mean (max) |')
print('|---|---|---|---|---|')
for name, veil, im, a, b in rows:
    print(f'| {name} | {hexes(veil)} | {hexes(im)} | {np.mean(a):.1f} ({max(a)}) | '
          f'{np.mean(b):.1f} ({max(b)}) |')
t.finish()
