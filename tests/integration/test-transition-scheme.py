#!/usr/bin/env python3
"""
Light and dark: a setting that names two pictures (`veil <file> fill dark <file>`), or a
colour for the dark scheme (`veil <file|#rrggbb solid_color> dark #rrggbb`), and the
scene's scheme switched by `veil scheme light|dark` (the real swaymsg) and by `veilctl scheme`,
on two outputs of veil-tinywl (headless, pixman), seen with grim.

The pictures are flat colours, so that a pixel during the fade between them is
L*(1-a) + D*a for one a, judged against the status's progress read around the screenshot; at
rest each output is exactly its picture. The second output has a setting without `dark` and
keeps it whatever the scheme.
"""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('transition-scheme')
OUT, OTHER = 'HEADLESS-1', 'HEADLESS-2'
W, H = 640, 360
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media

LIGHT = (230, 210, 150)
DARK = (20, 30, 70)
THIRD = (90, 160, 60)


def flat(color):
    return np.broadcast_to(np.array(color, np.uint8), (H, W, 3)).copy()


light_png = vt.make_png(os.path.join(media, 'light.png'), flat(LIGHT))
dark_png = vt.make_png(os.path.join(media, 'dark.png'), flat(DARK))
third_png = vt.make_png(os.path.join(media, 'third.png'), flat(THIRD))


def transition_of(v):
    return v.get('transition')


def progress(c):
    return (transition_of(c.veil(OUT)) or {}).get('progress')


def judge_fade(c, old, new, what):
    """A screenshot mid-fade: a blend of old and new that follows the progress."""
    time.sleep(0.8)
    p1 = progress(c)
    a, why = vt.blend_of(vt.grab(c, OUT), old, new)
    p2 = progress(c)
    t.check(a is not None, f'{what}: a blend of the two pictures mid-fade', why)
    t.check(None not in (p1, a, p2) and p1 - 0.02 <= a <= p2 + 0.02,
            f'{what}: the blend follows the progress ({p1} <= {a} <= {p2})')


def other_unchanged(c, what):
    v = c.veil(OTHER)
    t.check(v.get('file') == third_png and transition_of(v) is None,
            f'{what}: the output without `dark` keeps its picture, no transition', str(v))
    t.compare(vt.grab(c, OTHER), flat(THIRD), f'other-{what}', **EXACT)


