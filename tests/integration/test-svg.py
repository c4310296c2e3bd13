#!/usr/bin/env python3
"""
SVG wallpapers drawn by librsvg in veil-decoder (decode/svg.c) at the size the output needs,
through the real command path: veil-tinywl (run under strace, which records every file the
compositor and its decoders open), swaymsg, grim. The expected pictures are rsvg-convert's at
the cover size, flattened on black and cropped to the output by ImageMagick.

Files others made: GNOME's blobs-l.svg (gnome-backgrounds, a 4096x4096 document) and Debian's
emerald theme (desktop-base, a viewBox of 1920x1080 and no size), fetched by apt at test time
(veiltest/debfiles.py), and quadrants written by Python's ElementTree (its root <ns0:svg>). On
a 1920x1080 output and on a 3840x2160 output at scale 2 (the scaled output gets its physical
pixels: the 4096x4096 document is drawn at 3840x3840, not shrunk from 4096).

Hostile documents: another file referred to (relative, absolute, file: URL), billion laughs,
a 1000000x1000000 canvas in center mode, 100000 nested groups, and a document that renders for
minutes (the decoder's time limit, set with --decoder-timeout): each refused with a sentence
naming the file, the wallpaper on screen unchanged, the compositor answering. strace's record
shows that no process opened the file referred to.

With VEIL_DECODER=inprocess (`meson test --setup inprocess`) the same, in the compositor's
process, but for the document that renders for minutes: nothing bounds the time librsvg takes
there (only veil-decoder has a time limit), so that case is left out.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402
from veiltest import debfiles  # noqa: E402

t = vt.Test('svg')
OUT = 'HEADLESS-1'
W, H = 1920, 1080
MIN_PSNR = 30.0
media = t.media
TIMEOUT_MS = 10000
# Decoded in veil-decoder (the default) or, for CI's sanitizer run, in the compositor's process.
HELPER = os.environ.get('VEIL_DECODER') != 'inprocess'


def write(name, text):
    path = os.path.join(media, name)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def reference(svg, cover_w, cover_h, w, h, label):
    """rsvg-convert's drawing at cover_w x cover_h on black, cropped to w x h in its middle."""
    png = t.path(f'ref-{label}.png')
    subprocess.run(['rsvg-convert', '-w', str(cover_w), '-h', str(cover_h), '-o', png, svg],
                   check=True)
    raw = subprocess.run(['convert', png, '-background', 'black', '-flatten', '-gravity',
                          'center', '-crop', f'{w}x{h}+0+0', '+repage', '-depth', '8',
                          'rgb:-'], check=True, capture_output=True).stdout
    if len(raw) != w * h * 3:
        raise vt.Failure(f'ImageMagick gave {len(raw)} bytes for {w}x{h}')
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float('inf') if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def show(c, svg, mode, size, out=OUT):
    """Shows svg; checks that librsvg drew it at size; returns its status and a screenshot."""
    ok, err = c.msg(f'output {out} veil {vt.quote(svg)} {mode}')
    if not t.check(ok, f'`veil {os.path.basename(svg)} {mode}` accepted', err):
        return None, None
    v = c.wait_veil(out, 'shown', file=svg)
    src = v.get('source') or {}
    t.check(src.get('decoder') == 'librsvg', 'drawn by librsvg', str(src))
    t.check(v.get('error') is None, 'no error', str(v.get('error')))
    t.check(v.get('source_size') == {'width': size[0], 'height': size[1]},
            f'drawn at {size[0]}x{size[1]}', str(v.get('source_size')))
    return v, c.settled_screenshot(out)


def show_and_compare(c, svg, mode, cover, size, original, label, out=OUT, shot_size=(W, H)):
    """Shows svg, checks the status's sizes and the screenshot against rsvg-convert's."""
    v, shot = show(c, svg, mode, size, out)
    if v is None:
        return None
    src = v.get('source') or {}
    t.check(src.get('original_size') == {'width': original[0], 'height': original[1]},
            f'its own size {original[0]}x{original[1]}', str(src.get('original_size')))
    vt.write_png(t.path(f'shot-{label}.png'), shot)
    if not t.check(shot.shape == (shot_size[1], shot_size[0], 3),
                   f'screenshot {shot_size[0]}x{shot_size[1]}', str(shot.shape)):
        return shot
    expected = reference(svg, cover[0], cover[1], shot_size[0], shot_size[1], label)
    value = psnr(shot, expected)
    diff = np.abs(shot.astype(int) - expected.astype(int)).max()
    vt._say(f'# {label}: PSNR {value:.1f} dB against rsvg-convert, largest difference {diff}')
    if not t.check(value >= MIN_PSNR, f'PSNR {value:.1f} dB >= {MIN_PSNR}'):
        t.compare(shot, expected, label, tolerance=255)  # keeps the evidence
    return shot


