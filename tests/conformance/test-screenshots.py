#!/usr/bin/env python3
"""
One file of each kind from the formats' own test sets (../shared/conformance) through the real
command path: veil-tinywl (headless, pixman) told `output HEADLESS-1 veil FILE center #000000`
by swaymsg, the output read back with grim, and the picture on screen compared with the same
independent reference test-conformance.py uses (the suite's reference, ImageMagick, or PNG's
specification), centred on black, by PSNR over the picture at the same 30 dB; the status's
source.colour is printed beside it. Fails when the files are missing.
"""
import importlib.util
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
import veiltest as vt  # noqa: E402

spec = importlib.util.spec_from_file_location('conformance',
                                              os.path.join(HERE, 'test-conformance.py'))
conformance = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conformance)
sys.path.insert(0, HERE)
from otherslib import on_black, psnr8  # noqa: E402

SUITES = os.path.join(HERE, '..', '..', '..', 'shared', 'conformance')
OUT = 'HEADLESS-1'
W, H = 1280, 720
# PNG: gAMA 2.5 (the specification's greys); JPEG through GStreamer; lossy WebP; monochrome
# AVIF at the output's size; HEIF's image sequence with no still (its first picture).
FILES = ['png/g25n2c08.png', 'jpeg/testorig.jpg', 'webp/test.webp', 'avif/Monochrome.avif',
         'heif/C026.heic']

t = vt.Test('conformance-screenshots')
if not os.path.isdir(SUITES):
    t.fail('the conformance files are there', SUITES)
    t.finish()


with t.compositor(outputs=1) as c:
    for name in FILES:
        with t.case(name):
            suite = name.split('/')[0]
            src = os.path.join(SUITES, name)
            path = os.path.join(t.media, os.path.basename(name))
            with open(src, 'rb') as f, open(path, 'wb') as g:
                g.write(f.read())
            os.chmod(path, 0o644)
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} center #000000')
            t.check(ok, 'the command is accepted', err)
            v = c.wait_veil(OUT, 'shown', file=path)
            colour = (v.get('source') or {}).get('colour')
            ref, what = conformance.reference(suite, src)
            expected, area = on_black(ref, W, H)
            shot = c.settled_screenshot(OUT)
            # Over the picture's part of the screen; veil centres at a whole pixel: the best
            # of the offsets a rounding may give.
            best = max(psnr8(np.roll(np.roll(shot, dy, 0), dx, 1)[area], expected[area])
                       for dy in (-1, 0, 1) for dx in (-1, 0, 1))
            t.check(best >= conformance.THRESHOLD_DB,
                    f'on screen within {conformance.THRESHOLD_DB} dB of {what}',
                    f'{best:.1f} dB')
            vt._say(f'   {name}: {best:.1f} dB against {what}; colour: {colour}')
            if best < conformance.THRESHOLD_DB:
                vt.write_png(os.path.join(t.outdir, os.path.basename(name) + '-shot.png'), shot)
                vt.write_png(os.path.join(t.outdir, os.path.basename(name) + '-want.png'),
                             expected)
t.finish()
