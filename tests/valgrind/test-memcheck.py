#!/usr/bin/env python3
"""
The still-image path under valgrind memcheck: veil-tinywl runs under

    valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
             --errors-for-leak-kinds=definite,indirect --suppressions=tests/valgrind/veil.supp

and is driven through everything a still wallpaper goes through: PNGs (libpng), JPEG and BMP
(GStreamer), HEIC (libheif), WebP (libwebp) and TIFF (libtiff; each of those three
through GStreamer or refused when veil is built without it) in every mode, bad files of every
kind (corrupt, truncated, huge, empty, missing, text), outputs resized, added and unplugged,
off, fades and wipes, then exit during a fade. Any invalid read or write, use of uninitialised
memory, bad free, or definitely/indirectly lost block that the suppressions (each shown to be
outside veil, with its reason) do not cover fails the test: valgrind's exit status is then 99,
and the log's error records are printed.

    test-memcheck.py --compositor build/examples/veil-tinywl --outdir DIR
"""
import json
import os
import re
import shlex
import shutil
import stat
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
from veiltest import fault as fl  # noqa: E402
import veiltest as vt  # noqa: E402

SUPPRESSIONS = os.path.join(HERE, 'veil.supp')
t = vt.Test('memcheck')

valgrind = shutil.which('valgrind')
if valgrind is None:
    vt._say('SKIP: valgrind is not installed')
    vt._say('0 passed, 0 failed, 1 skipped')
    sys.exit(vt.SKIP)

OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
# Scaled pictures: pixman's filter is not ffmpeg's (see test-modes.py).
SCALED = dict(tolerance=8, mean_tolerance=1, ignore_edges=4)
JPEG = dict(tolerance=12, mean_tolerance=2.5, ignore_edges=4)
media = t.media


def m(name):
    return os.path.join(media, name)


# Media: every decoder of the still path, and every way a file can be bad.
quad = vt.quadrant_pixels(800, 600)
png = vt.make_png(m('quad-800x600.png'), quad)
big_png = vt.make_png(m('quad-2400x1400.png'), vt.quadrant_pixels(2400, 1400))
tile_png = vt.make_png(m('tile-96x64.png'), vt.quadrant_pixels(96, 64))
jpg = vt.make_jpeg(m('quad-1024x640.jpg'), vt.quadrant_pixels(1024, 640))
# 320x200: BMP and TIFF files over 64 KiB, which GStreamer must get whole (no parser splits
# them); a palette BMP and a 4:2:2 TIFF, whose decoders give formats videoflip does not take.
# GIF is not here: veil plays it as a video.
others = {}
for name, args in (('webp', ['-c:v', 'libwebp', '-lossless', '1']), ('bmp', []),
                   ('tiff', ['-pix_fmt', 'rgb24']), ('pal8.bmp', ['-pix_fmt', 'pal8']),
                   ('yuv422.tiff', ['-pix_fmt', 'yuv422p'])):
    path = m(f'quad-320x200.{name}')
    vt._ffmpeg(['-i', png, '-vf', 'scale=320:200', '-frames:v', '1'] + args + [path])
    os.chmod(path, 0o644)
    others[name] = path
# A layout GStreamer's TIFF decoder crashes on (1-bit grey): veil must refuse it first, unless
# libtiff reads it.
bilevel = m('bilevel.tiff')
vt._ffmpeg(['-i', png, '-vf', 'scale=320:200', '-frames:v', '1', '-pix_fmt', 'monob', bilevel])
os.chmod(bilevel, 0o644)
# The decoders of their own (those built): which decodes each file, and the files they add.
decoders = vt.still_decoders()
expected_decoder = {name: 'gstreamer' for name in others}
if 'webp' in decoders:
    expected_decoder['webp'] = 'libwebp'
if 'tiff' in decoders:
    expected_decoder.update({'tiff': 'libtiff', 'yuv422.tiff': 'libtiff'})
    others['bilevel.tiff'] = bilevel
    expected_decoder['bilevel.tiff'] = 'libtiff'
    others['rgb48.tiff'] = vt.make_tiff16(m('quad-320x200-rgb48.tiff'),
                                          vt.quadrant_pixels(320, 200))
    expected_decoder['rgb48.tiff'] = 'libtiff'