quad = write('quad-4096.svg', (
    '<svg xmlns="http://www.w3.org/2000/svg" width="4096" height="4096" viewBox="0 0 400 400">'
    '<rect width="200" height="200" fill="#ff0000"/>'
    '<rect x="200" width="200" height="200" fill="#00ff00"/>'
    '<rect y="200" width="200" height="200" fill="#0000ff"/>'
    '<rect x="200" y="200" width="200" height="200" fill="#ffffff"/>'
    '<circle cx="200" cy="200" r="50" fill="#000000"/></svg>\n'))
# The quadrants as Python's ElementTree writes SVG: every element in the prefix ns0
# (<ns0:svg xmlns:ns0="http://www.w3.org/2000/svg">), which librsvg reads by its namespace.
SVG_NS = '{http://www.w3.org/2000/svg}'
root = ET.Element(SVG_NS + 'svg', width='1920', height='1080', viewBox='0 0 400 300')
for x, y, fill in ((0, 0, '#ff0000'), (200, 0, '#00ff00'), (0, 150, '#0000ff'),
                   (200, 150, '#ffffff')):
    ET.SubElement(root, SVG_NS + 'rect', x=str(x), y=str(y), width='200', height='150',
                  fill=fill)
ET.SubElement(root, SVG_NS + 'circle', cx='200', cy='150', r='37', fill='#000000')
prefixed = write('prefixed.svg', ET.tostring(root, encoding='unicode') + '\n')
# Text needs fonts: fontconfig's configuration and caches are read in the sandbox.
text = write('text.svg', (
    '<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080">'
    '<rect width="1920" height="1080" fill="#ffffff"/>'
    '<text x="100" y="600" font-family="sans-serif" font-size="300" fill="#000000">'
    'veil SVG</text></svg>\n'))

blobs = debfiles.path('gnome-backgrounds', 'usr/share/backgrounds/gnome/blobs-l.svg')
emerald = debfiles.path('desktop-base', 'usr/share/desktop-base/emerald-theme/wallpaper/'
                        'contents/images/1920x1080.svg')

# Hostile documents.
red = os.path.join(media, 'red.png')
subprocess.run(['convert', '-size', '64x64', 'xc:#ff0000', red], check=True)
os.chmod(red, 0o644)
refs = []
for i, href in enumerate(['red.png', red, 'file://' + red]):
    refs.append(write(f'ref-{i}.svg', (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="64" height="64"><rect width="64" height="64" fill="#00ff00"/>'
        f'<image width="64" height="64" href="{href}" '
        f'xlink:href="{href}"/></svg>\n')))
entities = ['<!ENTITY lol0 "lol">']
for i in range(1, 10):
    entities.append(f'<!ENTITY lol{i} "' + f'&lol{i - 1};' * 10 + '">')
laughs = write('laughs.svg', '<?xml version="1.0"?>\n<!DOCTYPE svg [\n' + '\n'.join(entities) +
               '\n]>\n<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
               '<text y="50">&lol9;</text></svg>\n')
huge = write('huge.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="1000000" '
             'height="1000000"><rect width="1000000" height="1000000" fill="#0000ff"/></svg>\n')
nested = write('nested.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="100" '
               'height="100">' + '<g>' * 100000 + '</g>' * 100000 + '</svg>\n')
# 2000 full-canvas blurs of a large deviation: minutes of work for librsvg.
slow = write('slow.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="4096" height="4096">'
             '<filter id="b"><feGaussianBlur stdDeviation="300"/></filter>' +
             ''.join(f'<rect width="4096" height="4096" fill="#{i % 256:02x}8040" '
                     f'filter="url(#b)"/>' for i in range(2000)) + '</svg>\n')

# The compositor under strace: every file it and its decoders open or try to open.
trace = t.trace_opens()

