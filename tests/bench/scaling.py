#!/usr/bin/env python3
"""
scaling.py: how close veil's shrink of a large still comes to a Lanczos reference, per filter.

    tools/devroot python3 tests/bench/scaling.py                 # every picture, both sizes
    tools/devroot python3 tests/bench/scaling.py --sizes 1920x1080 --pictures zoneplate
    tools/devroot python3 tests/bench/scaling.py --no-swaybg     # veil alone

Four 6000x4000 test pictures are made here with numpy (no photo is needed, and every one is
known exactly), written as PNG by ffmpeg, in <out>/pictures:

  zoneplate  a grey zone plate, cos(pi r^2 / 2R) with R the half diagonal: its frequency grows
             from 0 in the centre to 1/2 cycle per pixel (the file's own limit) in the corners.
             Everything above the output's limit must vanish to grey; what comes back as rings
             elsewhere is aliasing (moire).
  stripes    bands of 1, 2, 3 and 5-pixel stripes, vertical, horizontal and diagonal, on a
             dark-to-light ramp.
  text       black strokes on white: random letters' worth of thin bars and dots, 2 to 14
             pixels wide, in lines, like a page of small print.
  texture    a natural-looking texture: octaves of smooth noise (each half the size and weight
             of the one before, a 1/f spectrum like a photo's) in three colours, with fine grain.

Each is shown by veil-tinywl (headless, pixman; an output of each --sizes, `fill`) with
`filter linear`, `filter smooth` and `filter nearest`, and by sway 1.12 with swaybg
(`output * bg FILE fill`, cairo's default filter) unless --no-swaybg; grim captures the output.
The reference is ImageMagick's, the same fill made by another program:

    convert in.png -filter Lanczos -resize WxH^ -gravity center -extent WxH ref.png

Each capture is compared with it: PSNR over R, G and B (8-bit, dB) and SSIM of the luma
(BT.601; Wang et al.'s Gaussian window of 11 pixels, sigma 1.5, K1 0.01, K2 0.03, computed here
in numpy) and ffmpeg's ssim filter on both turned grey by ffmpeg (another implementation: 8x8
blocks) as a check. --reuse compares the captures an earlier run left again.

--crops writes the moire crops docs/scaling.md shows: the same part of the zone plate at
1920x1080 from each capture and from the reference (PNG, 1:1, --crop WxH+X+Y).

The time each filter costs the worker is measured by scale-cost (tests/bench/scale-cost.c, CPU
time of the shrink alone) on the same files when --scale-cost names it. Results in
<out>/report.txt and results.json; <out> is BUILD/bench/scaling unless --out.
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

W, H = 6000, 4000
FILTERS = ('linear', 'smooth', 'nearest')
PICTURES = ('zoneplate', 'stripes', 'text', 'texture')


def write_png(rgb, path):
    """rgb: uint8 HxWx3 into an 8-bit RGB PNG, through ffmpeg."""
    h, w, _ = rgb.shape
    part = path + '.part.png'
    subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y', '-f', 'rawvideo', '-pix_fmt',
                    'rgb24', '-s', f'{w}x{h}', '-i', '-', '-frames:v', '1', '-pix_fmt', 'rgb24',
                    part], input=np.ascontiguousarray(rgb).tobytes(), check=True)
    os.replace(part, path)


def read_png(path):
    """Any picture as uint8 HxWx3, through ffmpeg."""
    probe = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                            'stream=width,height', '-of', 'csv=p=0', path],
                           capture_output=True, text=True, check=True).stdout.strip()
    w, h = (int(v) for v in probe.split(',')[:2])
    raw = subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-i', path, '-frames:v', '1',
                          '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def grey(v):
    v = np.clip(np.rint(v * 255.0), 0, 255).astype(np.uint8)
    return np.repeat(v[:, :, None], 3, axis=2)


def make_zoneplate():
    y = np.arange(H, dtype=np.float64)[:, None] - (H - 1) / 2
    x = np.arange(W, dtype=np.float64)[None, :] - (W - 1) / 2
    r2 = x * x + y * y
    big_r = np.hypot(W / 2, H / 2)
    # Phase pi r^2 / (2R): the local frequency r / 2R cycles a pixel, 1/2 at r = R.
    return grey(0.5 + 0.5 * np.cos(np.pi * r2 / (2 * big_r)))


def make_stripes():
    img = np.zeros((H, W), np.float64)
    ramp = np.linspace(0.15, 0.85, W)[None, :]
    img[:] = ramp
    yy, xx = np.mgrid[0:H, 0:W]
    band_h = H // 4
    for row, period in enumerate((1, 2, 3, 5)):
        y0, y1 = row * band_h, (row + 1) * band_h
        third = W // 3
        sl = (slice(y0 + 20, y1 - 20),)
        # Vertical stripes, horizontal stripes, diagonal stripes: period pixels black, period
        # pixels white.
        v = ((xx[sl[0], 0:third] // period) % 2).astype(np.float64)
        hz = ((yy[sl[0], third:2 * third] // period) % 2).astype(np.float64)
        d = (((xx[sl[0], 2 * third:] + yy[sl[0], 2 * third:]) // period) % 2).astype(np.float64)
        img[sl[0], 0:third] = v
        img[sl[0], third:2 * third] = hz
        img[sl[0], 2 * third:] = d
    return grey(img)


def make_text(rng):
    img = np.ones((H, W), np.float64)
    line_h = 60
    for top in range(40, H - line_h, line_h + 30):
        x = 40
        while x < W - 200:
            # A word: letters of 2 to 5 strokes, each a bar or a dot.
            for _ in range(rng.integers(2, 9)):
                lw = int(rng.integers(14, 36))
                stroke = int(rng.integers(2, 8))
                for _ in range(rng.integers(2, 5)):
                    kind = rng.integers(0, 3)
                    sx = x + int(rng.integers(0, max(1, lw - stroke)))
                    if kind == 0:  # vertical bar
                        img[top:top + line_h, sx:sx + stroke] = 0.0
                    elif kind == 1:  # horizontal bar
                        sy = top + int(rng.integers(0, line_h - stroke))
                        img[sy:sy + stroke, x:x + lw] = 0.0
                    else:  # dot
                        sy = top + int(rng.integers(0, line_h - 2 * stroke))
                        img[sy:sy + 2 * stroke, sx:sx + 2 * stroke] = 0.0
                x += lw + 6
            x += int(rng.integers(20, 40))
    return grey(img)


def upsample(a, h, w):
    """Bilinear upsampling of a small float32 array to h x w."""
    sh, sw = a.shape
    ys = np.linspace(0, sh - 1, h, dtype=np.float32)
    xs = np.linspace(0, sw - 1, w, dtype=np.float32)
    y0 = np.minimum(ys.astype(np.int32), sh - 2)
    x0 = np.minimum(xs.astype(np.int32), sw - 2)
    fy = (ys - y0)[:, None]
    fx = (xs - x0)[None, :]
    top = a[y0][:, x0] * (1 - fx) + a[y0][:, x0 + 1] * fx
    bottom = a[y0 + 1][:, x0] * (1 - fx) + a[y0 + 1][:, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def make_texture(rng):
    out = np.zeros((H, W, 3), np.float32)
    tint = np.array([[0.55, 0.45, 0.30], [0.25, 0.45, 0.35], [0.35, 0.40, 0.60]], np.float32)
    for c in range(3):
        layer = np.zeros((H, W), np.float32)
        weight, total = 1.0, 0.0
        size = 6
        while size < W:
            small = rng.standard_normal((max(2, size * H // W), size)).astype(np.float32)
            layer += weight * upsample(small, H, W)
            total += weight
            size *= 2
            weight *= 0.6
        layer /= total
        for k in range(3):
            out[:, :, k] += tint[c, k] * layer
    # Fine grain: per-pixel noise, like a sensor's.
    out += 0.04 * rng.standard_normal((H, W, 1)).astype(np.float32)
    lo, hi = np.percentile(out, 0.5), np.percentile(out, 99.5)
    out = (out - lo) / (hi - lo)
    return np.clip(np.rint(out * 255.0), 0, 255).astype(np.uint8)


def make_pictures(folder, names):
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(32)
    paths = {}
    for name in names:
        path = os.path.join(folder, f'{name}-{W}x{H}.png')
        paths[name] = path
        if os.path.exists(path):
            continue
        bl.say(f'making {path}')
        if name == 'zoneplate':
            img = make_zoneplate()
        elif name == 'stripes':
            img = make_stripes()
        elif name == 'text':
            img = make_text(rng)
        else:
            img = make_texture(rng)
        write_png(img, path)
    return paths


def reference(src, size, folder):
    w, h = size
    path = os.path.join(folder, f'ref-{os.path.basename(src)[:-4]}-{w}x{h}.png')
    if not os.path.exists(path):
        subprocess.run(['convert', src, '-filter', 'Lanczos', '-resize', f'{w}x{h}^',
                        '-gravity', 'center', '-extent', f'{w}x{h}', '+repage',
                        path + '.part.png'], check=True)
        os.replace(path + '.part.png', path)
    return path


def psnr(a, b):
    d = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(d * d))
    return float('inf') if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def gaussian_blur(a, sigma=1.5, radius=5):
    k = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    k /= k.sum()
    # 'valid' convolution, rows then columns: the window stays inside the picture.
    out = np.zeros((a.shape[0], a.shape[1] - 2 * radius))
    for i, w in enumerate(k):
        out += w * a[:, i:i + out.shape[1]]
    res = np.zeros((out.shape[0] - 2 * radius, out.shape[1]))
    for i, w in enumerate(k):
        res += w * out[i:i + res.shape[0], :]
    return res


def luma(rgb):
    f = rgb.astype(np.float64)
    return 0.299 * f[:, :, 0] + 0.587 * f[:, :, 1] + 0.114 * f[:, :, 2]


def ssim(a, b):
    """Mean SSIM of the luma (Wang, Bovik, Sheikh, Simoncelli 2004), Gaussian window."""
    x, y = luma(a), luma(b)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = gaussian_blur(x), gaussian_blur(y)
    sxx = gaussian_blur(x * x) - mx * mx
    syy = gaussian_blur(y * y) - my * my
    sxy = gaussian_blur(x * y) - mx * my
    s = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
    return float(np.mean(s))


def ffmpeg_ssim(a_path, b_path):
    """ffmpeg's SSIM of the two pictures turned grey by ffmpeg (its own luma)."""
    out = subprocess.run(['ffmpeg', '-v', 'info', '-nostdin', '-i', a_path, '-i', b_path,
                          '-lavfi', '[0]format=gray[a];[1]format=gray[b];[a][b]ssim', '-f',
                          'null', '-'], capture_output=True, text=True, check=True).stderr
    for line in out.splitlines():
        if 'SSIM' in line and ' All:' in line:
            return float(line.split(' All:')[1].split()[0])
    raise bl.BenchError(f'ffmpeg ssim said nothing: {out[-300:]}')


