#!/usr/bin/env python3
"""
Stills with colour profiles: pictures made here with a known ICC profile (ImageMagick assigns
Display P3 or Adobe RGB to known pixels, each file checked to carry it; cjxl makes JPEG XL of
them, lossless with the ICC profile and lossy in JPEG XL's own encoding), CICP code points and a
gAMA chunk (written into the PNG here), shown 1:1 by veil-tinywl on a 1920x1080 output and
captured with grim, must match within 2 levels what ImageMagick's own conversion to sRGB
(`-profile sRGB.icc`, /usr/share/color/icc/sRGB.icc) makes of the same pixels. The status's
source.colour says what was done. Broken and hostile profiles (truncated, nonsense, larger
than veil reads) are shown as sRGB, their status saying so and one log line naming the file.
Run once with stills in veil-decoder (test 'colour') and once in process ('colour-inprocess').
"""
import os
import re
import struct
import subprocess
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('colour')
OUT = 'HEADLESS-1'
W, H = 1920, 1080
ICC = '/usr/share/color/icc'
P3 = f'{ICC}/DisplayP3-v4.icc'
ADOBE = f'{ICC}/colord/AdobeRGB1998.icc'
SRGB = f'{ICC}/sRGB.icc'
# Within 2 levels of the independent conversion, away from the patches' edges.
CLOSE = dict(tolerance=2, ignore_border=0, ignore_edges=3)
EXACT = dict(tolerance=0, ignore_border=0)

# 16 flat patches, 8 x 2, of colours a photo has: saturated primaries (out of sRGB's gamut in
# P3), skin, sky, foliage, greys from near black to near white.
COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (200, 60, 40), (230, 180, 150),
           (128, 128, 128), (20, 20, 20), (250, 250, 250), (60, 120, 200), (90, 160, 60),
           (255, 220, 0), (150, 40, 160), (0, 200, 200), (110, 70, 40), (40, 40, 110),
           (180, 200, 220)]


