#!/usr/bin/env python3
"""
JPEG through libjpeg-turbo (decode/jpeg.c), against an independent decoder.

1. veil's decoding path without a compositor (tests/tools/decode-still: sniff, check,
   veil_still_decode, the colour), each picture against ImageMagick's decode of the same file
   (`convert FILE -colorspace sRGB`, its default rendering: CMYK as (1 - C)(1 - K), no profile):
   - files written here: ImageMagick's baseline, progressive, grey and CMYK (Adobe's inverted
     inks), cjpeg's 12-bit, arithmetic and lossless (8 and 16 bits: libjpeg-turbo-progs), EXIF
     orientations written by GStreamer's jifmux (against `convert -auto-orient`);
   - every file of ../shared/conformance/jpeg (libjpeg-turbo's and jpeg-decoder's test files),
     also against jpeg-decoder's reference PNG where there is one; the empty file refused;
   - a 1600x1200 photo-like JPEG decoded for a 400x300 output at a reduced size (DCT scaling)
     and whole, both against ImageMagick's Lanczos fill (docs/scaling.md);
   - bad files: cut short (refused as truncated), a broken header, a size over veil's limit.
   Tolerance: ImageMagick decodes with the same libjpeg-turbo (same IDCT, same upsampling), so
   only the conversions differ: CMYK to RGB and 12/16-bit to 8-bit, each one rounding (ours in
   integers, ImageMagick's in 16-bit quanta): every pixel within 2 levels, PSNR >= 48 dB.
   jpeg-decoder's references come from another IDCT: PSNR >= 40 dB.
2. Through the real command path (veil-tinywl, swaymsg, grim): a CMYK JPEG shown `fill`,
   against ffmpeg's fill of ImageMagick's decode; then a truncated CMYK JPEG, a broken header
   and a huge size: refused with a sentence naming the file, the screen unchanged; a JPEG
   turned by its EXIF orientation shown `fit` against `convert -auto-orient`.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'bench'))
from veiltest import decode_still  # noqa: E402
import scaling  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('jpeg')
OUT = 'HEADLESS-1'
W, H = 1280, 720
SCALED = dict(tolerance=8, mean_tolerance=1, ignore_edges=4)
TOOL = os.environ.get('VEIL_TEST_DECODE_STILL')
CONFORMANCE = os.path.join(HERE, '..', '..', '..', 'shared', 'conformance', 'jpeg')
media = t.media
MAX_LEVELS, MIN_PSNR, MIN_PSNR_REF = 2, 48.0, 40.0


def m(name):
    return os.path.join(media, name)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, timeout=300, **kw)
    if r.returncode != 0:
        raise vt.Failure(f'{" ".join(cmd)}: {r.stderr.decode(errors="replace")[-400:]}')
    return r.stdout


def read_ppm(path):
    """A binary PPM (P6, 8-bit), comments and all (ImageMagick writes some)."""
    with open(path, 'rb') as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        if data[at:at + 1] == b'#':
            at = data.index(b'\n', at) + 1
            continue
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    w, h, top = int(fields[1]), int(fields[2]), int(fields[3])
    if fields[0] != b'P6' or top != 255:
        raise vt.Failure(f'{path}: {fields[0]} maxval {top}')
    return np.frombuffer(data[at + 1:at + 1 + w * h * 3], np.uint8).reshape(h, w, 3)


def imagemagick(path, *ops):
    """ImageMagick's decode of path (after ops) as 8-bit sRGB pixels."""
    out = m(os.path.basename(path) + '.im.ppm')
    run(['convert', path] + list(ops) + ['-colorspace', 'sRGB', '-depth', '8', out])
    return read_ppm(out)


def decode(path, cover=None, full=False):
    """(info, pixels) of veil's decoding path (veiltest/decode_still.py); pixels, R, G, B, None when
    refused (info has 'stage' and 'error')."""
    out = m(os.path.basename(path) + ('-full' if full else '') + '.veil.pam')
    try:
        info, pixels = decode_still.run(TOOL, path, out, cover=cover, full=full)
    except decode_still.ToolFailed as e:
        raise vt.Failure(str(e))
    return info, (pixels[:, :, :3] if pixels is not None else None)


def psnr(a, b):
    d = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(d * d))
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def same(label, got, want, max_levels=MAX_LEVELS, min_psnr=MIN_PSNR):
    if got.shape != want.shape:
        return t.fail(f'{label}: size', f'{got.shape[1]}x{got.shape[0]}, expected '
                      f'{want.shape[1]}x{want.shape[0]}')
    worst = int(np.abs(got.astype(np.int16) - want.astype(np.int16)).max())
    p = psnr(got, want)
    ok = p >= min_psnr and (max_levels is None or worst <= max_levels)
    return t.check(ok, f'{label}: {p:.1f} dB, worst {worst} levels',
                   f'want >= {min_psnr} dB' + (f', <= {max_levels} levels'
                                              if max_levels is not None else ''))


