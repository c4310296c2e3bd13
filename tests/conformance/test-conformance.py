#!/usr/bin/env python3
"""
The formats' own conformance files (../shared/conformance/: PngSuite, the AVIF, HEIF, WebP and
JPEG projects' test sets) through veil's own decoding path, with no compositor: each file goes
through tests/tools/decode-still (veil_media_sniff, the decoder's header check, veil_still_decode
with the colour conversion; the first frame of an animation), and the picture it writes is
compared with an independent decoder's:

- the suite's own reference picture where it has one (jpeg/ref/, webp/ref/: another project's
  decoder, read here with ImageMagick);
- else ImageMagick (`convert FILE -depth 16 PAM`), which leaves colour alone: an embedded ICC
  profile is then applied by ImageMagick's own lcms2 (`-intent Perceptual -profile sRGB.icc`,
  what veil's perceptual transform does); a JPEG in CMYK or YCCK is made sRGB with
  `-colorspace sRGB`; an AVIF's or HEIC's CICP other than sRGB's (SDR) is converted here in
  numpy as H.273 defines it;
- for a WebP still without an ICC profile, libwebp's own dwebp too (from Debian's `webp`
  package, fetched at test time: tests/veiltest/debfiles.py), whose PNG is RGB when the header
  declares no alpha (VP8L's hint, VP8X's flag) and RGBA when it does: veil must agree with both;
- for a PNG whose gAMA or cHRM says something other than sRGB: the PNG specification's
  conversion (third edition, 13.13 and 12.2), computed here with numpy from ImageMagick's
  16-bit samples, which ImageMagick itself leaves as they are (see expectations.txt for why veil
  follows the specification there and not ImageMagick's display).

A file is shown right when its size matches and the PSNR over premultiplied R, G, B and alpha is
at least THRESHOLD_DB. 30 dB: decoders that agree differ only in rounding, an IDCT or a chroma
upsampling (here 34.6 dB and up, every file), while a wrong colour conversion, gamma or channel
order falls to 12-26 dB (PngSuite's gAMA 2.5 files shown without sRGB's encoding gave 20-24 dB).

Files expected to be refused are listed in expectations.txt with a word the sentence must hold
and why the suite agrees; every other file must be shown right. A file refused with a video's
sentence, or with text that is not UTF-8, is never a clear error. The table "shown right /
refused with a clear error / wrong" per suite is printed, and written to --outdir as
results.md with every file's figures.

Usage: test-conformance.py --decode-still PATH --suites DIR --expectations FILE --outdir DIR
       [--only SUITE] [--file SUITE/NAME]
Exits 1 when a file is not as expected, or when the suites are missing (never skipped).
"""

import argparse
import concurrent.futures
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from veiltest import debfiles, decode_still  # noqa: E402

SUITES = {
    'png': ('.png',),
    'jpeg': ('.jpg', '.jpeg'),
    'webp': ('.webp',),
    'avif': ('.avif',),
    'heif': ('.heic', '.heif'),
}
THRESHOLD_DB = 30.0
SRGB_ICC = '/usr/share/color/icc/sRGB.icc'
DECODE_TIMEOUT = 60


def read_pam(data):
    """A PAM as R, G, B, A from 0 to 1, whatever its depth."""
    px, maxval = decode_still.read_pam(data)
    px = px.astype(np.float64) / maxval
    d = px.shape[2]
    if d == 1:
        px = np.concatenate([px, px, px, np.ones_like(px)], axis=2)
    elif d == 2:
        px = np.concatenate([px[:, :, :1]] * 3 + [px[:, :, 1:]], axis=2)
    elif d == 3:
        px = np.concatenate([px, np.ones_like(px[:, :, :1])], axis=2)
    return px


def magick(args):
    r = subprocess.run(['convert'] + args + ['-depth', '16', 'PAM:-'], capture_output=True,
                       timeout=120)
    if r.returncode != 0 or not r.stdout:
        raise RuntimeError('convert %s: %s' % (' '.join(args), r.stderr.decode(errors='replace')))
    return read_pam(r.stdout)


