#!/usr/bin/env python3
"""
JPEG XL as others make it: GNOME's own wallpaper adwaita-l.jxl (Debian's gnome-backgrounds, a
4096x4096 lossy JPEG XL container in Display P3, fetched by apt at test time: veiltest/debfiles.py)
shown by veil-tinywl through the command path (decoded in veil-decoder, as by default), against
libjxl's own command-line decoder djxl with ImageMagick's conversion to sRGB
(`-profile sRGB.icc`) and, for `fill`, ImageMagick's resize:

- `fill` on a 1920x1080 output: the picture shrunk to 1920x1920 in veil-decoder and cropped,
  by PSNR (at least 40 dB; 52.6 measured: two Lanczos resamplers, the conversion to sRGB
  before or after them);
- `center` on the same output: the middle of the picture one to one, every pixel, by PSNR (at
  least 40 dB; 51.8 measured) and within 6 levels (mean 0.83; 4239 of 2073600 pixels differ
  by 4 to 6, in deep blues outside sRGB's gamut);
- the status names libjxl, the file's own size and its colour ("Display P3 (CICP) -> sRGB").

Bad JPEG XL through the same path: the GNOME file cut in half (truncated in its picture: the
header check passes, the worker refuses), a codestream declaring 100000x100000 (refused from its
header), and text named .jxl: each refused with a sentence naming the file and saying what is
wrong, the wallpaper on screen unchanged, the compositor answering.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from veiltest import debfiles  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('jxl')
OUT = 'HEADLESS-1'
W, H = 1920, 1080
SRGB = '/usr/share/color/icc/sRGB.icc'
GNOME = 'usr/share/backgrounds/gnome/adwaita-l.jxl'
CONTAINER = b'\0\0\0\x0cJXL \r\n\x87\n'


def run(*args, timeout=300):
    r = subprocess.run(list(args), capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise vt.Failure(f'{" ".join(args)}: {r.stderr.decode(errors="replace")}')
    return r.stdout


def psnr(a, b):
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return float('inf') if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def codestream_header(width, height, pad=b''):
    """A bare JPEG XL codestream's size header and default metadata, declaring any size."""
    bits = []

    def put(value, n):
        bits.extend((value >> i) & 1 for i in range(n))
    put(0, 1)  # not small
    put(3, 2)  # U32's fourth distribution: 30 bits + 1
    put(height - 1, 30)
    put(0, 3)  # no ratio: the width follows
    put(3, 2)
    put(width - 1, 30)
    put(1, 1)  # all_default image metadata
    bits.extend([0] * (-len(bits) % 8))
    body = bytes(sum(b << j for j, b in enumerate(bits[i:i + 8]))
                 for i in range(0, len(bits), 8))
    return b'\xff\x0a' + body + pad


def media_file(name, data):
    path = os.path.join(t.media, name)
    with open(path, 'wb') as f:
        f.write(data)
    os.chmod(path, 0o644)
    return path


media = t.media
with t.case('the files'):
    # The compositor may run as another user: a copy of the package's file in the media.
    gnome = os.path.join(media, 'adwaita-l.jxl')
    shutil.copyfile(debfiles.path('gnome-backgrounds', GNOME), gnome)
    os.chmod(gnome, 0o644)
    with open(gnome, 'rb') as f:
        data = f.read()
    t.check(data.startswith(CONTAINER), 'adwaita-l.jxl is a JPEG XL container', data[:12])
    info = run('jxlinfo', gnome).decode(errors='replace')
    t.check('4096x4096' in info and 'P3 primaries' in info,
            'jxlinfo: 4096x4096, P3 primaries', info)
    # djxl's decode (16 bits, its ICC profile), to sRGB and cut by ImageMagick.
    ref_p3 = os.path.join(media, 'ref-p3.png')
    run('djxl', gnome, ref_p3, '--num_threads=2')
    centre = os.path.join(media, 'ref-center.png')
    run('magick', ref_p3, '-gravity', 'center', '-crop', f'{W}x{H}+0+0', '+repage',
        '-profile', SRGB, '-depth', '8', '-strip', 'PNG24:' + centre)
    fill = os.path.join(media, 'ref-fill.png')
    side = max(W, H)
    run('magick', ref_p3, '-filter', 'Lanczos', '-resize', f'{side}x{side}', '-gravity',
        'center', '-crop', f'{W}x{H}+0+0', '+repage', '-profile', SRGB, '-depth', '8',
        '-strip', 'PNG24:' + fill)
    cut = media_file('adwaita-cut.jxl', data[:len(data) // 2])
    bomb = media_file('bomb.jxl', codestream_header(100000, 100000))
    text = media_file('text.jxl', b'not a picture, only a name ending in .jxl\n' * 20)

with t.compositor(outputs=1) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    def show(path, mode, label):
        return t.show(c, OUT, path, mode, label)

    def show_gnome(mode, ref_path, min_db, **cmp):
        """adwaita-l.jxl in mode: its status, and the screen against ref_path by PSNR."""
        v, shot = show(gnome, mode, mode)
        if v is None:
            return
        src = v.get('source') or {}
        t.check(src.get('decoder') == 'libjxl', 'decoded by libjxl', str(src))
        t.check(src.get('original_size') == {'width': 4096, 'height': 4096},
                'the file\'s size, 4096x4096', str(src.get('original_size')))
        t.check(src.get('colour') == 'Display P3 (CICP) -> sRGB',
                'colour "Display P3 (CICP) -> sRGB"', str(src.get('colour')))
        ref = vt.read_image(ref_path)
        db = psnr(shot, ref)
        vt._say(f'# {mode}: PSNR {db:.2f} dB against djxl + ImageMagick')
        t.check(db >= min_db, f'{mode}: PSNR {db:.2f} dB >= {min_db}')
        t.compare(shot, ref, mode, **cmp)

    # fill first: decoded shrunk in veil-decoder (center then decodes it whole).
    with t.case('GNOME adwaita-l.jxl, fill: against djxl resized by ImageMagick'):
        # Deep blues outside sRGB: a level of P3 moves sRGB's red near 0 by several.
        show_gnome('fill', fill, 40, tolerance=8, mean_tolerance=2.5, ignore_edges=4,
                   max_bad_fraction=0.03)
    with t.case('GNOME adwaita-l.jxl, center: one to one against djxl'):
        show_gnome('center', centre, 40, tolerance=6, mean_tolerance=1, ignore_border=0)

    with t.case('bad JPEG XL: refused naming the file, the wallpaper unchanged'):
        before = c.settled_screenshot(OUT)
        for path, parts, label in [
                (cut, ['truncated'], 'truncated'),
                (bomb, ['100000x100000', 'larger than'], 'declared 100000x100000'),
                (text, [], 'text named .jxl')]:
            said = c.refused_file(OUT, f'{vt.quote(path)} fill', path, parts, label)
            vt._say(f'# {label}: {said}')
            if label == 'text named .jxl':
                t.check('JPEG XL' not in said, f'{label}: not called JPEG XL', said)
            after = c.settled_screenshot(OUT)
            t.compare(after, before, f'{label}: on screen', tolerance=0, ignore_border=0)
            v = c.veil(OUT)
            t.check(v.get('file') == gnome, f'{label}: the status still shows adwaita-l.jxl',
                    str(v.get('file')))
        t.check(c.responsive(), 'the compositor still answers')

t.finish()