def grim(comp, path):
    subprocess.run(['grim', path], env=comp.client_env, check=True, timeout=60)


def capture_veil(args, src, size, flt, outdir, name):
    comp = bl.Compositor('veil', args.compositor, outdir, size=size, name=name)
    with comp:
        comp.ipc.must(f'output * veil {bl.quote(src)} fill filter {flt}')

        def shown():
            st = comp.veil_status()
            v = st.get(comp.output_names[0]) or {}
            if v.get('error'):
                raise bl.BenchError(f'veil: {v["error"]}')
            return (v.get('state') == 'shown' and v.get('frames') and
                    v.get('filter') == flt and v.get('file') == src)
        bl.wait_until(shown, f'{os.path.basename(src)} shown with {flt}', timeout=180,
                      alive=comp.require_alive)
        time.sleep(0.5)
        path = os.path.join(outdir, f'{name}.png')
        grim(comp, path)
    return path


def capture_swaybg(args, src, size, outdir, name):
    comp = bl.Compositor('sway', args.sway, outdir, size=size, name=name,
                         sway_config_extra=[f'output * bg {bl.quote(src)} fill'])
    path = os.path.join(outdir, f'{name}.png')
    with comp:
        # swaybg draws when its layer surface is configured: wait until the capture is no
        # longer sway's grey background (a fill covers the whole output) and stops changing.
        deadline = time.monotonic() + 120
        last = None
        while True:
            time.sleep(2.0)
            grim(comp, path)
            img = read_png(path)
            if last is not None and np.array_equal(img, last) and img.std() > 1:
                break
            last = img
            if time.monotonic() > deadline:
                raise bl.BenchError('swaybg did not draw within 120 s')
    return path