def magick_info(path, fmt):
    r = subprocess.run(['identify', '-format', fmt, path + '[0]'], capture_output=True,
                       timeout=60)
    return r.stdout.decode(errors='replace')


# --- PNG's colour chunks, read here on their own ---------------------------------------------

def png_colour_chunks(path):
    with open(path, 'rb') as f:
        data = f.read()
    chunks = {}
    i = 8
    while i + 8 <= len(data):
        n, kind = struct.unpack('>I4s', data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        kind = kind.decode('latin-1')
        if kind in ('gAMA', 'cHRM', 'sRGB', 'iCCP', 'cICP') and kind not in chunks:
            chunks[kind] = body
        if kind in ('IDAT', 'IEND'):
            break  # colour chunks come before the pixels
        i += 12 + n
    return chunks


SRGB_XY = (0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06)
D50 = np.array([0.9642, 1.0, 0.8249])
BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367],
                     [0.0389, -0.0685, 1.0296]])


def xyz(x, y):
    return np.array([x / y, 1.0, (1 - x - y) / y])


def rgb_to_xyz_d50(xy):
    """RGB to XYZ for white and primaries xy, adapted to D50 with Bradford (as lcms2 does)."""
    wx, wy, rx, ry, gx, gy, bx, by = xy
    m = np.stack([xyz(rx, ry), xyz(gx, gy), xyz(bx, by)], axis=1)
    s = np.linalg.solve(m, xyz(wx, wy))
    m = m * s
    src = BRADFORD @ xyz(wx, wy)
    dst = BRADFORD @ D50
    adapt = np.linalg.inv(BRADFORD) @ np.diag(dst / src) @ BRADFORD
    return adapt @ m


def srgb_encode(lin):
    lin = np.clip(lin, 0, 1)
    return np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)


def png_spec_reference(px, chunks):
    """
    PNG's gAMA and cHRM as the specification reads them: sample = light ^ gamma, gamma the gAMA
    value / 100000; cHRM's primaries and white; each missing one sRGB's. Returns (pixels, what)
    or (None, why) when the file says sRGB (then the samples are shown as they are).
    """
    if 'cICP' in chunks or 'iCCP' in chunks or 'sRGB' in chunks:
        return None, 'cICP, iCCP or sRGB ranks first'
    gamma = None
    if 'gAMA' in chunks and len(chunks['gAMA']) == 4:
        gamma = struct.unpack('>I', chunks['gAMA'])[0] / 100000.0
    xy = None
    if 'cHRM' in chunks and len(chunks['cHRM']) == 32:
        xy = tuple(v / 100000.0 for v in struct.unpack('>8I', chunks['cHRM']))
    if gamma is None and xy is None:
        return None, 'no colour chunk'
    # libpng's tolerances for sRGB's own (png.c: png_colorspace_set_sRGB): a gamma within 5 %
    # of 0.45455 (PNG_GAMMA_THRESHOLD_FIXED), cHRM within 0.001. A file that says sRGB's values
    # is sRGB; cHRM without gAMA says no transfer and is taken for sRGB, as libpng and
    # ImageMagick take it (veil follows them there, and the specification elsewhere).
    if xy is not None and gamma is None:
        return None, 'cHRM without gAMA: sRGB'
    if gamma is None or gamma <= 0:
        return None, 'unusable'
    gamma_srgb = 0.95 <= gamma / 0.45455 <= 1.05
    xy_srgb = xy is None or all(abs(a - b) <= 0.001 for a, b in zip(xy, SRGB_XY))
    if gamma_srgb and xy_srgb:
        return None, "sRGB's values"
    m = np.linalg.solve(rgb_to_xyz_d50(SRGB_XY), rgb_to_xyz_d50(xy or SRGB_XY))
    if gamma_srgb:
        c = px[:, :, :3]
        lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    else:
        lin = px[:, :, :3] ** (1.0 / gamma)
    out = px.copy()
    out[:, :, :3] = srgb_encode(lin @ m.T)
    return out, 'gAMA %.5g%s by the specification' % (gamma, ' + cHRM' if xy else '')