with t.compositor(outputs=2) as c:
    with t.case('setup'):
        for name in (OUT, OTHER):
            ok, err = c.msg(f'output {name} resolution {W}x{H}')
            t.check(ok, f'output {name} resolution {W}x{H}', err)
            c.wait_mode(name, W, H)
        ok, err = c.msg(f'output {OTHER} veil {vt.quote(third_png)} fill')
        t.check(ok, '`veil third.png fill` on the other output accepted', err)
        c.wait_veil(OTHER, 'shown', file=third_png)

    with t.case('a setting with a dark picture shows the light one at first'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(light_png)} fill dark '
                        f'{vt.quote(dark_png)} transition fade 3000')
        t.check(ok, '`veil light.png fill dark dark.png transition fade 3000` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=light_png)
        t.check(v.get('scheme') == 'light', 'the status says light', str(v.get('scheme')))
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the first fade ends',
                     timeout=10)
        t.compare(c.settled_screenshot(OUT), flat(LIGHT), 'light', **EXACT)

    with t.case('veil scheme dark fades to the dark picture'):
        ok, err = c.msg('output * veil scheme dark')
        t.check(ok, '`output * veil scheme dark` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=dark_png)
        tr = transition_of(v) or {}
        t.check(v.get('scheme') == 'dark' and tr.get('kind') == 'fade',
                'the status says dark, a fade runs', f'{v.get("scheme")} {tr}')
        judge_fade(c, LIGHT, DARK, 'to dark')
        other_unchanged(c, 'dark')
        t.check(c.veil(OTHER).get('scheme') == 'dark', 'every output\'s status says dark')
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), flat(DARK), 'dark', **EXACT)

    with t.case('the same scheme again changes nothing'):
        ok, err = c.msg(f'output {OUT} veil scheme dark')
        t.check(ok, '`veil scheme dark` again accepted', err)
        v = c.veil(OUT)
        t.check(v.get('file') == dark_png and transition_of(v) is None,
                'no transition, the dark picture stays', str(v))

    with t.case('veilctl scheme light fades back'):
        rc, err = c.veilctl('scheme', 'light')
        t.check(rc == 0, '`veilctl scheme light` exits 0', err)
        v = c.wait_veil(OUT, 'shown', file=light_png)
        tr = transition_of(v) or {}
        t.check(v.get('scheme') == 'light' and tr.get('kind') == 'fade',
                'the status says light, a fade runs', f'{v.get("scheme")} {tr}')
        judge_fade(c, DARK, LIGHT, 'to light')
        other_unchanged(c, 'light')
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), flat(LIGHT), 'light-again', **EXACT)
        rc, err = c.veilctl('scheme', 'dusk')
        t.check(rc == 1 and 'Unknown scheme' in err, '`veilctl scheme dusk` refused (exit 1)',
                f'{rc} {err}')

    with t.case('a setting given while dark shows its dark picture'):
        ok, err = c.msg('output * veil scheme dark')
        t.check(ok, '`veil scheme dark` accepted', err)
        c.wait_veil(OUT, 'shown', file=dark_png)
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(third_png)} fill dark '
                        f'{vt.quote(light_png)}')
        t.check(ok, '`veil third.png fill dark light.png` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=light_png)
        t.check(transition_of(v) is None, 'no transition without one', str(v))
        t.compare(c.settled_screenshot(OUT), flat(LIGHT), 'dark-of-new-setting', **EXACT)
        ok, err = c.msg('output * veil scheme light')
        t.check(ok, '`veil scheme light` accepted', err)
        c.wait_veil(OUT, 'shown', file=third_png)
        t.compare(c.settled_screenshot(OUT), flat(THIRD), 'light-of-new-setting', **EXACT)

    with t.case('bad words change nothing'):
        before = c.veil(OUT)
        for command, part in (
                (f'output {OUT} veil {vt.quote(light_png)} fill dark', 'dark needs a file'),
                (f'output {OUT} veil {vt.quote(light_png)} fill dark '
                 f'{vt.quote(os.path.join(media, "missing.png"))}', 'missing.png'),
                (f'output {OUT} veil {vt.quote(light_png)} fill dark {vt.quote(media)}',
                 'media'),
                (f'output {OUT} veil #102030 solid_color dark {vt.quote(dark_png)}',
                 'dark of a colour is a colour'),
                (f'output {OUT} veil {vt.quote(light_png)} fill dark #12', "Invalid colour '#12'"),
                (f'output {OUT} veil {vt.quote(media)} fill dark #102030',
                 'dark names one picture'),
                (f'output {OUT} veil scheme dusk', "Unknown scheme 'dusk'")):
            ok, err = c.msg(command)
            t.check(not ok and part in (err or ''), f'`{command[len(OUT) + 8:]}` refused',
                    err)
            v = c.veil(OUT)
            t.check(v.get('file') == before.get('file') and v.get('scheme') == 'light',
                    'the wallpaper and the scheme unchanged', str(v))
        t.compare(c.settled_screenshot(OUT), flat(THIRD), 'unchanged-after-bad-words', **EXACT)

    def hexed(color):
        return '#%02x%02x%02x' % color

    with t.case('a colour with a dark colour fades between them'):
        ok, err = c.msg(f'output {OUT} veil {hexed(LIGHT)} solid_color dark {hexed(DARK)} '
                        'transition fade 3000')
        t.check(ok, '`veil #light solid_color dark #dark transition fade 3000` accepted', err)
        c.wait_veil(OUT, 'shown', kind='color', color=hexed(LIGHT))
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the first fade ends',
                     timeout=10)
        t.compare(c.settled_screenshot(OUT), flat(LIGHT), 'colour-light', **EXACT)
        ok, err = c.msg('output * veil scheme dark')
        t.check(ok, '`veil scheme dark` accepted', err)
        c.wait_veil(OUT, 'shown', kind='color', color=hexed(DARK))
        judge_fade(c, LIGHT, DARK, 'colour to dark colour')
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), flat(DARK), 'colour-dark', **EXACT)
        ok, err = c.msg('output * veil scheme light')
        t.check(ok, '`veil scheme light` accepted', err)
        c.wait_veil(OUT, 'shown', kind='color', color=hexed(LIGHT))
        c.wait_until(lambda: transition_of(c.veil(OUT)) is None, 'the fade ends', timeout=10)
        t.compare(c.settled_screenshot(OUT), flat(LIGHT), 'colour-light-again', **EXACT)

    with t.case('a picture with a dark colour'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(third_png)} fill dark {hexed(DARK)}')
        t.check(ok, '`veil third.png fill dark #dark` accepted', err)
        c.wait_veil(OUT, 'shown', file=third_png)
        t.compare(c.settled_screenshot(OUT), flat(THIRD), 'picture-light', **EXACT)
        rc, err = c.veilctl('scheme', 'dark')
        t.check(rc == 0, '`veilctl scheme dark` exits 0', err)
        c.wait_veil(OUT, 'shown', kind='color', color=hexed(DARK))
        t.compare(c.settled_screenshot(OUT), flat(DARK), 'picture-dark-colour', **EXACT)
        other_unchanged(c, 'dark-colour')

t.finish()
