#!/usr/bin/env python3
"""
Every mode on one 1920x1080 output: the wallpaper is set with the real swaymsg, shown by
veil-tinywl (headless, pixman), captured with grim and compared with a picture that ffmpeg (or
numpy, for tile and solid_color) computed from the source on its own. Each screenshot is kept
as <outdir>/shot-<label>.png.
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('modes')
OUT = 'HEADLESS-1'
W, H = 1920, 1080

# Scaled modes: pixman's bilinear filter is not ffmpeg's, so pixels near sharp edges are left
# to the structure check and the rest must be close. Unscaled modes must be exact.
SCALED = dict(tolerance=8, mean_tolerance=1, ignore_edges=4)
EXACT = dict(tolerance=0, ignore_border=0)
# The JPEG is decoded by GStreamer (libjpeg) in veil and by ffmpeg's own decoder here.
JPEG = dict(tolerance=12, mean_tolerance=2.5, ignore_edges=4)

media = t.media
quad = vt.quadrant_pixels(800, 600)              # 4:3, scaled up 2.4x / 1.8x
quad_png = vt.make_png(os.path.join(media, 'quad-800x600.png'), quad)
large_png = vt.make_png(os.path.join(media, 'quad-2560x1600.png'), vt.quadrant_pixels(2560, 1600))
big_png = vt.make_png(os.path.join(media, 'quad-2400x1400.png'), vt.quadrant_pixels(2400, 1400))
# A 1-pixel checker in one quadrant: it survives only a decode at the output's own size.
fine = vt.quadrant_pixels(W, H).copy()
fine[:H // 2, :W // 2] = (np.indices((H // 2, W // 2)).sum(axis=0) % 2)[..., None] * 255
fine_png = vt.make_png(os.path.join(media, 'fine-1920x1080.png'), fine)
fine_dark = 255 - fine
fine_dark_png = vt.make_png(os.path.join(media, 'fine-dark-1920x1080.png'), fine_dark)
anim_webp = vt.make_animated_webp(os.path.join(media, 'fine-1920x1080.webp'), fine)
fine_ws = np.ascontiguousarray(fine[::-1])
fine_ws_png = vt.make_png(os.path.join(media, 'fine-ws-1920x1080.png'), fine_ws)
# A wallpaper package (test-package.py) whose one picture is the checker, and a slideshow of it
# and the turned checker.
fine_pkg = os.path.join(media, 'fine-package')
os.makedirs(os.path.join(fine_pkg, 'contents', 'images'), exist_ok=True)
with open(os.path.join(fine_pkg, 'metadata.json'), 'w') as f:
    json.dump({'KPlugin': {'Name': 'Fine', 'Id': 'Fine'}}, f)
fine_pkg_png = vt.make_png(os.path.join(fine_pkg, 'contents', 'images', '1920x1080.png'), fine)
fine_show = os.path.join(media, 'fine-show')
os.makedirs(fine_show, exist_ok=True)
fine_show_pngs = [vt.make_png(os.path.join(fine_show, name), pixels)
                  for name, pixels in (('1-fine.png', fine), ('2-fine-ws.png', fine_ws))]
tile_px = vt.quadrant_pixels(250, 150)           # 7.68 x 7.2 tiles on 1920x1080
tile_png = vt.make_png(os.path.join(media, 'quad-250x150.png'), tile_px)
small_px = vt.quadrant_pixels(16, 16)            # a classic small pattern: 120 x 68 tiles
small_png = vt.make_png(os.path.join(media, 'pattern-16x16.png'), small_px)
# JPEG blocks are 16x16 in 4:2:0: a picture whose quadrant edges fall on block edges keeps them
# sharp, and ffmpeg and libjpeg then decode it alike.
jpg_w, jpg_h = 1024, 640  # edges at x 384, y 400
quad_jpg = vt.make_jpeg(os.path.join(media, 'quad-1024x640.jpg'),
                        vt.quadrant_pixels(jpg_w, jpg_h))
# The formats with decoders of their own: lossy AVIF, HEIC and WebP are compared with the
# source's pixels with a tolerance (HEIC is 4:2:0: colour smears across the quadrant edges);
# the 16-bit TIFF holds the 8-bit samples exactly. An animated WebP plays: test-anim.py.
LOSSY = dict(tolerance=24, mean_tolerance=3, ignore_edges=8)
decoders = vt.still_decoders()
FORMATS = []  # (label, file, decoder, comparison)
for label, lib, encoder, make, name, cmp in [
        ('AVIF', 'heif', 'libaom-av1', vt.make_avif, 'quad-800x600.avif', LOSSY),
        ('HEIC', 'heif', 'heif-enc', vt.make_heic, 'quad-800x600.heic', LOSSY),
        ('WebP', 'webp', 'libwebp', vt.make_webp, 'quad-800x600.webp', LOSSY),
        ('16-bit TIFF', 'tiff', 'tiff', vt.make_tiff16, 'quad-800x600.tiff', SCALED)]:
    if lib not in decoders:
        vt._say(f'# {label}: veil is built without lib{lib}, not tested')
    elif not vt.have_encoder(encoder):
        vt._say(f'# {label}: no {encoder} to make the file, not tested')
    else:
        FORMATS.append((label, make(os.path.join(media, name), quad), 'lib' + lib, cmp))


with t.compositor(outputs=1) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        o = c.wait_mode(OUT, W, H)
        t.check(o['rect']['width'] == W and o['rect']['height'] == H, 'logical size 1920x1080',
                str(o['rect']))
        v = c.veil(OUT)
        t.check(v.get('kind') == 'none' and v.get('state') == 'off',
                'no wallpaper before the first command', str(v))

    def show(words, expected, label, bars=None, cmp=SCALED, kind='image', **status):
        """Sets a wallpaper, waits for it, checks its status and its pixels."""
        ok, err = c.msg(f'output {OUT} veil {words}')
        if not t.check(ok, f'`veil {words}` accepted', err):
            return None
        v = c.wait_veil(OUT, 'shown', **status)
        t.check(v.get('kind') == kind, f'status kind {kind}', str(v.get('kind')))
        t.check(v.get('error') is None, 'status has no error', str(v.get('error')))
        t.check(v.get('setting') == OUT, f'status setting {OUT}', str(v.get('setting')))
        shot = c.settled_screenshot(OUT)
        # Kept, passed or not, in the test's outdir (tools/mode-pictures makes the docs' own).
        vt.write_png(t.path(f'shot-{label}.png'), shot)
        t.check(shot.shape == (H, W, 3), 'screenshot is 1920x1080',
                f'{shot.shape[1]}x{shot.shape[0]}')
        t.compare_structure(shot, expected, label, slack=2, bars=bars)
        t.compare(shot, expected, label, **cmp)
        return v

    with t.case('stretch'):
        v = show(f'{vt.quote(quad_png)} stretch', vt.expect_stretch(quad_png, W, H), 'stretch',
                 mode='stretch', file=quad_png)
        if v:
            t.check(v.get('source_size') == {'width': 800, 'height': 600},
                    'source_size 800x600', str(v.get('source_size')))
            src = v.get('source') or {}
            t.check(src.get('decoder') == 'libpng', 'decoded by libpng', str(src))
            t.check(src.get('outputs') == 1, 'source seen on one output', str(src))

    with t.case('fill'):
        show(f'{vt.quote(quad_png)} fill', vt.expect_fill(quad_png, W, H), 'fill', mode='fill',
             file=quad_png)

    with t.case('fit with bars'):
        v = show(f'{vt.quote(quad_png)} fit #ff00ff',
                 vt.expect_fit(quad_png, W, H, '#ff00ff'), 'fit', bars=(255, 0, 255),
                 mode='fit', file=quad_png)
        if v:
            t.check(v.get('color') == '#ff00ff', 'status color #ff00ff', str(v.get('color')))

    with t.case('fit default colour'):
        # Like sway's bg, bars are black when no colour is given.
        show(f'{vt.quote(quad_png)} fit', vt.expect_fit(quad_png, W, H, '#000000'), 'fit-black',
             bars=(0, 0, 0), mode='fit', color='#000000')

    with t.case('center smaller than the output'):
        show(f'{vt.quote(quad_png)} center #00ffff',
             vt.expect_center(quad_png, W, H, '#00ffff'), 'center', bars=(0, 255, 255),
             cmp=EXACT, mode='center', color='#00ffff')

    with t.case('center larger than the output'):
        show(f'{vt.quote(big_png)} center #00ffff', vt.expect_center(big_png, W, H, '#00ffff'),
             'center-large', cmp=EXACT, mode='center', file=big_png)

    with t.case('tile'):
        show(f'{vt.quote(tile_png)} tile', vt.expect_tile(tile_px, W, H), 'tile', cmp=EXACT,
             mode='tile', file=tile_png)

    with t.case('solid_color'):
        show('#3366cc solid_color', vt.expect_solid('#3366cc', W, H), 'solid', cmp=EXACT,
             kind='color', mode='solid_color', color='#3366cc')

    # A small pattern is repeated into a larger buffer before it is tiled: shown whole, with
    # few scene nodes.
    with t.case('tile a 16x16 pattern'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(small_png)} tile')
        t.check(ok, 'a 16x16 pattern in tile mode is accepted', err)
        if ok:
            v = c.wait_until(lambda: (lambda v: v.get('file') == small_png and (
                v.get('state') == 'shown' or v.get('error')) and v)(c.veil(OUT)),
                'the pattern shown or an error')
            t.check(v.get('state') == 'shown' and v.get('error') is None,
                    'an accepted pattern is shown', str(v))
            # 120x68 copies of the pattern, but a handful of nodes (a 512x512 repeat).
            t.check(0 < v.get('nodes', 0) <= 64, 'few scene nodes for a small pattern',
                    str(v.get('nodes')))
            shot = c.settled_screenshot(OUT)
            t.compare(shot, vt.expect_tile(small_px, W, H), 'tile-16x16', **EXACT)

    with t.case('fill from a larger image'):
        v = show(f'{vt.quote(large_png)} fill', vt.expect_fill(large_png, W, H), 'fill-large',
                 mode='fill', file=large_png)
        if v:
            orig = (v.get('source') or {}).get('original_size')
            t.check(orig == {'width': 2560, 'height': 1600}, 'original_size 2560x1600',
                    str(orig))

    # libjpeg-turbo's when built with it (test-jpeg.py), else GStreamer's.
    jpeg_decoder = 'libjpeg-turbo' if 'jpeg' in decoders else 'gstreamer'
    with t.case(f'JPEG through {jpeg_decoder}'):
        v = show(f'{vt.quote(quad_jpg)} stretch', vt.expect_stretch(quad_jpg, W, H), 'jpeg',
                 cmp=JPEG, mode='stretch', file=quad_jpg)
        if v:
            src = v.get('source') or {}
            t.check(src.get('decoder') == jpeg_decoder, f'decoded by {jpeg_decoder}', str(src))
            t.check(v.get('source_size') == {'width': jpg_w, 'height': jpg_h},
                    f'source_size {jpg_w}x{jpg_h}', str(v.get('source_size')))

    for label, path, decoder, cmp in FORMATS:
        with t.case(f'{label} in fill'):
            v = show(f'{vt.quote(path)} fill', vt.expect_fill(quad_png, W, H),
                     'fill-' + os.path.basename(path).replace('.', '-'), cmp=cmp, mode='fill',
                     file=path)
            if v:
                src = v.get('source') or {}
                t.check(src.get('decoder') == decoder, f'decoded by {decoder}', str(src))
                t.check(v.get('source_size') == {'width': 800, 'height': 600},
                        'source_size 800x600', str(v.get('source_size')))

    # A still is decoded shrunk to cover the largest output: when the output grows it is
    # decoded again for the new size (not the small picture scaled up), and so is a set again.
    def grow(words, file, what, expected=None, after=()):
        """
        Sets `veil words` on the output at 1280x720 (then runs the commands after), checks
        that file is kept at 1280x720, grows the output to 1920x1080 and waits until what is
        decoded again for it. Meanwhile the old picture shows, scaled up: never the
        compositor's background (checked in expected's yellow quadrant when given).
        """
        ok, err = c.msg(f'output {OUT} resolution 1280x720')
        t.check(ok, f'output {OUT} resolution 1280x720', err)
        c.wait_mode(OUT, 1280, 720)
        for command in (f'output {OUT} veil {words}',) + tuple(after):
            ok, err = c.msg(command)
            t.check(ok, f'`{command}` accepted', err)
        v = c.wait_veil(OUT, 'shown', file=file)
        t.check(v.get('source_size') == {'width': 1280, 'height': 720},
                f'{what} kept at 1280x720 for the small output', str(v.get('source_size')))
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        if expected is not None:
            box = (slice(H * 3 // 4 - 40, H * 3 // 4 + 40),
                   slice(W * 3 // 4 - 40, W * 3 // 4 + 40))
            shot = c.screenshot(OUT)
            off = int(np.abs(shot[box].astype(int) - expected[box].astype(int)).max())
            t.check(shot.shape == (H, W, 3) and off <= 8,
                    'a picture shows while it is decoded again', f'worst {off}')
        try:
            return c.wait_veil(OUT, 'shown', timeout=10, file=file,
                               source_size={'width': W, 'height': H})
        except vt.Failure as e:
            t.check(False, f'{what} decoded again after the output grew', str(e))
            return None

    with t.case('the output grows'):
        v = grow(f'{vt.quote(fine_png)} fill', fine_png, 'the picture', fine)
        t.check(v is None or v.get('error') is None, 'status has no error', str(v))
        t.compare(c.settled_screenshot(OUT), fine, 'grown', **EXACT)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(fine_png)} fill')
        t.check(ok, 'the same file set again accepted', err)
        v = c.wait_veil(OUT, 'shown', file=fine_png)
        t.check(v.get('source_size') == {'width': W, 'height': H},
                'set again on the grown output: source_size 1920x1080',
                str(v.get('source_size')))
        t.compare(c.settled_screenshot(OUT), fine, 'grown-set-again', **EXACT)

    with t.case('the output grows: the dark picture'):
        ok, err = c.msg(f'output {OUT} veil scheme dark')
        t.check(ok, '`veil scheme dark`', err)
        grow(f'{vt.quote(fine_png)} fill dark {vt.quote(fine_dark_png)}', fine_dark_png,
             'the dark picture', fine_dark)
        t.compare(c.settled_screenshot(OUT), fine_dark, 'grown-dark', **EXACT)
        # The scheme's change shows the light picture exactly too.
        ok, err = c.msg(f'output {OUT} veil scheme light')
        t.check(ok, '`veil scheme light`', err)
        v = c.wait_veil(OUT, 'shown', file=fine_png)
        t.check(v.get('source_size') == {'width': W, 'height': H},
                'the light picture at 1920x1080', str(v.get('source_size')))
        t.compare(c.settled_screenshot(OUT), fine, 'grown-light', **EXACT)

    with t.case('the output grows: a workspace\'s picture'):
        grow(f'workspace 2 {vt.quote(fine_ws_png)} fill', fine_ws_png,
             'the workspace\'s picture', fine_ws, after=['workspace 2'])
        t.compare(c.settled_screenshot(OUT), fine_ws, 'grown-workspace', **EXACT)
        ok, err = c.msg('workspace 1')
        t.check(ok, 'workspace 1', err)
        ok, err = c.msg(f'output {OUT} veil workspace 2 off')
        t.check(ok, '`veil workspace 2 off`', err)

    # An animation's frames are shrunk as a still is: decoded again the same way (its status).
    with t.case('the output grows: an animation'):
        v = grow(f'{vt.quote(anim_webp)} fill', anim_webp, 'the animation')
        t.check(v is None or (v.get('source') or {}).get('animation') is not None,
                'played as an animation', str(v))

    # A package's picture is chosen for the output: when the same one fits the grown output, it
    # is decoded again for it (on main it stayed at 1280x720).
    with t.case('the output grows: a package\'s picture'):
        v = grow(f'{vt.quote(fine_pkg)} fill', fine_pkg_png, 'the package\'s picture', fine)
        t.check(v is None or (v.get('package') or {}).get('picture') == fine_pkg_png,
                'shown as the package\'s picture', json.dumps((v or {}).get('package')))
        t.compare(c.settled_screenshot(OUT), fine, 'grown-package', **EXACT)

    # veilctl sends a descriptor of its file: the setting keeps one, and the picture is decoded
    # again from it though the file's name is gone (on main: kept at 1280x720, the name reopened).
    with t.case('the output grows: a client\'s file'):
        client_png = t.path('client-fine.png')
        shutil.copyfile(fine_png, client_png)
        ok, err = c.msg(f'output {OUT} resolution 1280x720')
        t.check(ok, f'output {OUT} resolution 1280x720', err)
        c.wait_mode(OUT, 1280, 720)
        rc, err = c.veilctl('-o', OUT, 'set', client_png, 'fill')
        t.check(rc == 0, 'veilctl -o OUT set FILE fill', err)
        v = c.wait_veil(OUT, 'shown', file=client_png)
        t.check(v.get('source_size') == {'width': 1280, 'height': 720},
                'the client\'s file kept at 1280x720 for the small output',
                str(v.get('source_size')))
        os.unlink(client_png)
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        try:
            c.wait_veil(OUT, 'shown', timeout=10, file=client_png,
                        source_size={'width': W, 'height': H})
        except vt.Failure as e:
            t.check(False, 'decoded again from the descriptor after the output grew', str(e))
        t.compare(c.settled_screenshot(OUT), fine, 'grown-client-file', **EXACT)

    # A slideshow's next picture is decoded ahead for the small output: decoded again when the
    # output grows, so that the step is at once and exact (on main: decoded at the step).
    with t.case('the output grows: a slideshow\'s picture ahead'):
        first, second = fine_show_pngs
        grow(f'{vt.quote(fine_show)} fill every 1h order name', first,
             'the slideshow\'s picture', fine)
        c.wait_until(lambda: (c.veil(OUT).get('slideshow') or {}).get('ahead') == second,
                     'the next picture decoded ahead', timeout=10)
        ok, err = c.msg(f'output {OUT} veil next')
        t.check(ok, '`veil next` accepted', err)
        v = c.veil(OUT)
        t.check(v.get('file') == second and
                v.get('source_size') == {'width': W, 'height': H},
                'the next picture shows at 1920x1080 at once after the reply',
                f'{v.get("file")} {v.get("source_size")}')
        c.wait_veil(OUT, 'shown', file=second)
        t.compare(c.settled_screenshot(OUT), fine_ws, 'grown-slideshow-next', **EXACT)

    with t.case('off'):
        ok, err = c.msg(f'output {OUT} veil off')
        t.check(ok, '`veil off` accepted', err)
        v = c.wait_veil(OUT, 'off')
        t.check(v.get('kind') == 'off', 'status kind off', str(v))
        t.check(v.get('nodes', 0) == 0, 'no wallpaper nodes left', str(v.get('nodes')))
        shot = c.settled_screenshot(OUT)
        # What is left is the compositor's own background: one colour, no wallpaper in it.
        uniform = (shot == shot[0, 0]).all(axis=2)
        t.check(uniform.all(), 'the wallpaper is gone: the output is one colour',
                f'{int((~uniform).sum())} pixels differ from {tuple(shot[0, 0])}')

# The same commands from a config file (-c), run before the ready line.
config = t.path('veil.conf')
with open(config, 'w') as f:
    f.write('# set by test-modes\n'
            f'output {OUT} resolution 1600x900\n'
            f'output * veil {vt.quote(quad_png)} fit #ff00ff\n')
with t.compositor(outputs=1, config=config, name='compositor-config') as c:
    with t.case('config file'):
        c.wait_mode(OUT, 1600, 900)
        v = c.wait_veil(OUT, 'shown', file=quad_png, mode='fit')
        t.check(v.get('setting') == '*', 'the config\'s "*" setting applies', str(v))
        shot = c.settled_screenshot(OUT)
        expected = vt.expect_fit(quad_png, 1600, 900, '#ff00ff')
        t.compare_structure(shot, expected, 'config-fit', slack=2, bars=(255, 0, 255))
        t.compare(shot, expected, 'config-fit', **SCALED)

t.finish()