# H.273's primaries (white, R, G, B: cHRM's order) and SDR transfers that veil converts.
CICP_PRIMARIES = {
    1: SRGB_XY, 2: SRGB_XY,
    9: (0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046),
    12: (0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060),
}


def cicp_of(path):
    """A HEIF's nclx code points (primaries, transfer), read from its colr box, or None."""
    with open(path, 'rb') as f:
        data = f.read(1 << 20)
    at = data.find(b'colrnclx')
    if at < 0:
        return None
    primaries, transfer = struct.unpack('>HH', data[at + 8:at + 12])
    return primaries, transfer


def cicp_reference(px, cicp):
    """
    ImageMagick leaves CICP alone: the conversion to sRGB computed here, as H.273 defines the
    code points, for SDR transfers (sRGB's, BT.709's) and the primaries veil names. None when
    the pixels stay as decoded (sRGB, HDR kept for the renderer, or code points veil leaves).
    """
    primaries, transfer = cicp
    if primaries in (1, 2) and transfer in (2, 13):
        return None
    if primaries not in CICP_PRIMARIES or transfer not in (1, 2, 6, 13, 14, 15):
        return None
    c = px[:, :, :3]
    if transfer in (2, 13):
        lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    else:
        lin = np.where(c < 0.081, c / 4.5, ((c + 0.099) / 1.099) ** (1 / 0.45))
    m = np.linalg.solve(rgb_to_xyz_d50(SRGB_XY), rgb_to_xyz_d50(CICP_PRIMARIES[primaries]))
    out = px.copy()
    out[:, :, :3] = srgb_encode(lin @ m.T)
    return out


# --- references -------------------------------------------------------------------------------

def reference(suite, path):
    """(pixels, what) of the independent decoder for a file."""
    name = os.path.splitext(os.path.basename(path))[0]
    refdir = os.path.join(os.path.dirname(path), 'ref')
    for candidate in (name + '.png', name + '-1.png'):
        ref = os.path.join(refdir, candidate)
        if os.path.exists(ref):
            return magick([ref]), 'suite reference ref/' + candidate
    if suite == 'png':
        raw = magick([path])
        spec, what = png_spec_reference(raw, png_colour_chunks(path))
        if spec is not None:
            return spec, what
        return raw, 'ImageMagick (' + what + ')'
    args = [path + '[0]']
    what = 'ImageMagick'
    profiles, colorspace = (magick_info(path, '%[profiles]|%[colorspace]') + '|').split('|')[:2]
    if 'icc' in profiles.split(','):
        args += ['-intent', 'Perceptual', '-profile', SRGB_ICC]
        what += ' with its ICC profile'
    elif colorspace in ('CMYK', 'YCCK'):
        args += ['-colorspace', 'sRGB']
        what += ' -colorspace sRGB'
    try:
        px = magick(args)
        cicp = cicp_of(path) if suite in ('heif', 'avif') and 'ICC' not in what else None
        converted = cicp_reference(px, cicp) if cicp is not None else None
        if converted is not None:
            return converted, what + ' and CICP %d/%d by H.273' % cicp
        return px, what
    except RuntimeError as e:
        if suite not in ('heif', 'avif'):
            raise
        # ImageMagick reads every top-level image of a HEIF file and gives up at one libheif
        # cannot decode (multilayer001's lhv1 layer): libheif's own heif-dec, which decodes
        # the primary image alone.
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'ref.png')
            r = subprocess.run(['heif-dec', path, out], capture_output=True, timeout=120)
            for candidate in (out, os.path.join(tmp, 'ref-1.png')):
                if os.path.exists(candidate):
                    return magick([candidate]), 'heif-dec (ImageMagick: %s)' % (
                        str(e).split(': ', 1)[-1].strip().splitlines()[0][:80])
        raise RuntimeError('%s; heif-dec: %s' % (e, r.stderr.decode(errors='replace')[-200:]))