def crop(path, box, dst):
    w, h, x, y = box
    img = read_png(path)[y:y + h, x:x + w]
    write_png(img, dst)


def scale_cost(binary, paths, rounds):
    out = subprocess.run([binary, str(rounds)] + list(paths), capture_output=True, text=True,
                         check=True).stdout
    bl.say(out)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--compositor', help="veil-tinywl (default BUILD/examples/veil-tinywl)")
    p.add_argument('--sway', default='sway')
    p.add_argument('--no-swaybg', action='store_true')
    p.add_argument('--sizes', default='1920x1080,3840x2160')
    p.add_argument('--pictures', default=','.join(PICTURES))
    p.add_argument('--filters', default=','.join(FILTERS))
    p.add_argument('--crops', help='folder for the zone plate crops (docs/pictures)')
    p.add_argument('--crop', default='480x240+1440+420',
                   help='the crops\' box at 1920x1080, WxH+X+Y (right of the centre: '
                   'where a box filter\'s aliasing rings)')
    p.add_argument('--scale-cost', help='scale-cost binary: time the filters on the worker')
    p.add_argument('--rounds', type=int, default=5, help='scale-cost rounds')
    p.add_argument('--reuse', action='store_true',
                   help='compare the captures an earlier run left in <out> again')
    p.add_argument('--out')
    args = p.parse_args()
    args.compositor = args.compositor or bl.compositor_path(args.build)
    out = args.out or os.path.join(args.build, 'bench', 'scaling')
    os.makedirs(out, exist_ok=True)
    bl.need('grim', 'ffmpeg', 'ffprobe', 'convert')
    sizes = [tuple(int(v) for v in s.split('x')) for s in args.sizes.split(',')]
    names = args.pictures.split(',')
    filters = args.filters.split(',')
    paths = make_pictures(os.path.join(out, 'pictures'), names)

    results = []
    lines = []
    for name in names:
        src = os.path.abspath(paths[name])
        for size in sizes:
            ref_path = reference(src, size, os.path.join(out, 'pictures'))
            ref = read_png(ref_path)
            runs = [(f, 'veil') for f in filters]
            if not args.no_swaybg:
                runs.append(('cairo', 'swaybg'))
            for flt, who in runs:
                tag = f'{name}-{size[0]}x{size[1]}-{who}-{flt}'
                bl.say(f'{tag} ...')
                cap = os.path.join(out, f'{tag}.png')
                if args.reuse and os.path.exists(cap):
                    pass
                elif who == 'veil':
                    cap = capture_veil(args, src, size, flt, out, tag)
                else:
                    cap = capture_swaybg(args, src, size, out, tag)
                img = read_png(cap)
                if img.shape != ref.shape:
                    raise bl.BenchError(f'{tag}: captured {img.shape}, reference {ref.shape}')
                r = {
                    'picture': name, 'size': f'{size[0]}x{size[1]}', 'who': who,
                    'filter': flt, 'psnr': round(psnr(img, ref), 2),
                    'ssim': round(ssim(img, ref), 4),
                    'ffmpeg_ssim': round(ffmpeg_ssim(cap, ref_path), 4),
                }
                results.append(r)
                line = (f'{name:10} {r["size"]:10} {who:7} {flt:8} PSNR {r["psnr"]:6.2f} dB  '
                        f'SSIM {r["ssim"]:.4f}  (ffmpeg {r["ffmpeg_ssim"]:.4f})')
                lines.append(line)
                bl.say(line)
                if args.crops and name == 'zoneplate' and size == (1920, 1080):
                    box = [int(v) for v in args.crop.replace('+', 'x').split('x')]
                    os.makedirs(args.crops, exist_ok=True)
                    crop(cap, box, os.path.join(args.crops, f'scaling-zoneplate-{flt}.png'))
                    crop(ref_path, box, os.path.join(args.crops,
                                                     'scaling-zoneplate-reference.png'))
    cost = None
    if args.scale_cost:
        cost = scale_cost(args.scale_cost, [paths[n] for n in names], args.rounds)
        lines.append(cost)
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump({'results': results, 'scale_cost': cost, 'loadavg': bl.loadavg()}, f,
                  indent=1)
    with open(os.path.join(out, 'report.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    bl.say(f'report: {os.path.join(out, "report.txt")}')
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except bl.BenchError as e:
        print(f'scaling.py: {e}', file=sys.stderr)
        sys.exit(1)
