#!/usr/bin/env python3
"""
Wallpaper packages as KDE Plasma ships them, on three outputs of different shapes: Plasma 6's
own Coast (plasma-workspace-wallpapers, fetched by apt at test time: 1440x2960, 5120x2880 and
7680x2160 PNGs, and the same in images_dark/) shown with `output * veil <package> fill`. Each
output's status names the picture util/fit.c's rule picks for it, and grim's screenshot matches
ImageMagick's fill of that picture; `scheme dark` moves every output to its images_dark picture;
a mode change on one output chooses again. GNOME's XML: gnome-backgrounds' vnc.xml (a
gnome-background-properties list: light and dark PNGs, its options the mode) and desktop-base's
emerald gnome-background.xml (<size> choices of SVGs), their absolute paths rebased to where the
test extracted them. Then packages made here (small PNGs): a slideshow of
a directory of packages steps through the packages (and one of two of Plasma's own, BytheWater
and DarkestHour), and bad packages (metadata.json not JSON,
no pictures, only dark ones, a picture whose name lies about its size, a metadata.json of
300 KiB or nested 100000 deep, a truncated XML) are refused or shown with one sentence naming the
file, the wallpaper on screen unchanged. A package or XML is read on a worker: the compositor runs
under strace, and no package's metadata.json or XML named by a command is opened by its own
thread, nor a slideshow's (its scan reads them on a worker and the step shows what it read); a
command given after a package's (in the same IPC message, before the read is done) wins, the
package's late result dropped. A restored package whose metadata.json was made corrupt since
falls back to the restore's fallback, the status saying why.
"""
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from veiltest import anim, debfiles  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('package')
# Scaled photographs: pixman's bilinear shrink against ImageMagick's filter.
PHOTO = dict(tolerance=48, mean_tolerance=4, ignore_edges=4, max_bad_fraction=0.02)
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media

COAST = 'usr/share/wallpapers/Coast'
root = debfiles.extract('plasma-workspace-wallpapers', COAST)
coast = os.path.join(root, COAST)
images = os.path.join(coast, 'contents', 'images')
images_dark = os.path.join(coast, 'contents', 'images_dark')

# The three shapes: landscape, 32:9 ultrawide, portrait (1920x1080 turned by transform 90).
# What each is in buffer pixels, and the picture the rule gives it among Coast's three.
SHAPES = {
    'HEADLESS-1': ((1920, 1080), '5120x2880.png'),
    'HEADLESS-2': ((3840, 1080), '7680x2160.png'),
    'HEADLESS-3': ((1080, 1920), '1440x2960.png'),
}


def magick_fill(src, w, h):
    """ImageMagick's fill of src at w x h: scaled to cover, centred, cropped."""
    out = subprocess.run(['convert', src, '-resize', f'{w}x{h}^', '-gravity', 'center',
                          '-extent', f'{w}x{h}', '-depth', '8', 'rgb:-'],
                         capture_output=True, check=True).stdout
    return np.frombuffer(out, np.uint8).reshape(h, w, 3)


def flat_png(path, size, c):
    w, h = size
    return vt.make_png(path, np.broadcast_to(np.array(c, np.uint8), (h, w, 3)).copy())


def make_package(path, name, light, dark=(), metadata=None):
    """A package of flat pictures: light and dark are (file name, (w, h), colour)."""
    for sub, pictures in (('images', light), ('images_dark', dark)):
        os.makedirs(os.path.join(path, 'contents', sub), exist_ok=True)
        for file, size, c in pictures:
            flat_png(os.path.join(path, 'contents', sub, file), size, c)
    with open(os.path.join(path, 'metadata.json'), 'w') as f:
        f.write(metadata if metadata is not None else
                json.dumps({'KPlugin': {'Name': name, 'Id': name}}))
    return path