def dwebp_reference(path, tmp):
    """
    (pixels, what) of libwebp's dwebp for a WebP still with no ICC profile (dwebp leaves colour
    alone), or None for an animation (dwebp refuses those) or a file with a profile.
    """
    with open(path, 'rb') as f:
        head = f.read(21)
    # VP8X's flags: ICC (0x20) and animation (0x02).
    if head[12:16] == b'VP8X' and head[20] & 0x22:
        return None
    out = os.path.join(tmp, os.path.basename(path) + '.dwebp.png')
    tool = debfiles.path('webp', 'usr/bin/dwebp')
    r = subprocess.run([tool, path, '-o', out], capture_output=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError('dwebp: %s' % r.stderr.decode(errors='replace').strip()[-200:])
    return magick([out]), 'dwebp'


def psnr(a, b):
    """Over premultiplied R, G, B and alpha, on 0-255."""
    pa = np.concatenate([a[:, :, :3] * a[:, :, 3:], a[:, :, 3:]], axis=2) * 255
    pb = np.concatenate([b[:, :, :3] * b[:, :, 3:], b[:, :, 3:]], axis=2) * 255
    mse = float(np.mean((pa - pb) ** 2))
    if mse == 0:
        return float('inf')
    return 10 * np.log10(255.0 ** 2 / mse)


# --- veil's side ------------------------------------------------------------------------------

def veil_decode(tool, path, out):
    """decode-still's lines (decode_still.parse), 'seconds' and 'status'; its picture in out."""
    if os.path.exists(out):
        os.unlink(out)
    start = time.monotonic()
    try:
        info, _ = decode_still.run(tool, path, out, timeout=DECODE_TIMEOUT)
    except decode_still.ToolFailed as e:
        info = {'status': 2, 'utf8': True, 'error': str(e)}
    info['seconds'] = time.monotonic() - start
    return info


def load_expectations(path):
    table = {}
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 3)
            if len(parts) < 4 or parts[1] not in ('refused', 'wrong'):
                raise SystemExit('%s:%d: want "SUITE/FILE refused|wrong WORD why"' %
                                 (path, number))
            table[parts[0]] = {'state': parts[1], 'word': parts[2], 'why': parts[3]}
    return table