def patches():
    img = np.zeros((H, W, 3), np.uint8)
    pw, ph = W // 8, H // 2
    for i, c in enumerate(COLOURS):
        x, y = (i % 8) * pw, (i // 8) * ph
        img[y:y + ph, x:x + pw] = c
    return img


def magick(*args):
    r = subprocess.run(['magick'] + list(args), capture_output=True, timeout=120)
    if r.returncode != 0:
        raise vt.Failure(f'magick {" ".join(args)}: {r.stderr.decode(errors="replace")}')
    return r.stdout


def png_chunks(path):
    with open(path, 'rb') as f:
        data = f.read()
    chunks, i = [], 8
    while i + 8 <= len(data):
        n, kind = struct.unpack('>I4s', data[i:i + 8])
        chunks.append((kind.decode('latin-1'), data[i + 8:i + 8 + n]))
        i += 12 + n
    return chunks


def png_insert(src, dst, new_chunks, drop=()):
    """Writes src with new_chunks [(kind, data)] after IHDR and chunks of kinds in drop left out."""
    out = bytearray(b'\x89PNG\r\n\x1a\n')
    for kind, data in png_chunks(src):
        if kind in drop:
            continue
        for k, d in ([(kind, data)] + (new_chunks if kind == 'IHDR' else [])):
            body = k.encode('latin-1') + d
            out += struct.pack('>I', len(d)) + body + struct.pack('>I', zlib.crc32(body))
    with open(dst, 'wb') as f:
        f.write(out)
    os.chmod(dst, 0o644)
    return dst


def jpeg_insert_icc(src, dst, profile, chunk=65519):
    """src's JPEG with profile as APP2 ICC_PROFILE segments after SOI (its scans untouched)."""
    with open(src, 'rb') as f:
        data = f.read()
    assert data[:2] == b'\xff\xd8'
    parts = [profile[i:i + chunk] for i in range(0, len(profile), chunk)] or [b'']
    segs = b''
    for n, part in enumerate(parts, 1):
        body = b'ICC_PROFILE\0' + bytes([n, len(parts)]) + part
        segs += b'\xff\xe2' + struct.pack('>H', len(body) + 2) + body
    with open(dst, 'wb') as f:
        f.write(data[:2] + segs + data[2:])
    os.chmod(dst, 0o644)
    return dst


def jpeg_has_icc(path):
    with open(path, 'rb') as f:
        return b'ICC_PROFILE\0' in f.read(1 << 20)


def converted(pixels, profile, name):
    """ImageMagick's sRGB of pixels taken as profile's: the independent conversion."""
    raw = vt.write_png(t.path(f'{name}-raw.png'), pixels)
    out = t.path(f'{name}-expected.png')
    magick(raw, '-set', 'profile', profile, '-profile', SRGB, '-strip', 'PNG24:' + out)
    return vt.read_image(out)


def status_colour(v):
    return (v.get('source') or {}).get('colour')


media = t.media
pixels = patches()
plain_png = vt.write_png(os.path.join(media, 'plain.png'), pixels)
# The expected pictures, each of the same pixels.
p3_expected = converted(pixels, P3, 'p3')
adobe_expected = converted(pixels, ADOBE, 'adobe')
t.check(np.abs(p3_expected.astype(int) - pixels).max() > 10,
        'the P3 conversion moves colours (else this test could not fail)')

with open(P3, 'rb') as f:
    p3_icc = f.read()


def assigned(name, profile, fmt, *extra):
    path = os.path.join(media, name)
    magick(plain_png, '-set', 'profile', profile, *extra, f'{fmt}:{path}')
    os.chmod(path, 0o644)
    return path


files = {}
files['p3.png'] = assigned('p3.png', P3, 'PNG24')
files['adobe.png'] = assigned('adobe.png', ADOBE, 'PNG24')
files['srgb.png'] = assigned('srgb.png', SRGB, 'PNG24')
files['p3.webp'] = assigned('p3.webp', P3, 'WEBP', '-define', 'webp:lossless=true')
files['p3.tiff'] = assigned('p3.tiff', P3, 'TIFF', '-compress', 'zip')
# JPEG XL by cjxl from the tagged PNGs: lossless keeps the P3 profile as ICC; lossy (XYB) writes
# P3 as JPEG XL's own colour encoding, and keeps Adobe RGB's ICC (which veil has libjxl decode
# into sRGB: XYB is absolute colour).
if 'jxl' in vt.still_decoders():
    for name, src, args in [('p3.jxl', 'p3.png', ['-d', '0', '-e', '1']),
                            ('p3-xyb.jxl', 'p3.png', ['-d', '0.5']),
                            ('adobe-xyb.jxl', 'adobe.png', ['-d', '0.5'])]:
        path = os.path.join(media, name)
        r = subprocess.run(['cjxl', *args, files[src], path], capture_output=True, timeout=300)
        if r.returncode != 0:
            raise vt.Failure(f'cjxl {name}: {r.stderr.decode(errors="replace")}')
        os.chmod(path, 0o644)
        files[name] = path
# PNG's cICP (Display P3 primaries, sRGB's transfer, RGB, full range) and gAMA (1/1.8, sRGB's
# primaries) on the plain PNG's pixels.
files['cicp.png'] = png_insert(plain_png, os.path.join(media, 'cicp.png'),
                               [('cICP', bytes([12, 13, 0, 1]))])
files['gama.png'] = png_insert(plain_png, os.path.join(media, 'gama.png'),
                               [('gAMA', struct.pack('>I', round(100000 / 1.8)))])
# A JPEG and its twin with the P3 profile: the same scans, so the same decoded pixels.
plain_jpg = os.path.join(media, 'plain.jpg')
magick(plain_png, '-quality', '98', '-strip', plain_jpg)
os.chmod(plain_jpg, 0o644)
files['p3.jpg'] = jpeg_insert_icc(plain_jpg, os.path.join(media, 'p3.jpg'), p3_icc)
# Hostile profiles, in JPEG (no library checks its APP2 segments before lcms2 does) and WebP.
hostile = {
    'truncated.jpg': p3_icc[:len(p3_icc) // 2],
    'nonsense.jpg': p3_icc[:128] + bytes((i * 37) & 0xff for i in range(4000)),
    'huge.jpg': p3_icc[:128] + bytes(5 * 1024 * 1024),
    'header-only.jpg': p3_icc[:128],
}
for name, icc in hostile.items():
    files[name] = jpeg_insert_icc(plain_jpg, os.path.join(media, name), icc)

# HEIC (libheif, heif-enc): nclx code points of Display P3 beside a twin tagged BT.709/sRGB, and
# the P3 PNG's ICC profile (heif-enc takes it over) beside a twin of the plain PNG.
heic = {}
if 'heif' in vt.still_decoders() and vt.have_encoder('heif-enc'):
    def heif_enc(name, src, *args):
        path = os.path.join(media, name)
        r = subprocess.run(['heif-enc', '-q', '95', *args, '-o', path, src],
                           capture_output=True, timeout=300)
        if r.returncode != 0:
            raise vt.Failure(f'heif-enc {name}: {r.stderr.decode(errors="replace")}')
        os.chmod(path, 0o644)
        return path
    nclx = ['--transfer_characteristic', '13', '--matrix_coefficients', '1']
    heic['bt709.heic'] = heif_enc('bt709.heic', plain_png, '--colour_primaries', '1', *nclx)
    heic['p3-nclx.heic'] = heif_enc('p3-nclx.heic', plain_png, '--colour_primaries', '12',
                                    *nclx)
    heic['plain.heic'] = heif_enc('plain.heic', plain_png)
    heic['p3-icc.heic'] = heif_enc('p3-icc.heic', files['p3.png'])
    # HDR: the same pixels tagged PQ (transfer 16) in BT.2020 (primaries 9), matrix as
    # plain.heic's, so that its decode is plain.heic's; a small one for tile mode.
    pq = ['--colour_primaries', '9', '--transfer_characteristic', '16']
    heic['pq.heic'] = heif_enc('pq.heic', plain_png, *pq)
    small_png = vt.write_png(os.path.join(media, 'small.png'),
                            np.ascontiguousarray(pixels[:96:4, :128:4]))
    heic['pq-small.heic'] = heif_enc('pq-small.heic', small_png, *pq)
    files.update(heic)
else:
    vt._say('# HEIC: no libheif or no heif-enc, not tested')

with t.case('the files carry their profiles'):
    for name in ('p3.png', 'adobe.png', 'srgb.png'):
        kinds = [k for k, _ in png_chunks(files[name])]
        t.check('iCCP' in kinds, f'{name} has an iCCP chunk', str(kinds))
    t.check('cICP' in [k for k, _ in png_chunks(files['cicp.png'])], 'cicp.png has cICP')
    t.check('gAMA' in [k for k, _ in png_chunks(files['gama.png'])], 'gama.png has gAMA')
    for name in ('p3.webp', 'p3.tiff', 'p3.jpg'):
        desc = magick(files[name], '-format', '%[icc:description]', 'info:').decode()
        t.check(desc.strip() == 'sP3', f'{name} carries the P3 profile', desc)
    t.check(jpeg_has_icc(files['huge.jpg']), 'huge.jpg has APP2 ICC segments')
    if heic:
        info = subprocess.run(['heif-info', heic['p3-nclx.heic']], capture_output=True,
                              timeout=60).stdout.decode(errors='replace')
        t.check(re.search(r'colour primaries: 12\b', info) is not None,
                'p3-nclx.heic has nclx primaries 12', info)
        info = subprocess.run(['heif-info', heic['p3-icc.heic']], capture_output=True,
                              timeout=60).stdout.decode(errors='replace')
        t.check('color profile: prof' in info, 'p3-icc.heic has an ICC profile', info)
        info = subprocess.run(['heif-info', heic['pq.heic']], capture_output=True,
                              timeout=60).stdout.decode(errors='replace')
        t.check(re.search(r'transfer characteristics: 16\b', info) is not None and
                re.search(r'colour primaries: 9\b', info) is not None,
                'pq.heic has nclx transfer 16 (PQ), primaries 9 (BT.2020)', info)

decoders = vt.still_decoders()

with t.compositor(outputs=1) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    def show(path, label):
        return t.show(c, OUT, path, 'center #000000', label)

    def case(name, expected, colour, cmp=CLOSE, need=None):
        if need is not None and need not in decoders:
            vt._say(f'# {name}: veil is built without lib{need}, not tested')
            return None
        with t.case(name):
            v, shot = show(files[name], name)
            if v is None:
                return None
            got = status_colour(v)
            if isinstance(colour, str):
                t.check(got == colour, f'{name}: colour "{colour}"', str(got))
            else:
                t.check(got is not None and colour.fullmatch(got) is not None,
                        f'{name}: colour matches {colour.pattern}', str(got))
            t.compare(shot, expected, name, **cmp)
            return shot

    with t.case('no profile'):
        v, shot = show(plain_png, 'plain')
        if v is not None:
            t.check(status_colour(v) == 'none (sRGB assumed)', 'colour "none (sRGB assumed)"',
                    str(status_colour(v)))
            t.compare(shot, pixels, 'plain', **EXACT)
    case('srgb.png', pixels, 'sRGB (ICC)', cmp=EXACT)
    case('p3.png', p3_expected, 'sP3 (ICC) -> sRGB')
    case('adobe.png', adobe_expected, 'Compatible with Adobe RGB (1998) (ICC) -> sRGB')
    case('cicp.png', p3_expected, 'Display P3 (CICP) -> sRGB')
    # gAMA 1/1.8 on sRGB's primaries: computed here in numpy, sRGB's curve both ways.
    lin = (pixels / 255.0) ** 1.8
    srgb = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)
    case('gama.png', np.clip(np.round(srgb * 255), 0, 255).astype(np.uint8),
         'gAMA 0.55556 -> sRGB')
    case('p3.webp', p3_expected, 'sP3 (ICC) -> sRGB', need='webp')
    case('p3.tiff', p3_expected, 'sP3 (ICC) -> sRGB', need='tiff')
    case('p3.jxl', p3_expected, 'sP3 (ICC) -> sRGB', need='jxl')
    # Lossy: within 6 levels on the flat patches (5 measured, in pure red), away from their
    # edges and the picture's.
    xyb = dict(tolerance=6, mean_tolerance=1, ignore_border=4, ignore_edges=8)
    case('p3-xyb.jxl', p3_expected, 'Display P3 (CICP) -> sRGB', cmp=xyb, need='jxl')
    case('adobe-xyb.jxl', adobe_expected, 'sRGB (CICP)', cmp=xyb, need='jxl')

    # The JPEGs: veil's own decode of the plain twin is the pixels both are converted from.
    with t.case('plain JPEG'):
        v, jpeg_pixels = show(plain_jpg, 'plain-jpg')
        if v is not None:
            t.check(status_colour(v) == 'none (sRGB assumed)', 'colour "none (sRGB assumed)"',
                    str(status_colour(v)))
    if jpeg_pixels is not None:
        case('p3.jpg', converted(jpeg_pixels, P3, 'p3-jpg'), 'sP3 (ICC) -> sRGB')
        for name in hostile:
            shot = case(name, jpeg_pixels, re.compile(r'.*\(sRGB assumed\)'), cmp=EXACT)
            if shot is None:
                continue
            with open(c.log_path, 'rb') as f:
                log = f.read().decode(errors='replace')
            lines = [ln for ln in log.splitlines()
                     if files[name] in ln and 'colour:' in ln]
            t.check(len(lines) == 1, f'{name}: one log line names the file',
                    '\n'.join(lines) or vt._tail(c.log_path))
    # HEIC: veil's own decode of each twin is the pixels its tagged file is converted from.
    for twin, tagged, colour in [('bt709.heic', 'p3-nclx.heic', 'Display P3 (CICP) -> sRGB'),
                                 ('plain.heic', 'p3-icc.heic', 'sP3 (ICC) -> sRGB')]:
        if not heic:
            break
        with t.case(twin):
            v, twin_pixels = show(files[twin], twin)
            if v is not None:
                t.check(status_colour(v) == 'sRGB (CICP)', f'{twin}: colour "sRGB (CICP)"',
                        str(status_colour(v)))
        if twin_pixels is not None:
            case(tagged, converted(twin_pixels, P3, tagged.replace('.', '-')), colour)
        if twin == 'plain.heic' and twin_pixels is not None:
            # HDR on pixman (which ignores transfer functions): the pixels as decoded, and
            # the status says they look washed out here (on 0.19 too: nothing takes PQ).
            case('pq.heic', twin_pixels, re.compile(
                r'BT\.2020 PQ \(CICP\): HDR, shown as SDR without tone mapping .*'
                r'looks washed out.*'), cmp=EXACT)
    t.check(c.responsive(), 'the compositor still answers')


def log_text(c):
    with open(c.log_path, 'rb') as f:
        return f.read().decode(errors='replace')


def renderer_said(c):
    """What the importing renderer was told last: (transfer function, primaries)."""
    said = re.findall(r'import renderer: transfer function (\w+), primaries ([\w.]+)',
                      log_text(c))
    return said[-1] if said else None


# HDR stills carried to the renderer: the importing test renderer (tests/renderer) logs the
# transfer function and primaries of what it draws on each change. On wlroots 0.20 a PQ
# BT.2020 still reaches it as PQ and BT.2020; the SDR still after it as sRGB (the node is not
# left HDR); a small PQ still in tile mode (copied into a larger buffer) as PQ again. 0.19
# takes none of it: the status says the still is shown as SDR.
if heic:
    with t.compositor(outputs=1, renderer='import') as c:
        with t.case('HDR still on the importing renderer'):
            ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
            t.check(ok, f'output {OUT} resolution {W}x{H}', err)
            c.wait_mode(OUT, W, H)
            minor = re.search(r'with wlroots 0\.(\d+)', log_text(c))
            minor = int(minor.group(1)) if minor else 0

            def show_in(path, mode, label):
                ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} {mode} #000000')
                t.check(ok, f'{label} accepted', err)
                v = c.wait_veil(OUT, 'shown', file=path, mode=mode)
                t.check(v.get('error') is None, f'{label}: no error', str(v.get('error')))
                c.settled_screenshot(OUT)
                return status_colour(v) or ''

            colour = show_in(files['pq.heic'], 'center', 'pq.heic')
            t.check(colour.startswith('BT.2020 PQ (CICP): HDR'),
                    'the status says the still is BT.2020 PQ', colour)
            if minor >= 20:
                t.check(renderer_said(c) == ('PQ', 'BT.2020'),
                        'the renderer is given PQ and BT.2020 with the still',
                        str(renderer_said(c)))
                t.check('given to the renderer as PQ' in colour, 'the status says so',
                        colour)
            else:
                t.check('shown as SDR without tone mapping' in colour,
                        'on 0.19 the status says it is shown as SDR', colour)
            colour = show_in(files['plain.heic'], 'center', 'plain.heic')
            t.check(colour == 'sRGB (CICP)', 'the SDR still says "sRGB (CICP)"', colour)
            if minor >= 20:
                t.check(renderer_said(c) == ('sRGB', 'sRGB'),
                        'back to sRGB for the SDR still (the node is not left HDR)',
                        str(renderer_said(c)))
            colour = show_in(files['pq-small.heic'], 'tile', 'pq-small.heic tile')
            if minor >= 20:
                t.check(renderer_said(c) == ('PQ', 'BT.2020'),
                        'a tiled PQ still: its copies are given as PQ and BT.2020',
                        str(renderer_said(c)))
            t.check(c.responsive(), 'the compositor still answers')

t.finish()