with t.compositor(outputs=2, args=['--decoder-timeout', str(TIMEOUT_MS)]) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    with t.case('4096x4096 quadrants in fill on 1920x1080: drawn at 1920x1920'):
        show_and_compare(c, quad, 'fill', (1920, 1920), (1920, 1920), (4096, 4096), 'quad')

    with t.case('GNOME blobs-l.svg in fill on 1920x1080'):
        show_and_compare(c, blobs, 'fill', (1920, 1920), (1920, 1920), (4096, 4096), 'blobs')

    with t.case('desktop-base emerald 1920x1080.svg (a viewBox, no size) in fill'):
        show_and_compare(c, emerald, 'fill', (1920, 1080), (1920, 1080), (1920, 1080),
                         'emerald')

    with t.case('ElementTree\'s <ns0:svg> in fill'):
        with open(prefixed) as f:
            t.check(f.read().startswith('<ns0:svg'), 'ElementTree wrote the root as <ns0:svg>')
        show_and_compare(c, prefixed, 'fill', (1920, 1080), (1920, 1080), (1920, 1080),
                         'prefixed')

    with t.case('text in an SVG: drawn with the system\'s fonts in the sandbox'):
        shot = show_and_compare(c, text, 'fill', (1920, 1080), (1920, 1080), (1920, 1080),
                                'text')
        if shot is not None:
            dark = int((shot.max(axis=2) < 64).sum())
            t.check(dark > 20000, 'the words are drawn (dark pixels on white)', str(dark))

    with t.case('center: a 400x400 document at its own size'):
        small = write('quad-400.svg', open(quad).read().replace('"4096"', '"400"'))
        v, shot = show(c, small, 'center', (400, 400))
        if shot is not None:
            middle = shot[(H - 400) // 2:(H + 400) // 2, (W - 400) // 2:(W + 400) // 2]
            value = psnr(middle, reference(small, 400, 400, 400, 400, 'center'))
            t.check(value >= MIN_PSNR, f'its middle: PSNR {value:.1f} dB >= {MIN_PSNR}')

    with t.case('the scaled output: 3840x2160 at scale 2 gets 3840x3840 pixels'):
        out2 = 'HEADLESS-2'
        for words in ['resolution 3840x2160', 'scale 2']:
            ok, err = c.msg(f'output {out2} {words}')
            t.check(ok, words, err)
        c.wait_mode(out2, 3840, 2160, scale=2)
        show_and_compare(c, blobs, 'fill', (3840, 3840), (3840, 3840), (4096, 4096),
                         'blobs-4k', out=out2, shot_size=(3840, 2160))

    with t.case('hostile SVGs'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(quad)} fill')
        t.check(ok, 'the quadrants again', err)
        c.wait_veil(OUT, 'shown', file=quad)
        before = c.settled_screenshot(OUT)
        hostile = [
            (laughs, 'fill', ['laughs.svg', 'amplification'], 'billion laughs'),
            (huge, 'center', ['huge.svg', '1000000x1000000'],
             '1000000x1000000 canvas in center mode'),
            (nested, 'fill', ['nested.svg', 'depth'], '100000 nested groups')]
        if HELPER:
            hostile.append((slow, 'fill', ['slow.svg', f'longer than {TIMEOUT_MS // 1000} s'],
                            'a document that renders for minutes'))
        for path, words, parts, label in hostile:
            c.refused_file(OUT, f'{vt.quote(path)} {words}', path, parts, label)
            t.check(c.responsive(), f'{label}: the compositor answers')
            after = c.settled_screenshot(OUT)
            t.check(np.array_equal(before, after), f'{label}: the wallpaper is unchanged')

    with t.case('a 1000000x1000000 canvas in fill: drawn to cover the largest output'):
        v, shot = show(c, huge, 'fill', (3840, 3840))
        if shot is not None:
            t.check((shot == (0, 0, 255)).all(), 'all blue', vt.px(shot[540, 960]))

    with t.case('references to other files are not followed'):
        for path in refs:
            v, shot = show(c, path, 'fill', (3840, 3840))
            t.check(shot is not None and (shot[540, 960] == (0, 255, 0)).all(),
                    f'{os.path.basename(path)}: the green under the picture, not red',
                    shot is not None and vt.px(shot[540, 960]))

    # Through IPC: strace, which the signal would reach, waits for its tracees to end.
    c.stop(method='exit')

# strace has written its last line once the compositor is gone.
with t.case('no process opened the file referred to'):
    with open(trace, errors='replace') as f:
        lines = f.read().splitlines()
    if HELPER:
        t.check(any('veil-decoder' in line and 'execve' in line for line in lines),
                'the trace follows veil-decoder', f'{len(lines)} lines')
    opened = [line for line in lines if 'red.png' in line]
    t.check(not opened, 'red.png never opened', '\n'.join(opened[:5]))
    fonts = [line for line in lines if '/etc/fonts' in line][:3]
    vt._say('# fontconfig: ' + ('; '.join(fonts) if fonts else 'no /etc/fonts opened'))

t.finish()
