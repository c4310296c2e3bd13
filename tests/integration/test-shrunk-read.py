#!/usr/bin/env python3
"""
A PNG larger than the output, shrunk by `smooth` while libpng reads its rows (decode/png.c,
veil_png_load_shrunk: no picture of the file's size in memory), against the same file read whole
and shrunk after (decode-still --full, veil's path before issue 40) and against ImageMagick's
Lanczos fill (docs/scaling.md), through veil's decoding path (tests/tools/decode-still); and a
HEIC and an AVIF shrunk as libheif's rows are converted (decode/heif.c), against their whole
conversion shrunk after:

- photo-like pictures: 8-bit RGB, 16-bit RGB (rounded to 8 bits by libpng), RGBA with an alpha
  that varies (premultiplied row by row), grey, and an interlaced one (read whole: its rows are
  complete only at the last pass): the same pixels as the whole read within a level, the file's
  own size in the status, and against ImageMagick's `-filter Lanczos -resize WxH^ -extent`
  (opaque ones) at least what docs/scaling.md measures for `smooth` less rounding (45 dB);
- a picture already no larger than the output: decoded whole, not shrunk;
- a PNG cut short in its pixels: refused as truncated, as the whole read refuses it.
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from veiltest import decode_still  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('shrunk-read')
TOOL = os.environ.get('VEIL_TEST_DECODE_STILL')
COVER = (400, 300)


def m(name):
    return os.path.join(t.media, name)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, timeout=300)
    if r.returncode != 0:
        raise vt.Failure(f'{" ".join(cmd)}: {r.stderr.decode(errors="replace")[-400:]}')
    return r.stdout


def decode(path, full=False):
    out = m(os.path.basename(path) + ('-full' if full else '') + '.pam')
    try:
        return decode_still.run(TOOL, path, out, cover=COVER, full=full)
    except decode_still.ToolFailed as e:
        raise vt.Failure(str(e))


def psnr(a, b):
    d = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(d * d))
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def lanczos_fill(path):
    out = m(os.path.basename(path) + '.lanczos.pam')
    w, h = COVER
    run(['convert', path, '-filter', 'Lanczos', '-resize', f'{w}x{h}^', '-gravity', 'center',
         '-extent', f'{w}x{h}', '-colorspace', 'sRGB', '-type', 'TrueColorAlpha', '-depth',
         '8', out])
    with open(out, 'rb') as f:
        return decode_still.read_pam(f.read())[0][:, :, :3]


def centre(img):
    w, h = COVER
    y, x = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
    return img[y:y + h, x:x + w]


# 1600x1000 photo-like pixels (ImageMagick's fractal plasma with grain, 16 bits a sample):
# kept at 480x300 to cover 400x300 (a third).
W, H = 1600, 1000
files = {}
run(['convert', '-size', f'{W}x{H}', '-seed', '3', 'plasma:fractal', '-attenuate', '0.3',
     '+noise', 'Gaussian', '-depth', '16', 'PNG48:' + m('rgb16.png')])
files['rgb16'] = m('rgb16.png')
run(['convert', files['rgb16'], '-depth', '8', 'PNG24:' + m('rgb8.png')])
files['rgb8'] = m('rgb8.png')
run(['convert', files['rgb8'], '(', '-size', f'{H}x{W}', 'gradient:', '-rotate', '90', ')',
     '-alpha', 'off', '-compose', 'CopyOpacity', '-composite', 'PNG32:' + m('rgba.png')])
files['rgba'] = m('rgba.png')
run(['convert', files['rgb8'], '-colorspace', 'Gray', m('grey.png')])
files['grey'] = m('grey.png')
run(['convert', files['rgb8'], '-interlace', 'PNG', m('interlaced.png')])
files['interlaced'] = m('interlaced.png')

for name, path in files.items():
    with t.case(name):
        info, got = decode(path)
        whole, want = decode(path, full=True)
        t.check((info['file_width'], info['file_height']) == (W, H),
                f'the status has the file\'s own size, {W}x{H}', str(info))
        t.check(got is not None and got.shape[:2] == (300, 480) and want is not None and
                want.shape == got.shape, 'kept at 480x300, as the whole read',
                f'{None if got is None else got.shape} {None if want is None else want.shape}')
        worst = int(np.abs(got.astype(np.int16) - want.astype(np.int16)).max())
        t.check(worst <= 1, f'the whole read\'s pixels within a level (worst {worst})')
        if name != 'rgba':
            p = psnr(centre(got[:, :, :3]), lanczos_fill(path))
            vt._say(f'   {p:.1f} dB against ImageMagick\'s Lanczos fill')
            t.check(p >= 45.0, f'against ImageMagick\'s Lanczos fill: {p:.1f} dB >= 45')

def peak_kib(path, full):
    """decode-still's peak resident memory (KiB) for path, whole or shrunk as read."""
    info, _ = decode(path, full)
    return int(info['peak_kib'])


with t.case('no picture of the file\'s size'):
    # 6000x1500 pixels are 35 MiB decoded; the shrunk read keeps the rows its kernel spans.
    wide = m('wide.png')
    run(['convert', files['rgb8'], '-resize', '6000x1500!', 'PNG24:' + wide])
    shrunk = min(peak_kib(wide, False) for _ in range(2))
    whole = min(peak_kib(wide, True) for _ in range(2))
    vt._say(f'   peak memory: {shrunk} KiB shrunk as read, {whole} KiB read whole')
    t.check(whole - shrunk > 30 * 1024, 'at least 30 MiB less at its peak than the whole read',
            f'{shrunk} against {whole} KiB')

for kind, argv in (('heic', ['heif-enc', '-q', '90']),
                   ('avif', None)):
    with t.case(kind):
        path = m(f'photo.{kind}')
        if argv:
            run(argv + ['-o', path, files['rgb8']])
        else:
            run(['ffmpeg', '-loglevel', 'error', '-y', '-i', files['rgb8'], '-frames:v', '1',
                 '-c:v', 'libsvtav1', '-crf', '20', '-pix_fmt', 'yuv420p', path])
        info, got = decode(path)
        whole, want = decode(path, full=True)
        t.check(info.get('decoder') == 'libheif' and got is not None and
                got.shape[:2] == (300, 480) and info['file_width'] == W,
                'decoded by libheif, kept at 480x300, the file\'s size in the status', str(info))
        worst = int(np.abs(got.astype(np.int16) - want.astype(np.int16)).max())
        t.check(worst <= 1, f'the whole conversion\'s pixels within a level (worst {worst})')
        t.check(int(info['peak_kib']) < int(whole['peak_kib']),
                f'less memory at its peak ({info["peak_kib"]} against {whole["peak_kib"]} KiB)')

with t.case('no larger than the output'):
    small = m('small.png')
    run(['convert', files['rgb8'], '-crop', '350x250+0+0', '+repage', small])
    info, got = decode(small)
    t.check(got is not None and got.shape[:2] == (250, 350), 'kept whole at 350x250',
            str(info))

with t.case('cut short'):
    with open(files['rgb8'], 'rb') as f:
        data = f.read()
    with open(m('cut.png'), 'wb') as f:
        f.write(data[:len(data) * 2 // 3])
    info, got = decode(m('cut.png'))
    t.check(got is None and 'truncated' in info.get('error', ''),
            'refused as truncated', str(info))
    vt._say(f'   {info.get("error")}')

t.finish()