# Not AVIF: valgrind 3.26 cannot run dav1d's assembly ("VEX temporary storage exhausted").
if 'heif' in decoders and vt.have_encoder('heif-enc'):
    others['heic'] = vt.make_heic(m('quad-320x200.heic'), vt.quadrant_pixels(320, 200))
    expected_decoder['heic'] = 'libheif'
bad = {
    'corrupt PNG': vt.make_corrupt_png(m('corrupt.png'), png),
    'truncated PNG': vt.make_truncated(m('truncated.png'), png),
    'PNG claiming 100000x100000': vt.make_huge_png(m('huge.png')),
    'truncated JPEG': vt.make_truncated(m('truncated.jpg'), jpg, 0.5),
    'random bytes': vt.make_random(m('random.bin')),
    'text': vt.make_text(m('text.png')),
    'empty file': vt._write(m('empty.png'), b''),
    'missing file': m('missing.png'),
}
# A directory is a slideshow: one with nothing to show is an error in the status, the picture
# stays; one of two pictures steps through them.
empty_dir = m('empty-dir')
os.makedirs(empty_dir, exist_ok=True)
show_dir = m('show-dir')
os.makedirs(show_dir, exist_ok=True)
for name in ('1.png', '2.jpg'):
    with open(png if name.endswith('png') else jpg, 'rb') as src, \
            open(os.path.join(show_dir, name), 'wb') as dst:
        dst.write(src.read())
if 'tiff' not in decoders:
    bad['1-bit TIFF'] = bilevel
if 'webp' in decoders:
    bad['truncated WebP'] = vt.make_truncated(m('truncated.webp'), others['webp'], 0.5)

# valgrind in front of the compositor: veiltest runs what --compositor names, so a wrapper
# script takes its place.
log = t.path('memcheck.log')
wrapper = t.path('memcheck-wrapper.sh')
# --fair-sched=yes: valgrind runs one thread at a time, and its default lock lets a busy decoder
# thread take it back before the compositor's thread gets it (IPC replies took up to 2.4 s, past
# swaymsg's 3 s under load; 0.6 s with the fair lock).
vg_argv = [valgrind, '--tool=memcheck', '--fair-sched=yes', '--error-exitcode=99',
           '--leak-check=full',
           '--show-leak-kinds=definite,indirect', '--errors-for-leak-kinds=definite,indirect',
           '--num-callers=40', f'--suppressions={SUPPRESSIONS}', '--gen-suppressions=all',
           '-s', f'--log-file={log}', t.compositor_path]
with open(wrapper, 'w') as f:
    f.write('#!/bin/sh\nexec ' + shlex.join(vg_argv) + ' "$@"\n')