def clear_error(info):
    """Whether a refusal's sentence is one a person can act on, and why not."""
    sentence = info.get('error', '')
    if not sentence:
        return False, 'no sentence'
    if not info.get('utf8', True):
        return False, 'not UTF-8'
    if info.get('kind') == 'video' or "can't be played" in sentence:
        return False, "an image refused with a video's sentence"
    if 'decode-still failed' in sentence:
        return False, 'the decoding process died'
    return True, ''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--decode-still', required=True)
    ap.add_argument('--suites', required=True)
    ap.add_argument('--expectations', required=True)
    ap.add_argument('--outdir', required=True)
    ap.add_argument('--only', action='append')
    ap.add_argument('--file', action='append')
    args = ap.parse_args()

    if not os.path.isdir(args.suites):
        print('FAIL: the conformance files are not at %s (../shared/conformance beside the '
              'source tree)' % args.suites, flush=True)
        return 1
    expectations = load_expectations(args.expectations)
    os.makedirs(args.outdir, exist_ok=True)

    jobs = []
    failures = []
    for suite, exts in SUITES.items():
        if args.only and suite not in args.only:
            continue
        folder = os.path.join(args.suites, suite)
        if not os.path.isdir(folder):
            failures.append('%s: no folder %s' % (suite, folder))
            continue
        names = sorted(n for n in os.listdir(folder) if n.lower().endswith(exts))
        if not names:
            failures.append('%s: no files in %s' % (suite, folder))
        for name in names:
            if not args.file or suite + '/' + name in args.file:
                jobs.append((suite, name))

    def judge(job):
        suite, name = job
        path = os.path.join(args.suites, suite, name)
        out = os.path.join(args.outdir, suite + '-' + name + '.pam')
        info = veil_decode(args.decode_still, path, out)
        if info['status'] == 0 and os.path.exists(out):
            with open(out, 'rb') as f:
                mine = read_pam(f.read())
            try:
                ref, what = reference(suite, path)
            except Exception as e:  # noqa: BLE001: a reference that cannot be made
                ref, what = None, 'no reference: %s' % e
            if ref is None:
                state, detail = 'wrong', what
            elif ref.shape != mine.shape:
                state = 'wrong'
                detail = 'size %dx%d, %s %dx%d' % (mine.shape[1], mine.shape[0], what,
                                                    ref.shape[1], ref.shape[0])
            else:
                db = psnr(mine, ref)
                state = 'right' if db >= THRESHOLD_DB else 'wrong'
                detail = '%.1f dB against %s' % (db, what)
            if suite == 'webp' and ref is not None:
                try:
                    second = dwebp_reference(path, args.outdir)
                except Exception as e:  # noqa: BLE001: dwebp cannot be had, or fails
                    state, second = 'wrong', None
                    detail += '; no dwebp reference: %s' % e
                if second is not None and second[0].shape != mine.shape:
                    state = 'wrong'
                    detail += '; size against dwebp'
                elif second is not None:
                    db = psnr(mine, second[0])
                    state = state if db >= THRESHOLD_DB else 'wrong'
                    detail += ', %.1f dB against dwebp' % db
            detail += '; colour: %s' % info.get('colour', '?')
        else:
            ok, why = clear_error(info)
            state = 'refused' if ok else 'wrong'
            detail = info.get('error', '?') + ('' if ok else ' [%s]' % why)
        return suite, name, state, info['seconds'], detail

    rows = []
    table = {}
    slowest = (0.0, '')
    # Two at a time: ImageMagick and the decoder each use one core.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for suite, name, state, seconds, detail in pool.map(judge, jobs):
            key = suite + '/' + name
            counts = table.setdefault(suite, {'files': 0, 'right': 0, 'refused': 0,
                                              'wrong': 0})
            counts['files'] += 1
            counts[state] += 1
            if seconds > slowest[0]:
                slowest = (seconds, key)
            expect = expectations.get(key)
            want = expect['state'] if expect else 'right'
            problem = None
            if state != want:
                if expect:
                    problem = 'expected %s (%s), is %s' % (want, expect['why'], state)
                else:
                    problem = 'is %s' % state
            elif want == 'refused' and expect['word'].lower() not in detail.lower():
                problem = 'refused without the word "%s"' % expect['word']
            if problem is not None:
                failures.append('%s: %s: %s' % (key, problem, detail))
            rows.append((key, state, '%.2f' % seconds, detail))
            print('%-62s %-8s %5.2fs %s' % (key, state, seconds, detail), flush=True)

    lines = ['| suite | files | shown right | refused with a clear error | wrong |',
             '|---|---|---|---|---|']
    total = {'files': 0, 'right': 0, 'refused': 0, 'wrong': 0}
    for suite, c in table.items():
        lines.append('| %s | %d | %d | %d | %d |' % (suite, c['files'], c['right'],
                                                     c['refused'], c['wrong']))
        for k in total:
            total[k] += c[k]
    lines.append('| all | %d | %d | %d | %d |' % (total['files'], total['right'],
                                                  total['refused'], total['wrong']))
    print()
    print('\n'.join(lines))
    print('slowest decode: %.2f s (%s)' % slowest)
    with open(os.path.join(args.outdir, 'results.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n\nslowest decode: %.2f s (%s)\n\n' % slowest)
        f.write('| file | state | s | detail |\n|---|---|---|---|\n')
        for row in rows:
            f.write('| %s |\n' % ' | '.join(c.replace('|', '/') for c in row))
    print()
    for failure in failures:
        print('FAIL', failure)
    print('%d passed, %d failed' % (len(rows) - len(failures), len(failures)), flush=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