def check_output(c, out, dark, label):
    (w, h), pick = SHAPES[out]
    picture = os.path.join(images_dark if dark else images, pick)
    v = c.wait_veil(out, 'shown', file=picture)
    p = v.get('package') or {}
    t.check(p.get('name') == 'Coast' and p.get('picture') == picture,
            f'{label}: {out} ({w}x{h}) shows {pick} of Coast', json.dumps(p))
    t.check((p.get('why') or '').endswith(f'at least {w}x{h}'),
            f'{label}: {out}: the status says why', p.get('why'))
    shot = c.settled_screenshot(out)
    if t.check(shot.shape == (h, w, 3), f'{label}: {out}: grim gives {w}x{h}',
               str(shot.shape)):
        t.compare(shot, magick_fill(picture, w, h), f'{label}-{out}', **PHOTO)


# The compositor under strace: which thread opens each file.
plain = t.compositor_path
trace = t.trace_opens()

with t.compositor(outputs=3) as c:
    with t.case('setup'):
        for cmd in ('output HEADLESS-1 resolution 1920x1080', 'output HEADLESS-1 pos 0 0',
                    'output HEADLESS-2 resolution 3840x1080', 'output HEADLESS-2 pos 1920 0',
                    'output HEADLESS-3 resolution 1920x1080', 'output HEADLESS-3 transform 90',
                    'output HEADLESS-3 pos 5760 0'):
            ok, err = c.msg(cmd)
            t.check(ok, cmd, err)
        c.wait_mode('HEADLESS-1', 1920, 1080)
        c.wait_mode('HEADLESS-2', 3840, 1080)
        c.wait_mode('HEADLESS-3', 1920, 1080, transform='90')

    with t.case('Coast on three shapes'):
        ok, err = c.msg(f'output * veil {vt.quote(coast)} fill')
        t.check(ok, '`output * veil <Coast> fill` accepted (one wallpaper, not a slideshow)',
                err)
        for out in SHAPES:
            check_output(c, out, False, 'light')
            t.check(c.veil(out).get('slideshow') is None, f'{out}: no slideshow')

    with t.case('scheme dark'):
        ok, err = c.msg('output * veil scheme dark')
        t.check(ok, 'scheme dark', err)
        for out in SHAPES:
            check_output(c, out, True, 'dark')
        ok, err = c.msg('output * veil scheme light')
        t.check(ok, 'scheme light', err)
        for out in SHAPES:
            c.wait_veil(out, 'shown', file=os.path.join(images, SHAPES[out][1]))

    with t.case('a mode change chooses again'):
        ok, err = c.msg('output HEADLESS-2 resolution 1920x1080')
        t.check(ok, 'HEADLESS-2 to 1920x1080', err)
        c.wait_mode('HEADLESS-2', 1920, 1080)
        SHAPES['HEADLESS-2'] = ((1920, 1080), '5120x2880.png')
        check_output(c, 'HEADLESS-2', False, 'mode-change')
        # The other outputs keep theirs.
        for out in ('HEADLESS-1', 'HEADLESS-3'):
            c.wait_veil(out, 'shown', file=os.path.join(images, SHAPES[out][1]))
        ok, err = c.msg('output HEADLESS-3 transform normal')
        t.check(ok, 'HEADLESS-3 transform normal', err)
        c.wait_mode('HEADLESS-3', 1920, 1080, transform='normal')
        SHAPES['HEADLESS-3'] = ((1920, 1080), '5120x2880.png')
        check_output(c, 'HEADLESS-3', False, 'transform-change')

    def rebased(package, member, name):
        """A copy of the package's XML whose absolute paths name where the test extracted it."""
        src = debfiles.path(package, member)
        base = debfiles.extract(package, member)
        with open(src) as f:
            text = f.read().replace('>/usr/share/', f'>{base}/usr/share/')
        path = os.path.join(media, name)
        with open(path, 'w') as f:
            f.write(text)
        return path, base

    with t.case('gnome-background-properties'):
        # gnome-backgrounds' vnc.xml: a light and a dark PNG, <options>zoom</options>.
        gb = 'usr/share/backgrounds/gnome'
        debfiles.extract('gnome-backgrounds', f'{gb}/vnc-l.png', f'{gb}/vnc-d.png')
        vnc, base = rebased('gnome-backgrounds',
                            'usr/share/gnome-background-properties/vnc.xml', 'vnc.xml')
        light = os.path.join(base, gb, 'vnc-l.png')
        dark = os.path.join(base, gb, 'vnc-d.png')
        ok, err = c.msg(f'output * veil {vt.quote(vnc)}')
        t.check(ok, '`output * veil vnc.xml` (a wallpaper list with DOCTYPE) accepted', err)
        v = c.wait_veil('HEADLESS-1', 'shown', file=light)
        t.check(v.get('mode') == 'fill' and v.get('color') == '#77767b',
                "its <options> zoom is fill, its <pcolor> the colour",
                f"{v.get('mode')} {v.get('color')}")
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, magick_fill(light, 1920, 1080), 'vnc-light', **PHOTO)
        ok, err = c.msg('output * veil scheme dark')
        t.check(ok, 'scheme dark', err)
        c.wait_veil('HEADLESS-1', 'shown', file=dark)
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, magick_fill(dark, 1920, 1080), 'vnc-dark', **PHOTO)
        ok, err = c.msg('output * veil scheme light')
        t.check(ok, 'scheme light', err)
        c.wait_veil('HEADLESS-1', 'shown', file=light)
        # The mode given in the command wins over the list's.
        ok, err = c.msg(f'output * veil {vt.quote(vnc)} center #102030')
        c.wait_veil('HEADLESS-1', 'shown', file=light, mode='center', color='#102030')

    with t.case('desktop-base <size> choices'):
        # emerald's gnome-background.xml: one <static>, eleven <size>s (SVGs), no <starttime>.
        # SVG decodes through GStreamer's rsvgdec for now (librsvg's own decoder comes): one
        # picture, shared by the three outputs (each 1920x1080 now).
        theme = 'usr/share/desktop-base/emerald-theme/wallpaper'
        debfiles.extract('desktop-base', theme)
        xml, base = rebased('desktop-base', f'{theme}/gnome-background.xml', 'emerald.xml')
        svg = os.path.join(base, theme, 'contents', 'images', '1920x1080.svg')
        ok, err = c.msg(f'output * veil {vt.quote(xml)} fill')
        t.check(ok, 'desktop-base\'s gnome-background.xml accepted', err)
        for out in SHAPES:
            v = c.wait_until(lambda: (lambda s: s.get('state') == 'shown' and
                                          s.get('file') == svg and s)(c.veil(out)),
                             f'{out} shows 1920x1080.svg', timeout=120)
            p = v.get('package') or {}
            t.check(p.get('picture') == svg and p.get('why') == '16:9, at least 1920x1080',
                    f'{out}: the <size> that fits 1920x1080, and why', json.dumps(p))
        ref = os.path.join(media, 'emerald-ref.png')
        subprocess.run(['rsvg-convert', '-w', '1920', '-h', '1080', '-o', ref, svg], check=True)
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, magick_fill(ref, 1920, 1080), 'emerald-1920x1080', **PHOTO)

    # Small packages made here, on the three outputs as they are now (1920x1080 each).
    red, green, blue, grey = (200, 30, 30), (30, 200, 30), (30, 30, 200), (90, 90, 90)
    flat = os.path.join(media, 'flat.png')
    flat_png(flat, (640, 360), grey)

    def shows_flat(label):
        for out in SHAPES:
            v = c.veil(out)
            t.check(v.get('file') == flat, f'{label}: {out} still shows what it showed',
                    str(v.get('file')))
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, np.broadcast_to(np.array(grey, np.uint8), shot.shape),
                  f'{label}-unchanged', **EXACT)

    def refused_all(words, path, parts, label):
        """`output * veil WORDS` fails naming path: in the reply, or in every output's status."""
        ok, err = c.msg(f'output * veil {words}')
        for out in SHAPES:
            said = err or ''
            if ok:
                said = c.check_until(lambda: (lambda e: path in e and e)(
                    c.veil(out).get('error') or ''), f'{label}: {out}: the error names '
                    f'{os.path.basename(path)}', timeout=20) or ''
            else:
                t.check(path in said, f'{label}: refused, naming the file', said)
            for part in parts:
                t.check(part in said, f'{label}: {out}: the error says "{part}"', said)

    with t.case('bad packages'):
        ok, err = c.msg(f'output * veil {vt.quote(flat)} fill')
        t.check(ok, 'a flat picture first', err)
        for out in SHAPES:
            c.wait_veil(out, 'shown', file=flat)

        notjson = make_package(os.path.join(media, 'notjson'), 'x',
                               [('1920x1080.png', (64, 36), red)], metadata='{"KPlugin": ')
        refused_all(f'{vt.quote(notjson)} fill',
                       os.path.join(notjson, 'metadata.json'), ['is not JSON'],
                       'metadata.json not JSON')
        shows_flat('not JSON')

        empty = make_package(os.path.join(media, 'empty'), 'Empty', [])
        refused_all(f'{vt.quote(empty)} fill', empty, ['has no picture'],
                       'no pictures')
        darkonly = make_package(os.path.join(media, 'darkonly'), 'DarkOnly', [],
                                dark=[('1920x1080.png', (64, 36), blue)])
        refused_all(f'{vt.quote(darkonly)} fill', darkonly, ['only dark ones'],
                       'only dark pictures')
        shows_flat('no pictures')

        huge = make_package(os.path.join(media, 'huge'), 'Huge',
                            [('1920x1080.png', (64, 36), red)],
                            metadata='{"KPlugin": {"Name": "' + 'x' * (300 * 1024) + '"}}')
        refused_all(f'{vt.quote(huge)} fill', os.path.join(huge, 'metadata.json'),
                       ['more than the 262144'], 'metadata.json of 300 KiB')
        deep = make_package(os.path.join(media, 'deep'), 'Deep',
                            [('1920x1080.png', (64, 36), red)],
                            metadata='[' * 100000 + ']' * 100000)
        refused_all(f'{vt.quote(deep)} fill', os.path.join(deep, 'metadata.json'),
                       ['is not JSON'], 'metadata.json nested 100000 deep')
        truncated = os.path.join(media, 'truncated.xml')
        with open(truncated, 'w') as f:
            f.write('<?xml version="1.0"?>\n<wallpapers>\n <wallpaper>\n  <filename>/usr/sh')
        refused_all(f'{vt.quote(truncated)} fill', truncated, [], 'a truncated XML')
        shows_flat('bad metadata or XML')

        # A picture named 1920x1080.png that is 640x480: chosen by its name, as Plasma does,
        # shown at its own size, and the status says so in one sentence naming the file.
        liar = make_package(os.path.join(media, 'liar'), 'Liar',
                            [('1920x1080.png', (640, 480), green),
                             ('1080x1920.png', (64, 128), blue)])
        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(liar)} fill')
        t.check(ok, 'a package whose picture is not the size its name says', err)
        lied = os.path.join(liar, 'contents', 'images', '1920x1080.png')
        v = c.wait_veil('HEADLESS-1', 'shown', file=lied)
        note = (v.get('package') or {}).get('note') or ''
        t.check(f"'{lied}' is 640x480, not the 1920x1080 its name says" in note,
                'the status says the picture is not the size its name says', note)
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, np.broadcast_to(np.array(green, np.uint8), shot.shape),
                  'liar-shown', **EXACT)

        # A picture that is no picture: passed over for the next best, and said.
        broken = make_package(os.path.join(media, 'broken'), 'Broken',
                              [('1920x1080.png', (64, 36), red),
                               ('2560x1440.png', (64, 36), blue)])
        bad = os.path.join(broken, 'contents', 'images', '1920x1080.png')
        with open(bad, 'wb') as f:
            f.write(b'this is not a picture\n' * 10)
        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(broken)} fill')
        t.check(ok, 'a package with a file that is not a picture', err)
        good = os.path.join(broken, 'contents', 'images', '2560x1440.png')
        v = c.wait_veil('HEADLESS-1', 'shown', file=good)
        t.check(bad in (v.get('error') or ''), 'the error names the broken picture',
                v.get('error'))

        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(liar)} fill dark #000000')
        t.check(not ok and 'wallpaper package' in (err or ''), '`dark` refused for a package',
                err)

    # A package with a 16:9, a 64:9 (four bands) and a portrait picture, each named by its size.
    bands = [(200, 40, 40), (40, 200, 40), (40, 40, 200), (200, 200, 40)]
    shapes = os.path.join(media, 'shapes')
    make_package(shapes, 'Shapes', [('1920x1080.png', (64, 36), red),
                                    ('1080x1920.png', (36, 64), blue)])
    vt.make_png(os.path.join(shapes, 'contents', 'images', '7680x1080.png'),
                np.repeat(np.array(bands, np.uint8), 192, axis=0)[None].repeat(108, axis=0))
    shapes_16x9 = os.path.join(shapes, 'contents', 'images', '1920x1080.png')
    shapes_64x9 = os.path.join(shapes, 'contents', 'images', '7680x1080.png')

    with t.case('a package for a workspace'):
        # Every output is 1920x1080 now; HEADLESS-1 is on workspace 1.
        ok, err = c.msg(f'output * veil workspace 1 {vt.quote(shapes)} fill')
        t.check(ok, '`output * veil workspace 1 <package> fill` accepted', err)
        v = c.wait_veil('HEADLESS-1', 'shown', file=shapes_16x9)
        t.check((v.get('package') or {}).get('name') == 'Shapes' and
                v.get('setting_workspace') == '1',
                'workspace 1 shows the package\'s 16:9 picture', json.dumps(v))
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, np.broadcast_to(np.array(red, np.uint8), shot.shape), 'workspace-1',
                  **EXACT)
        ok, err = c.msg('output * veil workspace 1 off')
        t.check(ok, 'workspace 1 off', err)
        c.wait_veil('HEADLESS-1', 'shown', file=good)

    with t.case('a package across the outputs (span)'):
        # The canvas: HEADLESS-1 at 0, HEADLESS-2 at 1920, HEADLESS-3 at 5760, each 1920x1080:
        # 7680x1080, whose picture is the 64:9 one, one frame across the three.
        ok, err = c.msg(f'output * veil off; output * veil {vt.quote(shapes)} fill span')
        t.check(ok, '`output * veil <package> fill span` accepted', err)
        for out, band in (('HEADLESS-1', 0), ('HEADLESS-2', 1), ('HEADLESS-3', 3)):
            v = c.wait_veil(out, 'shown', file=shapes_64x9)
            span = v.get('span') or {}
            t.check(span.get('width') == 7680 and span.get('height') == 1080,
                    f'{out}: the canvas is 7680x1080', json.dumps(span))
            t.check(((v.get('package') or {}).get('why') or '').endswith('7680x1080'),
                    f'{out}: chosen for the canvas', json.dumps(v.get('package')))
            shot = c.settled_screenshot(out)
            t.compare(shot, np.broadcast_to(np.array(bands[band], np.uint8), shot.shape),
                      f'span-{out}', tolerance=0, ignore_border=12)
        ok, err = c.msg(f'output * veil {vt.quote(flat)} fill')
        t.check(ok, 'flat.png again', err)

    with t.case('the last command wins over a package being read'):
        # One IPC message: the package's read cannot be done before the next command runs.
        for first in (liar, vnc):
            ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(first)} fill; '
                            f'output HEADLESS-1 veil {vt.quote(flat)} fill')
            t.check(ok, f'{os.path.basename(first)} then flat.png, in one message', err)
            c.wait_veil('HEADLESS-1', 'shown', file=flat)
            time.sleep(1)
            v = c.veil('HEADLESS-1')
            t.check(v.get('file') == flat and v.get('package') is None and
                    not v.get('error'),
                    f'{os.path.basename(first)}: its late result dropped, flat.png stays',
                    json.dumps(v))

    with t.case('a slideshow of packages'):
        show = os.path.join(media, 'show')
        make_package(os.path.join(show, 'a-Red'), 'Red',
                     [('1920x1080.png', (96, 54), red), ('1080x1920.png', (54, 96), blue)])
        make_package(os.path.join(show, 'b-Green'), 'Green',
                     [('1920x1080.png', (96, 54), green)])
        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(show)} fill every 1h order name')
        t.check(ok, 'a slideshow of a directory of packages', err)
        first = os.path.join(show, 'a-Red', 'contents', 'images', '1920x1080.png')
        v = c.wait_veil('HEADLESS-1', 'shown', file=first)
        t.check((v.get('package') or {}).get('name') == 'Red', 'the first package: Red',
                json.dumps(v.get('package')))
        t.check((v.get('slideshow') or {}).get('directory') == show, 'it is a slideshow',
                json.dumps(v.get('slideshow')))
        ok, err = c.msg('output HEADLESS-1 veil next')
        t.check(ok, 'next', err)
        second = os.path.join(show, 'b-Green', 'contents', 'images', '1920x1080.png')
        v = c.wait_veil('HEADLESS-1', 'shown', file=second)
        t.check((v.get('package') or {}).get('name') == 'Green', 'the next package: Green',
                json.dumps(v.get('package')))
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, np.broadcast_to(np.array(green, np.uint8), shot.shape),
                  'slideshow-green', **EXACT)

    with t.case('a slideshow\'s package fixed in place'):
        # A package whose metadata.json is not JSON is passed over; written again in place
        # (its directory's mtime unchanged), the next scan reads it again and the show gets it.
        fixed = os.path.join(media, 'fixed-show')
        make_package(os.path.join(fixed, 'a-Red'), 'Red', [('1920x1080.png', (96, 54), red)])
        broken = make_package(os.path.join(fixed, 'b-Blue'), 'Blue',
                              [('1920x1080.png', (96, 54), blue)], metadata='{"KPlugin": ')
        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(fixed)} fill every 1h order name')
        t.check(ok, 'a slideshow of a good package and a broken one', err)
        red_pic = os.path.join(fixed, 'a-Red', 'contents', 'images', '1920x1080.png')
        blue_pic = os.path.join(broken, 'contents', 'images', '1920x1080.png')
        c.wait_veil('HEADLESS-1', 'shown', file=red_pic)
        ok, err = c.msg('output HEADLESS-1 veil next')
        t.check(ok, 'next', err)
        time.sleep(1)
        t.check(c.veil('HEADLESS-1').get('file') == red_pic,
                'b-Blue is passed over: Red again', str(c.veil('HEADLESS-1').get('file')))
        dir_mtime = os.stat(broken).st_mtime_ns
        time.sleep(0.05)
        with open(os.path.join(broken, 'metadata.json'), 'w') as f:
            f.write(json.dumps({'KPlugin': {'Name': 'Blue', 'Id': 'Blue'}}))
        t.check(os.stat(broken).st_mtime_ns == dir_mtime,
                'the fix leaves b-Blue\'s directory\'s mtime as it was')
        seen = None
        for _ in range(4):
            ok, err = c.msg('output HEADLESS-1 veil next')
            t.check(ok, 'next', err)
            time.sleep(1)
            seen = c.veil('HEADLESS-1').get('file')
            if seen == blue_pic:
                break
        t.check(seen == blue_pic, 'the fixed package is shown within four steps', str(seen))
        v = c.wait_veil('HEADLESS-1', 'shown', file=blue_pic)
        t.check((v.get('package') or {}).get('name') == 'Blue', 'named Blue, as its new '
                'metadata.json says', json.dumps(v.get('package')))

    with t.case('a slideshow of Plasma\'s packages'):
        # Two of plasma-workspace-wallpapers' packages (thirteen JPEGs each, 640x480 to
        # 2560x1600), copied into one directory: the scan reads each on a worker, the step
        # shows what it read.
        wp = 'usr/share/wallpapers'
        plasma = os.path.join(media, 'plasma-show')
        src = debfiles.extract('plasma-workspace-wallpapers', f'{wp}/BytheWater',
                               f'{wp}/DarkestHour')
        for name in ('BytheWater', 'DarkestHour'):
            shutil.copytree(os.path.join(src, wp, name), os.path.join(plasma, name))
        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(plasma)} fill every 1h order name')
        t.check(ok, 'a slideshow of BytheWater and DarkestHour', err)
        for i, name in enumerate(('BytheWater', 'DarkestHour')):
            if i > 0:
                ok, err = c.msg('output HEADLESS-1 veil next')
                t.check(ok, 'next', err)
            with open(os.path.join(plasma, name, 'metadata.json')) as f:
                title = json.load(f)['KPlugin']['Name']
            picture = os.path.join(plasma, name, 'contents', 'images', '1920x1080.jpg')
            v = c.wait_veil('HEADLESS-1', 'shown', file=picture)
            p = v.get('package') or {}
            t.check(p.get('name') == title and p.get('why') == '16:9, at least 1920x1080',
                    f'{name}: its 1920x1080.jpg, named "{title}" as its metadata.json says',
                    json.dumps(p))
            shot = c.settled_screenshot('HEADLESS-1')
            t.compare(shot, magick_fill(picture, 1920, 1080), f'plasma-show-{name}', **PHOTO)

    with t.case('pause and fps given while a package is read'):
        # A package whose picture is an APNG (four 100 ms frames, red and green, for ever). In
        # one IPC message, so that both come while its read is on the worker.
        frames = [{'rgba': anim.solid(64, 36, red if i % 2 == 0 else green), 'delay_ms': 100}
                  for i in range(4)]
        moving = make_package(os.path.join(media, 'moving'), 'Moving', [])
        apng = os.path.join(moving, 'contents', 'images', '1920x1080.png')
        with open(apng, 'wb') as f:
            f.write(anim.apng(64, 36, frames))
        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(moving)} fill; '
                        'output HEADLESS-1 veil pause; output HEADLESS-1 veil fps 4')
        t.check(ok, 'a package of an APNG, then pause and fps 4, in one message', err)
        v = c.wait_veil('HEADLESS-1', 'paused', file=apng)
        t.check(v.get('paused') == 'command', 'the package\'s animation starts paused',
                json.dumps(v))
        t.check(v.get('fps') == 4, 'the package\'s animation is capped at 4 fps',
                json.dumps(v))
        n = v.get('frames')
        time.sleep(1)
        t.check(c.veil('HEADLESS-1').get('frames') == n, 'no frame for a second while paused',
                f"{n} then {c.veil('HEADLESS-1').get('frames')}")
        ok, err = c.msg('output HEADLESS-1 veil resume; output HEADLESS-1 veil fps off')
        t.check(ok, 'resume, fps off', err)
        c.wait_until(lambda: (c.veil('HEADLESS-1').get('frames') or 0) > (n or 0) + 2,
                     'the animation plays on', timeout=20)

    t.check(c.responsive(), 'the compositor is alive')
    # Through IPC: strace, which the signal would reach, waits for its tracees to end.
    c.stop(method='exit')