os.chmod(wrapper, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
vt._say(f'# {shlex.join(vg_argv)}')
t.compositor_path = wrapper

env = {
    # Memory handed back to malloc at once and freed blocks cleared: exact leak records.
    'G_SLICE': 'always-malloc',
    'G_DEBUG': 'gc-friendly',
    # A registry of its own, scanned by gst-plugin-scanner (not traced), not the user's.
    'GST_REGISTRY_1_0': t.path('gst-registry.bin'),
}


longest_reply = [0.0, '']


def request(c, kind, payload=''):
    """
    A request through a raw IPC connection: swaymsg gives up after 3 s without a reply, and
    under valgrind, with a decoder thread sharing valgrind's one running thread, a reply can
    take longer. Returns the reply's JSON.
    """
    c.require_alive(f'IPC request {kind}')
    try:
        r = fl.RawClient(c.swaysock, timeout=300)
        try:
            start = time.monotonic()
            _, reply = r.request(kind, payload)
            took = time.monotonic() - start
            if took > longest_reply[0]:
                longest_reply[:] = [took, f'{kind} {payload}'.strip()]
        finally:
            r.close()
        return json.loads(reply.decode('utf-8', 'replace'))
    except (OSError, EOFError, ValueError) as e:
        raise vt.Failure(f'IPC request {kind}: {e}')


def command(c, text):
    """A command through request(). Returns (ok, error text) as c.msg does."""
    results = request(c, fl.IPC_COMMAND, text)
    ok = all(x.get('success') for x in results) and bool(results)
    return ok, '; '.join(str(x.get('error', '')) for x in results if not x.get('success'))


with t.compositor(outputs=1, env=env) as c:
    c.msg = lambda text, timeout=None: command(c, text)
    # veiltest's swaymsg -t queries (get_outputs, get_version) by their IPC message types.
    c.query = lambda kind: request(c, getattr(fl, 'IPC_' + kind.upper()))

    def show(words, expected=None, label=None, cmp=SCALED, output=OUT, **status):
        ok, err = c.msg(f'output {output} veil {words}', timeout=120)
        if not t.check(ok, f'`veil {words}` accepted', err):
            return
        v = c.wait_veil(output, 'shown', **status)
        t.check(v.get('error') is None, 'no error', str(v.get('error')))
        if expected is not None:
            t.compare(c.settled_screenshot(output), expected, label, **cmp)

    with t.case('PNG in every mode'):
        show(f'{png} fill', vt.expect_fill(png, W, H), 'fill', file=png, mode='fill')
        show(f'{png} stretch', vt.expect_stretch(png, W, H), 'stretch', mode='stretch')
        show(f'{png} fit #336699', vt.expect_fit(png, W, H, '#336699'), 'fit', mode='fit')
        show(f'{big_png} center #000000', vt.expect_center(big_png, W, H, '#000000'),
             'center', cmp=dict(tolerance=0, ignore_border=0), mode='center')
        show(f'{tile_png} tile', vt.expect_tile(vt.read_image(tile_png), W, H), 'tile',
             cmp=dict(tolerance=0, ignore_border=0), mode='tile')
        show('#884422 solid_color', vt.expect_solid('#884422', W, H), 'solid',
             cmp=dict(tolerance=0, ignore_border=0), mode='solid_color')
        # A large PNG shrunk to the output, then kept whole for center.
        show(f'{big_png} fill', vt.expect_fill(big_png, W, H), 'big-fill', file=big_png)

    with t.case('GStreamer, libheif, libwebp and libtiff stills'):
        show(f'{jpg} fill', vt.expect_fill(jpg, W, H), 'jpeg-fill', cmp=JPEG, file=jpg)
        for ext, path in others.items():
            show(f'{path} stretch', None, None, file=path)
            want = expected_decoder[ext]
            t.check(c.veil(OUT).get('source', {}).get('decoder') == want,
                    f'{ext} decoded by {want}', str(c.veil(OUT).get('source')))

    with t.case('bad files'):
        show(f'{png} fill', file=png)
        for label, path in bad.items():
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)}', timeout=120)
            if ok:
                # A sound header: the decode, after the reply, fails; the status says why.
                def ended():
                    v = c.veil(OUT)
                    return v if v.get('loading') is None else None
                err = c.wait_until(ended, f'{label}: the decode to end',
                                   timeout=120).get('error')
            t.check(err, f'{label}: refused with a message, at once or in the status', err)
        v = c.veil(OUT)
        t.check(v.get('file') == png and v.get('state') == 'shown',
                'the good wallpaper stayed', str(v))

    with t.case('slideshows'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(empty_dir)}', timeout=120)
        t.check(ok, 'an empty directory is accepted (a show with nothing to show)', err)
        v = c.wait_until(lambda: c.veil(OUT).get('error') and c.veil(OUT),
                         'the empty show reported', timeout=120)
        t.check('empty-dir' in v['error'] and v.get('file') == png,
                'the status names the directory, the picture stays', str(v))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(show_dir)} fill every 1h', timeout=120)
        t.check(ok, 'a show of two pictures', err)
        c.wait_until(lambda: (c.veil(OUT).get('file') or '').endswith('1.png'),
                     'the first picture', timeout=120)
        ok, err = c.msg(f'output {OUT} veil next', timeout=120)
        t.check(ok, 'next', err)
        c.wait_until(lambda: (c.veil(OUT).get('file') or '').endswith('2.jpg'),
                     'the second picture', timeout=120)
        show(f'{png} fill', file=png)

    with t.case('outputs change'):
        ok, err = c.msg(f'output {OUT} resolution 1920x1080')
        t.check(ok, 'resolution 1920x1080', err)
        c.wait_mode(OUT, 1920, 1080)
        c.wait_veil(OUT, 'shown')
        t.compare(c.settled_screenshot(OUT), vt.expect_fill(png, 1920, 1080), 'resized',
                  **SCALED)
        # "*" for the outputs to come; HEADLESS-1 keeps its own setting.
        ok, err = c.msg(f'output * veil {jpg} fill')
        t.check(ok, '`output * veil` for every output', err)
        for i in range(3):
            ok, err = c.msg('create_output')
            t.check(ok, f'create_output {i + 1}', err)
        names = c.wait_until(lambda: len(c.outputs()) == 4 and sorted(c.outputs()),
                             'four outputs')
        for name in names[1:]:
            c.wait_veil(name, 'shown', file=jpg)
        c.wait_veil(OUT, 'shown', file=png)
        for name in names[1:]:
            ok, err = c.msg(f'output {name} unplug')
            t.check(ok, f'unplug {name}', err)
        c.wait_until(lambda: list(c.outputs()) == [OUT], 'one output left')
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)

    with t.case('switches'):
        for i in range(12):
            path = (png, jpg, others['webp'], big_png)[i % 4]
            mode = ('fill', 'fit', 'stretch', 'center')[i % 4]
            show(f'{path} {mode}', file=path, mode=mode)
        ok, err = c.msg(f'output {OUT} veil off')
        t.check(ok, 'veil off', err)
        c.wait_veil(OUT, 'off')
        show(f'{png} fill', vt.expect_fill(png, W, H), 'last', file=png)

    with t.case('transitions'):
        # Fades and wipes to and from a colour, one cut by the next, and an exit during one.
        show(f'{jpg} fill transition fade 800', file=jpg)
        show('#336699 solid_color transition wipe 800', mode='solid_color')
        show(f'{png} fit transition wipe 3000', file=png, mode='fit')
        show(f'{big_png} fill transition fade 3000', file=big_png)
        ok, err = c.msg(f'output {OUT} veil transition fade 10000')
        t.check(ok, 'veil transition fade 10000', err)
        show(f'{png} stretch', file=png, mode='stretch')
        t.check(c.veil(OUT).get('transition') is not None, 'a fade runs at the exit')

    vt._say(f'   longest IPC reply under valgrind: {longest_reply[0]:.1f} s '
            f'(type {longest_reply[1]})')
    # veil-tinywl frees everything when it exits: memcheck's leak check runs then.
    c.stop(method='exit')

