#!/usr/bin/env python3
"""
`filter nearest|linear|smooth`: a 240x135 picture of random pixels stretched 8 times onto a
1920x1080 output by veil-tinywl (pixman), captured with grim. With `filter nearest` every output
pixel must be the picture's pixel under it (numpy's 8x8 repeat of the picture, exact); with
`filter linear`, `filter smooth` and no filter word (smooth, the default) the renderer smooths
(most pixels differ from the repeat).

The worker's shrink of a large still: a 4800x2700 picture of 1-pixel black and white stripes
shown `fill` (kept at 1920x1080, 2.5 source pixels an output pixel). `filter smooth` must give
mid-grey everywhere, without bands (the column means stay flat), and no filter word the same
pixels; `filter nearest` must keep pure black and white pixels (picked, not averaged), both of
them; `filter linear` none (averaged).

Copies carry the filter: with `filter nearest` on both pictures, mid-way through a wipe (the old
picture's copies under the new one's cut nodes) and a grow (copies of the new picture in bands),
no pixel is a blend (each has the colour of a pixel of one picture), and in the wipe the old
picture's copies are its exact 8x8 repeat.

Mode `integer`: a 250x130 picture 7 times as large, centred, unsmoothed, the colour around.
"""
import os
import sys
import time

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

    for words, label, word in [('filter linear', 'linear', 'linear'),
                               ('filter smooth', 'smooth', 'smooth'), ('', 'default', 'smooth')]:
        with t.case(f'{label}: smoothed'):
            shot = show(words, label, word)
            if shot is not None:
                differ = (np.abs(shot.astype(int) - repeated).max(axis=2) > 8).mean()
                t.check(differ > 0.5, 'most pixels differ from the 8x8 repeat (smoothed)',
                        f'{differ:.1%} differ')

    # The worker's shrink: 1-pixel stripes, 2.5 source pixels an output pixel.
    stripes = np.zeros((2700, 4800, 3), np.uint8)
    stripes[:, 1::2] = 255
    stripes_path = vt.write_png(os.path.join(t.media, 'stripes-4800x2700.png'), stripes)

    def show_fill(filter_word, words=None):
        words = f'filter {filter_word}' if words is None else words
        ok, err = c.msg(f'output {OUT} veil {vt.quote(stripes_path)} fill {words}'.rstrip())
        if not t.check(ok, f'`fill {words}` accepted', err):
            return None
        v = c.wait_veil(OUT, 'shown', file=stripes_path, filter=filter_word)
        size = v.get('source_size') or {}
        t.check((size.get('width'), size.get('height')) == (W, H),
                f'{filter_word}: shrunk on the worker to {W}x{H}', str(size))
        shot = c.settled_screenshot(OUT)
        vt.write_png(t.path(f'shot-stripes-{filter_word}.png'), shot)
        return shot

    smooth_shot = None
    with t.case('smooth shrink: mid-grey, no bands'):
        shot = show_fill('smooth')
        if shot is not None:
            # The outermost two columns and rows aside: there the kernel is cut short by the
            # picture's edge and the stripes no longer cancel.
            inner = shot[2:-2, 2:-2]
            lo, hi = int(inner.min()), int(inner.max())
            columns = inner[:, :, 1].astype(float).mean(axis=0)
            t.check(112 <= lo and hi <= 143, 'every pixel mid-grey (112..143)', f'{lo}..{hi}')
            t.check(columns.max() - columns.min() <= 12, 'no bands: column means within 12',
                    f'{columns.min():.1f}..{columns.max():.1f}')
            t.check((shot[:, :, 0] == shot[:, :, 1]).all() and
                    (shot[:, :, 1] == shot[:, :, 2]).all(), 'grey: R = G = B')
            smooth_shot = shot

    with t.case('the default shrink is smooth'):
        shot = show_fill('smooth', words='')
        if shot is not None and smooth_shot is not None:
            t.compare(shot, smooth_shot, 'default-shrink', tolerance=0, ignore_border=0)

    with t.case('nearest shrink: picked pixels, pure black and white'):
        shot = show_fill('nearest')
        if shot is not None:
            pure = ((shot == 0) | (shot == 255)).all(axis=2)
            t.check(pure.all(), 'every pixel pure black or white',
                    f'{(~pure).sum()} pixels are not')
            white = (shot[:, :, 0] == 255).mean()
            t.check(0.2 < white < 0.8, 'both black and white', f'{white:.1%} white')

    with t.case('linear shrink: averaged'):
        shot = show_fill('linear')
        if shot is not None:
            pure = ((shot == 0) | (shot == 255)).all(axis=2).mean()
            t.check(pure < 0.01, 'no pure black or white left (a box average)',
                    f'{pure:.1%} pure')

    # Copies: two random pictures, both nearest, through a wipe and a grow.
    other = rng.integers(0, 256, (135, 240, 3), dtype=np.uint8)
    other_path = vt.write_png(os.path.join(t.media, 'random-b-240x135.png'), other)
    other_repeated = np.repeat(np.repeat(other, 8, axis=0), 8, axis=1)

    def rgb_key(img):
        img = img.astype(np.int64)
        return (img[..., 0] << 16) | (img[..., 1] << 8) | img[..., 2]
    palette = np.union1d(rgb_key(pixels).ravel(), rgb_key(other).ravel())
    for kind in ('wipe', 'grow'):
        with t.case(f'{kind}: the copies scale as nearest'):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} stretch filter nearest '
                            'transition none')
            t.check(ok, 'the first picture, nearest', err)
            c.wait_veil(OUT, 'shown', file=path, filter='nearest')
            c.settled_screenshot(OUT)
            ok, err = c.msg(f'output {OUT} veil {vt.quote(other_path)} stretch filter nearest '
                            f'transition {kind} 8000')
            if not t.check(ok, f'the second, nearest, transition {kind} 8000', err):
                continue
            c.wait_veil(OUT, 'shown', file=other_path, filter='nearest')
            time.sleep(2.5)
            before = (c.veil(OUT).get('transition') or {}).get('progress')
            shot = vt.grab(c, OUT)
            after = (c.veil(OUT).get('transition') or {}).get('progress')
            vt.write_png(t.path(f'shot-{kind}.png'), shot)
            t.check(before is not None and after is not None and 0 < before <= after < 1,
                    'captured mid-transition', f'progress {before} then {after}')
            old = (shot == repeated).all(axis=2)
            new = (shot == other_repeated).all(axis=2)
            t.check(old.mean() > 0.02 and new.mean() > 0.02, 'both pictures show',
                    f'old {old.mean():.1%}, new {new.mean():.1%}')
            # Unsmoothed: every pixel has the colour of one of the pictures' pixels (a
            # blend of two random colours almost never has).
            blended = ~np.isin(rgb_key(shot), palette)
            t.check(blended.mean() < 0.003, 'no blended pixel: the copies scale as nearest',
                    f'{blended.mean():.2%} ({blended.sum()} pixels) are blends')
            if kind == 'wipe':
                # Right of the line, the old picture's copies, uncut: its exact repeat.
                line = int(np.argmax(old.mean(axis=0) > 0.5))
                exact = old[:, line:].mean()
                t.check(line > 0 and exact > 0.998,
                        'the old picture\'s copies are its exact 8x8 repeat',
                        f'from column {line}: {exact:.2%} exact')
            c.wait_until(lambda: c.veil(OUT).get('transition') is None, 'the transition ends',
                         timeout=20)

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
        t.check(not ok and "Invalid filter 'lanczos': expected linear, nearest or smooth" in
                (err or ''), 'refused with a sentence', err)

t.finish()