t.compositor_path = plain

# Restored after a restart: the state file names the package; each output chooses again.
state_home = t.path('state-home')
with t.compositor(outputs=1, env={'XDG_STATE_HOME': state_home}, name='kept') as c:
    with t.case('the state file keeps the package'):
        ok, err = c.msg('output HEADLESS-1 resolution 1920x1080')
        t.check(ok, 'HEADLESS-1 1920x1080', err)
        c.wait_mode('HEADLESS-1', 1920, 1080)
        ok, err = c.msg(f'output HEADLESS-1 veil {vt.quote(shapes)} fill')
        t.check(ok, 'a package on HEADLESS-1', err)
        c.wait_veil('HEADLESS-1', 'shown', file=shapes_16x9)
restore = t.path('restore.conf')
with open(restore, 'w') as f:
    f.write('output HEADLESS-1 resolution 1080x1920\n'
            f'output HEADLESS-1 veil restore {vt.quote(flat)} fill\n')
with t.compositor(outputs=1, env={'XDG_STATE_HOME': state_home}, name='restored',
                  config=restore) as c:
    with t.case('restored: the package, its picture chosen for the output now'):
        c.wait_mode('HEADLESS-1', 1080, 1920)
        portrait = os.path.join(shapes, 'contents', 'images', '1080x1920.png')
        v = c.wait_veil('HEADLESS-1', 'shown', file=portrait)
        t.check((v.get('package') or {}).get('name') == 'Shapes',
                'the restored package\'s portrait picture on a portrait output', json.dumps(v))
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, np.broadcast_to(np.array(blue, np.uint8), shot.shape), 'restored',
                  **EXACT)
        t.check(c.veil('HEADLESS-1').get('restored') is True,
                'the status says the package was restored', json.dumps(c.veil('HEADLESS-1')))