with t.case('memcheck'):
    text = open(log, encoding='utf-8', errors='replace').read() if os.path.exists(log) else ''
    summary = re.search(r'ERROR SUMMARY: (\d+) errors from (\d+) contexts '
                        r'\(suppressed: (\d+) from (\d+)\)', text)
    t.check(summary is not None, 'valgrind wrote its error summary', f'log {log}')
    if summary:
        errors = int(summary.group(1))
        leaks = {k: v.replace(',', '') for k, v in re.findall(
            r'(definitely|indirectly|possibly) lost: ([\d,]+) bytes', text)}
        vt._say(f'   memcheck: {errors} errors from {summary.group(2)} contexts, suppressed '
                f'{summary.group(3)} from {summary.group(4)}; lost: definitely '
                f'{leaks.get("definitely", 0)}, indirectly {leaks.get("indirectly", 0)}, '
                f'possibly {leaks.get("possibly", 0)} bytes')
        detail = ''
        if errors:
            # Each record up to its suppression, which is what a new veil.supp entry needs.
            records = re.findall(r'(==\d+== \S.*?\n(?:==\d+== .*\n)*?==\d+== *\n)', text)
            detail = '\n' + ''.join(records[:20])[:20000] + f'\nlog: {log}'
        t.check(errors == 0, 'no memcheck errors (invalid accesses, uninitialised values, '
                'definite or indirect leaks)', detail)
        used = re.findall(r'used_suppression:\s+(\d+)\s+(\S+)', text)
        if used:
            vt._say('   suppressions used: ' + ', '.join(f'{n}x {name}' for n, name in used))

t.finish()