def shown_right(label, path, *im_ops, want_size=None):
    info, got = decode(path)
    if got is None:
        return t.fail(f'{label}: decoded', info.get('error', ''))
    t.check(info['decoder'] == 'libjpeg-turbo', f'{label}: decoded by libjpeg-turbo',
            info['decoder'])
    if want_size:
        t.check((info['width'], info['height']) == want_size,
                f'{label}: {want_size[0]}x{want_size[1]}', f"{info['width']}x{info['height']}")
    same(f'{label} against ImageMagick', got, imagemagick(path, *im_ops))
    return info


def refused(label, path, pattern, stage=None):
    info, got = decode(path)
    if not t.check(got is None, f'{label}: refused', f'decoded: {info}'):
        return
    if pattern:
        t.check(re.search(pattern, info['error'], re.I), f'{label}: says /{pattern}/',
                repr(info['error']))
    if stage:
        t.check(info['stage'] == stage, f'{label}: refused by the {stage}', info['stage'])
    vt._say(f'   {info["error"]}')


# --- media ------------------------------------------------------------------------------------

def photo(w, h, seed=7):
    """Smooth noise in octaves, in colour, with grain: a photo's kind of spectrum."""
    rng = np.random.default_rng(seed)
    out = np.zeros((h, w, 3), np.float32)
    size, weight = 4, 1.0
    while size < w:
        for c in range(3):
            small = rng.standard_normal((max(2, size * h // w), size)).astype(np.float32)
            out[:, :, c] += weight * scaling.upsample(small, h, w)
        size *= 2
        weight *= 0.6
    out += 0.05 * rng.standard_normal((h, w, 3)).astype(np.float32)
    lo, hi = np.percentile(out, 0.5), np.percentile(out, 99.5)
    return np.clip(np.rint((out - lo) / (hi - lo) * 255), 0, 255).astype(np.uint8)


def exif_rotated(path, src_png, orientation):
    """A JPEG with an EXIF orientation (GStreamer's name for it), through jifmux."""
    run(['gst-launch-1.0', '-q', 'filesrc', f'location={src_png}', '!', 'pngdec', '!',
         'videoconvert', '!', 'video/x-raw,format=I420', '!', 'jpegenc', 'quality=95', '!',
         'taginject', f'tags=image-orientation=(string){orientation}', '!', 'jifmux', '!',
         'filesink', f'location={path}'])
    return path


base = vt.quadrant_pixels(240, 160)
base_png = vt.make_png(m('base.png'), base)
base_ppm = m('base.ppm')
run(['convert', base_png, base_ppm])
base16_ppm = m('base16.ppm')
run(['convert', base_png, '-depth', '16', base16_ppm])
cjpeg = shutil.which('cjpeg')

with t.case('decoder path'):
    t.check(TOOL and os.access(TOOL, os.X_OK), 'decode-still is built', str(TOOL))

with t.case('ImageMagick and cjpeg files'):
    files = [
        ('baseline 4:2:0', 'baseline.jpg', ['-quality', '90']),
        ('progressive', 'progressive.jpg', ['-quality', '90', '-interlace', 'JPEG']),
        ('grey', 'grey.jpg', ['-colorspace', 'Gray']),
        ('CMYK (Adobe, inverted)', 'cmyk.jpg', ['-colorspace', 'CMYK', '-quality', '95']),
        ('CMYK progressive', 'cmyk-prog.jpg', ['-colorspace', 'CMYK', '-interlace', 'JPEG']),
    ]
    for label, name, ops in files:
        run(['convert', base_png] + ops + [m(name)])
        shown_right(label, m(name), want_size=(240, 160))
    with open(m('cmyk.jpg'), 'rb') as f:
        t.check(b'Adobe' in f.read(4096), 'ImageMagick\'s CMYK file has an Adobe marker')
    if t.check(cjpeg, 'cjpeg is installed (Debian package libjpeg-turbo-progs)'):
        for label, name, args, src in [
                ('12-bit', 'p12.jpg', ['-precision', '12', '-quality', '95'], base_ppm),
                ('arithmetic-coded', 'arith.jpg', ['-arithmetic'], base_ppm),
                ('lossless 8-bit', 'll8.jpg', ['-lossless', '1'], base_ppm),
                ('lossless 16-bit', 'll16.jpg', ['-precision', '16', '-lossless', '1'],
                 base16_ppm),
                ('lossless 12-bit, predictor 6', 'll12.jpg',
                 ['-precision', '12', '-lossless', '6'], base16_ppm)]:
            run([cjpeg] + args + ['-outfile', m(name), src])
            shown_right(label, m(name), want_size=(240, 160))
            if name.startswith('ll8'):
                info, got = decode(m(name))
                same('lossless 8-bit against the picture itself', got, base, max_levels=0)

with t.case('EXIF orientation'):
    for orientation in ('rotate-90', 'rotate-180', 'flip-rotate-0', 'flip-rotate-90',
                        'rotate-270'):
        path = exif_rotated(m(f'exif-{orientation}.jpg'), base_png, orientation)
        turned = orientation.endswith('90') or orientation.endswith('270')
        shown_right(orientation, path, '-auto-orient',
                    want_size=(160, 240) if turned else (240, 160))

with t.case('conformance'):
    names = sorted(f for f in os.listdir(CONFORMANCE) if f.endswith('.jpg'))
    t.check(len(names) >= 20, f'{len(names)} files in {CONFORMANCE}')
    for name in names:
        path = os.path.join(CONFORMANCE, name)
        ref = os.path.join(CONFORMANCE, 'ref', name[:-4] + '.png')
        if os.path.getsize(path) == 0:
            # source.c refuses an empty file before any sniffing ("is empty": test-bad-input).
            refused(name, path, None, stage='sniff')
            continue
        info, got = decode(path)
        if not t.check(got is not None, f'{name}: shown', info.get('error', '')):
            continue
        t.check(info['decoder'] == 'libjpeg-turbo', f'{name}: by libjpeg-turbo',
                info['decoder'])
        same(f'{name} against ImageMagick', got, imagemagick(path))
        if os.path.exists(ref):
            same(f'{name} against its reference', got, imagemagick(ref), max_levels=None,
                 min_psnr=MIN_PSNR_REF)
        colour = info['colour']
        t.check(re.fullmatch(r'[ -~]*', colour), f'{name}: colour text is printable ASCII',
                repr(colour))

with t.case('reduced decode'):
    big = photo(1600, 1200)
    big_png = vt.make_png(m('photo.png'), big)
    big_jpg = m('photo.jpg')
    run(['convert', big_png, '-quality', '92', '-sampling-factor', '2x2', big_jpg])
    ref = imagemagick(big_jpg, '-filter', 'Lanczos', '-resize', '400x300^', '-gravity',
                      'center', '-extent', '400x300')
    scaled, got = decode(big_jpg, (400, 300))
    whole, got_whole = decode(big_jpg, (400, 300), full=True)
    t.check((scaled['file_width'], scaled['file_height']) == (1600, 1200),
            'the status has the file\'s own size', str(scaled))
    t.check(got.shape == (300, 400, 3) and got_whole.shape == (300, 400, 3),
            'both kept at 400x300', f'{got.shape} {got_whole.shape}')
    p_scaled, p_whole = psnr(got, ref), psnr(got_whole, ref)
    vt._say(f'   reduced {p_scaled:.2f} dB ({scaled["cpu_ms"]} ms), whole {p_whole:.2f} dB '
            f'({whole["cpu_ms"]} ms)')
    t.check(p_scaled >= 38 and p_scaled >= p_whole - 1.0,
            f'reduced decode {p_scaled:.1f} dB against Lanczos, whole {p_whole:.1f} dB')
    # Turned a quarter by EXIF: the scale is chosen for the picture as shown.
    rot_png = vt.make_png(m('photo-small.png'), big[:600, :800])
    rot = exif_rotated(m('photo-rot.jpg'), rot_png, 'rotate-90')
    info, got = decode(rot, (150, 200))
    t.check((info['file_width'], info['file_height']) == (600, 800) and
            got.shape == (200, 150, 3), 'turned file: 600x800 as shown, kept at 150x200',
            f'{info} {got.shape}')
    same('turned file, reduced, against ImageMagick',
         got, imagemagick(rot, '-auto-orient', '-filter', 'Lanczos', '-resize', '150x200^',
                          '-gravity', 'center', '-extent', '150x200'),
         max_levels=None, min_psnr=36)
    # Lossless files have no DCT to scale: decoded whole, then shrunk.
    if cjpeg:
        info, got = decode(m('ll8.jpg'), (60, 40))
        t.check(got is not None and got.shape == (40, 60, 3), 'lossless file for a cover',
                str(info))


def cut(path, fraction):
    with open(path, 'rb') as f:
        data = f.read()
    out = path[:-4] + f'-cut{int(fraction * 100)}.jpg'
    with open(out, 'wb') as f:
        f.write(data[:int(len(data) * fraction)])
    os.chmod(out, 0o644)
    return out


def patched_size(path, width, height):
    data = bytearray(open(path, 'rb').read())
    for i in range(len(data) - 9):
        if data[i] == 0xff and data[i + 1] in (0xc0, 0xc1, 0xc2):
            struct.pack_into('>HH', data, i + 5, height, width)
            break
    out = path[:-4] + f'-{width}x{height}.jpg'
    with open(out, 'wb') as f:
        f.write(data)
    os.chmod(out, 0o644)
    return out


def broken_header(path):
    """The first DQT's length made shorter than its table: libjpeg errors in the header."""
    data = bytearray(open(path, 'rb').read())
    i = data.index(b'\xff\xdb')
    struct.pack_into('>H', data, i + 2, 3)
    out = path[:-4] + '-badheader.jpg'
    with open(out, 'wb') as f:
        f.write(data)
    os.chmod(out, 0o644)
    return out


with t.case('bad files'):
    cmyk_prog = m('cmyk-prog.jpg')
    refused('baseline cut in half', cut(m('baseline.jpg'), 0.5), r'JPEG file is truncated',
            stage='load')
    refused('progressive CMYK cut at 60 %', cut(cmyk_prog, 0.6), r'JPEG file is truncated',
            stage='load')
    refused('cut in its header', cut(m('baseline.jpg'), 0.02), r'truncated', stage='check')
    refused('broken header', broken_header(m('baseline.jpg')), r'corrupt JPEG file',
            stage='check')
    refused('60000x60000', patched_size(m('baseline.jpg'), 60000, 60000), r'larger',
            stage='check')
    # The end-of-image marker alone missing: every row is there, shown.
    data = open(m('baseline.jpg'), 'rb').read()
    no_eoi = vt._write(m('no-eoi.jpg'), data[:-2])
    info, got = decode(no_eoi)
    t.check(got is not None, 'a baseline file without its end marker is shown', str(info))

# --- the real command path --------------------------------------------------------------------

big_cmyk = m('wall-cmyk.jpg')
run(['convert', vt.make_png(m('wall.png'), vt.quadrant_pixels(800, 600)), '-colorspace',
     'CMYK', '-quality', '95', big_cmyk])
wall_srgb = vt.write_png(m('wall-cmyk-im.png'), imagemagick(big_cmyk))
bad_cut = cut(big_cmyk, 0.5)
bad_header = broken_header(big_cmyk)
bad_huge = patched_size(big_cmyk, 60000, 60000)
rot_wall = exif_rotated(m('wall-rot.jpg'), m('wall.png'), 'rotate-90')
rot_srgb = vt.write_png(m('wall-rot-im.png'), imagemagick(rot_wall, '-auto-orient'))

with t.compositor(outputs=1) as c:
    with t.case('CMYK on screen'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(big_cmyk)} fill')
        t.check(ok, 'a CMYK JPEG is accepted', err)
        v = c.wait_veil(OUT, 'shown', file=big_cmyk)
        shot = c.settled_screenshot(OUT)
        t.compare(shot, vt.expect_fill(wall_srgb, W, H), 'cmyk-fill', **SCALED)
        vt._say(f'   status: {json.dumps(v)[:300]}')

    def unchanged(label):
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('file') == big_cmyk,
                f'{label}: the CMYK wallpaper is still set', str(v))
        t.compare(c.screenshot(OUT), shot, f'{label}-unchanged', tolerance=0, ignore_border=0)
        t.check(c.responsive(), f'{label}: the compositor answers IPC')

    with t.case('truncated JPEG'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(bad_cut)} fill')
        t.check(ok, 'accepted: its header is sound', err)

        def failed():
            v = c.veil(OUT)
            return v if v.get('error') and v.get('loading') is None else None
        v = c.wait_until(failed, 'the decode to fail')
        t.check(re.search(r'JPEG file is truncated', v['error']) and
                os.path.basename(bad_cut) in v['error'], 'the status says truncated, naming '
                'the file', v['error'])
        vt._say(f'   error: {v["error"]}')
        unchanged('truncated')
    for label, path, pattern in [('broken header', bad_header, r'corrupt JPEG file'),
                                 ('60000x60000', bad_huge, r'larger')]:
        with t.case(label):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
            t.check(not ok and re.search(pattern, err) and os.path.basename(path) in err,
                    f'refused: /{pattern}/, naming the file', repr(err))
            vt._say(f'   error: {err}')
            unchanged(label)
    with t.case('EXIF-turned JPEG on screen'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(rot_wall)} fit #000000')
        t.check(ok, 'accepted', err)
        v = c.wait_veil(OUT, 'shown', file=rot_wall)
        t.check(v.get('source_size') == {'width': 600, 'height': 800},
                'source_size 600x800, as shown', str(v.get('source_size')))
        t.compare(c.settled_screenshot(OUT), vt.expect_fit(rot_srgb, W, H, '#000000'),
                  'exif-fit', **SCALED)

t.finish()