# The package's metadata.json made corrupt in place (its directory's size and time unchanged,
# so the state file's entry still holds): the read on the worker fails, the restore's fallback
# is shown, and the status says why in one sentence naming the file.
metadata = os.path.join(shapes, 'metadata.json')
with open(metadata, 'w') as f:
    f.write('{"KPlugin": {"Name": ')
with t.compositor(outputs=1, env={'XDG_STATE_HOME': state_home}, name='fallback',
                  config=restore) as c:
    with t.case('restored: a package that cannot be read falls back'):
        c.wait_mode('HEADLESS-1', 1080, 1920)
        v = c.wait_veil('HEADLESS-1', 'shown', file=flat)
        reason = v.get('restore_reason') or ''
        t.check(v.get('restored') is False and metadata in reason and 'is not JSON' in reason,
                'the fallback is shown, and the status names the corrupt metadata.json',
                json.dumps(v))
        t.check(v.get('package') is None and not v.get('error'),
                'no package, no error left: the fallback is what is shown', json.dumps(v))
        shot = c.settled_screenshot('HEADLESS-1')
        t.compare(shot, np.broadcast_to(np.array(grey, np.uint8), shot.shape), 'fallback',
                  **EXACT)
        t.check(c.responsive(), 'the compositor is alive')

with t.case('packages and XML are read off the compositor\'s thread'):
    with open(trace, errors='replace') as f:
        lines = f.read().splitlines()
    main = lines[0].split()[0] if lines else None
    # Commands' packages and XML, and the slideshows' (read by their scans).
    read = [line for line in lines if 'openat(' in line and ('metadata.json' in line or
            '.xml"' in line) and (media in line or coast in line)]
    for package in (coast, os.path.join(media, 'plasma-show', 'DarkestHour'),
                    os.path.join(media, 'show', 'b-Green')):
        t.check(any(os.path.join(package, 'metadata.json') in line for line in read),
                f'the trace has {os.path.basename(package)}\'s metadata.json opened',
                f'{len(lines)} lines')
    on_main = [line for line in read if line.split()[0] == main]
    t.check(not on_main, 'none opened by the compositor\'s own thread', '\n'.join(on_main[:5]))
    # The slideshow of a-Red and b-Green scanned three times (the start and two steps): an
    # unchanged package is kept from the last scan, not read again.
    green_meta = os.path.join(media, 'show', 'b-Green', 'metadata.json')
    opened = [line for line in read if f'"{green_meta}"' in line and '= -1' not in line]
    t.check(len(opened) == 1, 'b-Green\'s metadata.json read once across the scans',
            f'{len(opened)} times')

t.finish()
