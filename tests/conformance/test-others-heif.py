#!/usr/bin/env python3
"""
HEIF and AVIF stills that other programs wrote, through the real command path (swaymsg,
veil-tinywl at 1280x720, grim), each `center #000000`, against ImageMagick's reading (through
libheif, as test-conformance.py makes it: the ICC profile applied by ImageMagick's lcms2, CICP
by H.273), over the picture's part of the screen at test-conformance.py's 30 dB.

The files are the libheif-rs project's test data, which Debian ships in librust-libheif-rs-dev
(1.9 MB; fetched by apt at test time, tests/veiltest/debfiles.py, only these files extracted):

- test.heic: a 1652x1791 HEVC-coded HEIC (larger than the output: its centre is shown);
- test.heif: the same picture as AVIF (brand avif) with a Display P3 ICC profile: the status
  says it was converted to sRGB;
- grid.heif: a 960x720 AVIF made of grid tiles, CICP sRGB;
- alpha.heif: a 256x256 HEIC with an alpha plane, on black;
- star-8bpc.avifs: an AVIF image sequence (AV1 frames, 159x159, no still picture): its first
  picture, as ImageMagick's [0] (veil shows a sequence's first picture, it does not play it).

test.heic, test.heif, alpha.heif and grid.heif cut in half, asked for while grid.heif is shown:
one sentence naming the file, the screen as it was, the compositor answering. grid.heif cut in
half is refused too, though libheif could decode the tiles it still holds (heif-dec and
ImageMagick show them, the rest black, with libheif's warning "Extent in iloc box references
data outside of file bounds"): veil decodes strictly, as it refuses a truncated JPEG or PNG.
star-8bpc.avifs is left out: its first picture is whole in its first half, and shown.
"""
import importlib.util
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import otherslib as ol  # noqa: E402
import veiltest as vt  # noqa: E402
from veiltest import debfiles  # noqa: E402

spec = importlib.util.spec_from_file_location('conformance',
                                              os.path.join(HERE, 'test-conformance.py'))
conformance = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conformance)

t = vt.Test('others-heif')
OUT = 'HEADLESS-1'
W, H = 1280, 720
PACKAGE = 'librust-libheif-rs-dev'
# (file, size, what the status's source.colour must start with)
FILES = [('test.heic', (1652, 1791), 'none'),
         ('test.heif', (1652, 1791), 'Display P3 (ICC) -> sRGB'),
         ('grid.heif', (960, 720), 'sRGB'),
         ('alpha.heif', (256, 256), 'none'),
         ('star-8bpc.avifs', (159, 159), 'none')]
PATHS = {}

with t.case('the files'):
    members = debfiles.members(PACKAGE)
    for name, _, _ in FILES:
        found = [m for m in members if m.endswith('/data/' + name)]
        if not t.check(len(found) == 1, f'{PACKAGE} has one data/{name}', str(found)):
            continue
        path = os.path.join(t.media, name)
        shutil.copyfile(debfiles.path(PACKAGE, found[0]), path)
        os.chmod(path, 0o644)
        PATHS[name] = path


def shown_right(c, name, size, colour):
    path = PATHS[name]
    ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} center #000000')
    t.check(ok, 'the command is accepted', err)
    v = c.wait_veil(OUT, 'shown', file=path)
    t.check(v.get('kind') != 'video', 'shown as a picture', str(v.get('kind')))
    t.check(v.get('source_size') == {'width': size[0], 'height': size[1]},
            f'source_size {size[0]}x{size[1]}', str(v.get('source_size')))
    said = (v.get('source') or {}).get('colour') or ''
    t.check(said.startswith(colour), f'the status\'s colour says "{colour}"', said)
    ref, what = conformance.reference('heif', path)
    t.check(ref.shape[:2] == (size[1], size[0]), f'{what} reads {size[0]}x{size[1]}',
            str(ref.shape))
    expected, area = ol.on_black(ref, W, H)
    shot = c.settled_screenshot(OUT)
    # veil centres at a whole pixel: the best of the offsets a rounding may give.
    best = max(ol.psnr8(np.roll(np.roll(shot, dy, 0), dx, 1)[area], expected[area])
               for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    vt._say(f'   {name}: {best:.1f} dB against {what}; colour: {said}')
    t.check(best >= conformance.THRESHOLD_DB,
            f'on screen within {conformance.THRESHOLD_DB} dB of {what}', f'{best:.1f} dB')
    if best < conformance.THRESHOLD_DB:
        vt.write_png(t.path(f'{name}-shot.png'), shot)
        vt.write_png(t.path(f'{name}-want.png'), expected)


with t.compositor(outputs=1) as c:
    for name, size, colour in FILES:
        if name in PATHS:
            with t.case(name):
                shown_right(c, name, size, colour)

    with t.case('each cut in half: refused, the screen as it was'):
        if 'grid.heif' in PATHS:
            shown_right(c, 'grid.heif', (960, 720), 'sRGB')
            before = c.settled_screenshot(OUT)
            for name in [n for n in PATHS if n != 'star-8bpc.avifs']:
                bad = ol.cut(t, PATHS[name], fraction=0.5)
                err = c.refused_file(OUT, f'{vt.quote(bad)} center #000000', bad, [],
                                     os.path.basename(bad))
                vt._say(f'   {os.path.basename(bad)}: {err}')
                t.check(err.strip().count('. ') == 0 and '\n' not in err.strip(),
                        f'{name} cut: one sentence', err)
            t.check(np.array_equal(c.settled_screenshot(OUT), before),
                    'the screen is as it was')
            t.check(c.responsive(), 'the compositor answers')
            t.check(c.veil(OUT).get('file') == PATHS['grid.heif'],
                    'the status still shows grid.heif', str(c.veil(OUT).get('file')))
t.finish()
