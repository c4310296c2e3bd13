#!/usr/bin/env python3
"""
`filter nearest|linear`: a 240x135 picture of random pixels stretched 8 times onto a 1920x1080
output by veil-tinywl (pixman), captured with grim. With `filter nearest` every output pixel
must be the picture's pixel under it (numpy's 8x8 repeat of the picture, exact); with `filter
linear`, and with no filter word, the renderer smooths (most pixels differ from the repeat).
Mode `integer`: a 250x130 picture 7 times as large, centred, unsmoothed, the colour around.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('filter')
OUT = 'HEADLESS-1'
W, H = 1920, 1080
rng = np.random.default_rng(32)
pixels = rng.integers(0, 256, (135, 240, 3), dtype=np.uint8)
path = vt.write_png(os.path.join(t.media, 'random-240x135.png'), pixels)
repeated = np.repeat(np.repeat(pixels, 8, axis=0), 8, axis=1)

with t.compositor(outputs=1) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    def show(words, label, filter_word):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch {words}'.rstrip())
        if not t.check(ok, f'`{words or "no filter word"}` accepted', err):
            return None
        v = c.wait_veil(OUT, 'shown', file=path, filter=filter_word)
        t.check(v.get('filter') == filter_word, f'status filter "{filter_word}"',
                str(v.get('filter')))
        shot = c.settled_screenshot(OUT)
        vt.write_png(t.path(f'shot-{label}.png'), shot)
        return shot

    with t.case('filter nearest'):
        shot = show('filter nearest', 'nearest', 'nearest')
        if shot is not None:
            t.compare(shot, repeated, 'nearest', tolerance=0, ignore_border=0)

    for words, label in [('filter linear', 'linear'), ('', 'default')]:
        with t.case(f'{label}: smoothed'):
            shot = show(words, label, 'linear')
            if shot is not None:
                differ = (np.abs(shot.astype(int) - repeated).max(axis=2) > 8).mean()
                t.check(differ > 0.5, 'most pixels differ from the 8x8 repeat (smoothed)',
                        f'{differ:.1%} differ')

    # `integer`: 250x130 fits 7 times (1750x910), centred at 85,85, the colour around,
    # unsmoothed: numpy's 7x7 repeat of each pixel.
    small = rng.integers(0, 256, (130, 250, 3), dtype=np.uint8)
    small_path = vt.write_png(os.path.join(t.media, 'random-250x130.png'), small)
    with t.case('integer'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(small_path)} integer #ff00ff')
        if t.check(ok, '`integer #ff00ff` accepted', err):
            v = c.wait_veil(OUT, 'shown', file=small_path, mode='integer')
            t.check(v.get('color') == '#ff00ff', 'status color #ff00ff', str(v.get('color')))
            shot = c.settled_screenshot(OUT)
            vt.write_png(t.path('shot-integer.png'), shot)
            expected = np.zeros((H, W, 3), np.uint8)
            expected[:, :] = (255, 0, 255)
            expected[85:85 + 910, 85:85 + 1750] = np.repeat(np.repeat(small, 7, axis=0), 7,
                                                            axis=1)
            t.compare(shot, expected, 'integer', tolerance=0, ignore_border=0)

    with t.case('a bad filter is refused'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch filter lanczos')
        t.check(not ok and 'Invalid filter' in (err or ''), 'refused with a sentence', err)

t.finish()
