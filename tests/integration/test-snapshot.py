#!/usr/bin/env python3
"""
`veilctl snapshot` and the status's palette against veil-tinywl (headless), with the real
veilctl, swaymsg, grim and ffmpeg:
- a still's snapshot equals the PNG it shows, decoded by ffmpeg; --size scales it down keeping
  its aspect ratio (against a 2x2 mean computed here); a picture with transparent pixels gives
  an RGBA PNG with its colours;
- a colour-cycle video's snapshot is one of the cycle's colours, the one grim sees on the
  screen just before or just after it; on pixman (frames in memory) and on the importing test
  renderer (frames in the compositor's YUV dmabufs, read back and converted by veil);
- `veilctl watch --exec 'veilctl snapshot -o "$VEIL_OUTPUT" ...'` writes what each change shows;
- bad arguments and refusals fail with messages and veilctl's exit statuses (1 usage, 2
  refused);
- the palette: a solid picture gives its colour, a two-colour one those two (most pixels
  first), a colour setting its colour, a video its first frame's colour; `veilctl status
  --json` carries it through the protocol's detail event.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('snapshot')
if not t.veilctl or not os.access(t.veilctl, os.X_OK):
    print(f'SKIP: veilctl is not built ({t.veilctl})')
    print('0 passed, 0 failed, 1 skipped')
    sys.exit(vt.SKIP)

OUT, OTHER = 'HEADLESS-1', 'HEADLESS-2'
W, H = 320, 180
media = t.media
# The cycle's colours: far apart, so that H.264's 4:2:0 and limited range cannot mix them up.
CYCLE = [('red', (220, 40, 40)), ('green', (40, 200, 40)), ('blue', (40, 40, 220))]
CYCLE_TOLERANCE = 24
PALETTE_DISTANCE = 6


def snapshot(c, path, *args):
    """Runs veilctl snapshot; the PNG read back by ffmpeg, or a failure naming the error."""
    rc, err = c.veilctl('snapshot', *args, path)
    if rc != 0:
        raise vt.Failure(f'veilctl snapshot {" ".join(args)} exited {rc}: {err}')
    return vt.read_image(path)


def png_colour_type(path):
    """The colour type in a PNG's IHDR: 2 RGB, 6 RGBA."""
    with open(path, 'rb') as f:
        data = f.read(26)
    return data[25]


def hex_rgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


def distance(a, b):
    return max(abs(int(x) - int(y)) for x, y in zip(a, b))


def palette(c, output=OUT):
    p = c.veil(output).get('palette')
    return [hex_rgb(x) for x in p] if isinstance(p, list) else None


def wait_palette(c, what, pred):
    return c.wait_until(lambda: (lambda p: p if p is not None and pred(p) else None)(
        palette(c)), what)


def set_file(c, path, words='fill'):
    ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} {words}')
    t.check(ok, f'set {os.path.basename(path)}', err)
    c.wait_until(lambda: c.veil(OUT).get('file') == path and
                 c.veil(OUT).get('state') == 'shown', f'{os.path.basename(path)} shown')


def cycle_index(img):
    i, mean = vt.classify_colour(img, CYCLE, CYCLE_TOLERANCE)
    return i, mean


def check_video_against_screen(c, label):
    """
    Snapshots and screenshots taken one after the other: the snapshot is a colour of the cycle,
    the one the screen showed just before it or just after it (the clip changes colour once a
    second, so at most one step falls between them).
    """
    agreed = 0
    for i in range(6):
        before, _ = cycle_index(c.screenshot(OUT))
        snap_path = t.path(f'{label}-{i}.png')
        img = snapshot(c, snap_path, '-o', OUT)
        after, _ = cycle_index(c.screenshot(OUT))
        got, mean = cycle_index(img)
        if not t.check(got is not None, f'{label} #{i}: the snapshot is a colour of the cycle',
                       f'mean {mean}, {img.shape[1]}x{img.shape[0]}'):
            continue
        if t.check(got in (before, after),
                   f'{label} #{i}: the snapshot shows what the screen shows '
                   f'({CYCLE[got][0]})',
                   f'screen {before} then {after}, snapshot {got} {mean}'):
            agreed += 1
        time.sleep(0.35)
    return agreed


with t.compositor(outputs=2) as c:
    with t.case('setup'):
        for o in (OUT, OTHER):
            ok, err = c.msg(f'output {o} resolution {W}x{H}')
            t.check(ok, f'output {o} resolution {W}x{H}', err)
            c.wait_mode(o, W, H)

    with t.case('a still'):
        # Smaller than the output: kept as decoded, every pixel.
        rng = np.random.default_rng(31)
        pixels = vt.quadrant_pixels(200, 120)
        pixels[40:80, 60:140] = rng.integers(0, 256, (40, 80, 3), dtype=np.uint8)
        still = vt.make_png(os.path.join(media, 'still.png'), pixels)
        set_file(c, still, 'center #000000')
        path = t.path('still.png')
        img = snapshot(c, path, '-o', OUT)
        t.compare(img, vt.read_image(still), 'the snapshot is the picture, every pixel',
                  ignore_border=0)
        t.check(png_colour_type(path) == 2, 'an opaque picture gives an RGB PNG',
                f'colour type {png_colour_type(path)}')
        img = snapshot(c, t.path('still-100x100.png'), '-o', OUT, '--size', '100x100')
        half = np.round(pixels.reshape(60, 2, 100, 2, 3).astype(np.float64).mean(
            axis=(1, 3))).astype(np.uint8)
        # The noise: its filter (pixman's box, as veil scales stills) reaches past 2x2, so
        # only its mean is compared; the flat quadrants are compared pixel by pixel.
        noise = (slice(20, 40), slice(30, 70))
        if img.shape == half.shape:
            diff = np.abs(img[noise].astype(np.float64).mean(axis=(0, 1)) -
                          half[noise].astype(np.float64).mean(axis=(0, 1))).max()
            t.check(diff <= 3, '--size 100x100: the noise keeps its mean colour',
                    f'off by {diff:.1f}')
            half[noise] = img[noise]
        t.compare(img, half, '--size 100x100: 100x60, the 2x2 mean of the picture',
                  tolerance=3, ignore_border=0, ignore_edges=1)
        img = snapshot(c, t.path('still-50x1000.png'), '-o', OUT, '--size=50x1000')
        t.check(img.shape[:2] == (30, 50), '--size 50x1000: 50x30, the aspect kept',
                f'{img.shape[1]}x{img.shape[0]}')
        img = snapshot(c, t.path('still-big.png'), '-o', OUT, '--size', '4000x4000')
        t.check(img.shape[:2] == (120, 200), '--size larger than the picture: never scaled up',
                f'{img.shape[1]}x{img.shape[0]}')

    with t.case('a picture with transparent pixels'):
        rgba = np.zeros((60, 80, 4), np.uint8)
        rgba[:, :40] = (200, 100, 50, 255)
        rgba[:, 40:] = (30, 60, 240, 128)
        alpha_png = os.path.join(media, 'alpha.png')
        vt._ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', '80x60', '-i', '-',
                    '-frames:v', '1', alpha_png], input=rgba.tobytes())
        os.chmod(alpha_png, 0o644)
        set_file(c, alpha_png, 'center #102030')
        path = t.path('alpha.png')
        rc, err = c.veilctl('snapshot', '-o', OUT, path)
        t.check(rc == 0, 'snapshot', err)
        t.check(png_colour_type(path) == 6, 'transparent pixels give an RGBA PNG',
                f'colour type {png_colour_type(path)}')
        raw = vt._ffmpeg(['-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'])
        got = np.frombuffer(raw, np.uint8).reshape(60, 80, 4)
        diff = np.abs(got.astype(np.int16) - rgba.astype(np.int16)).max()
        # Premultiplied in veil, straight again in the PNG: a unit or two of rounding.
        t.check(diff <= 2, 'the colours straight and the alpha as in the file, not the bars',
                f'largest difference {diff}')

    with t.case('palette'):
        solid = vt.make_png(os.path.join(media, 'solid.png'),
                            np.broadcast_to(np.array((12, 150, 77), np.uint8),
                                            (90, 160, 3)).copy())
        set_file(c, solid)
        p = wait_palette(c, 'the solid picture\'s palette', lambda p: True)
        t.check(p == [(12, 150, 77)], 'a solid picture: its colour alone', str(p))
        two = np.empty((90, 160, 3), np.uint8)
        two[:, :100] = (230, 200, 20)
        two[:, 100:] = (20, 40, 120)
        two_png = vt.make_png(os.path.join(media, 'two.png'), two)
        set_file(c, two_png)
        p = wait_palette(c, 'the two-colour picture\'s palette',
                         lambda p: p != [(12, 150, 77)])
        # Scaled to 64x36 first: the pixels on the seam mix the two colours.
        t.check(len(p) >= 2 and distance(p[0], (230, 200, 20)) <= PALETTE_DISTANCE and
                any(distance(x, (20, 40, 120)) <= PALETTE_DISTANCE for x in p[1:]),
                'a two-colour picture: those two, the larger first', str(p))
        rc, out = 0, ''
        r = subprocess.run([t.veilctl, 'status', '--json', '-o', OUT], env=c.client_env,
                           capture_output=True, text=True, timeout=60)
        try:
            via = json.loads(r.stdout)
            via = via.get(OUT, via)
        except ValueError:
            via = {}
        t.check([hex_rgb(x) for x in via.get('palette') or []] == p,
                'veilctl status --json: the same palette (the protocol\'s detail event)',
                r.stdout[:300] + r.stderr)
        ok, err = c.msg(f'output {OUT} veil #345678 solid_color')
        t.check(ok, 'a colour setting', err)
        p = wait_palette(c, 'the colour\'s palette', lambda p: p == [(0x34, 0x56, 0x78)])
        t.check(p == [(0x34, 0x56, 0x78)], 'a colour setting: its colour', str(p))

    with t.case('a colour setting\'s snapshot'):
        img = snapshot(c, t.path('colour.png'), '-o', OUT)
        t.check(img.shape == (1, 1, 3) and vt.px(img[0, 0]) == (0x34, 0x56, 0x78),
                'without --size: one pixel of the colour', f'{img.shape} {img.reshape(-1, 3)[0]}')
        img = snapshot(c, t.path('colour-8x4.png'), '-o', OUT, '--size', '8x4')
        t.check(img.shape == (4, 8, 3) and bool(np.all(img == (0x34, 0x56, 0x78))),
                '--size 8x4: 8x4 of the colour', f'{img.shape}')

    with t.case('bad arguments and refusals'):
        cases = [
            (['snapshot', '--size', '0x0', t.path('x.png')], 1, '--size'),
            (['snapshot', '--size', '640', t.path('x.png')], 1, '--size'),
            (['snapshot', '--size', '20000x10', t.path('x.png')], 1, '16384'),
            (['snapshot', '-o', OUT, t.outdir], 1, 'is a directory'),
            (['snapshot', '-o', OUT, t.path('no-such-dir', 'x.png')], 1, 'does not exist'),
            (['snapshot', '-o', OUT], 1, 'needs a file'),
            (['status', '--size', '10x10'], 1, '--size goes with snapshot'),
            (['snapshot', '-o', 'NOPE-1', t.path('x.png')], 2, "no output named 'NOPE-1'"),
            (['snapshot', t.path('x.png')], 2, f'name one ({OUT}, {OTHER})'),
            (['snapshot', '-o', OTHER, t.path('x.png')], 2, f'{OTHER} shows no wallpaper'),
        ]
        for args, want_rc, want_text in cases:
            rc, err = c.veilctl(*args)
            t.check(rc == want_rc and want_text in err,
                    f'veilctl {" ".join(os.path.basename(a) for a in args)}: exit {want_rc}, '
                    f'says {want_text!r}', f'exit {rc}: {err}')
        t.check(not os.path.exists(t.path('x.png')), 'no file written by a refusal')
        leftovers = [f for f in os.listdir(t.outdir) if f.startswith('.veilctl-snapshot')]
        t.check(not leftovers, 'no temporary file left', str(leftovers))
        ok, err = c.msg(f'output {OUT} veil off')
        t.check(ok, 'off', err)
        c.wait_veil(OUT, 'off')
        rc, err = c.veilctl('snapshot', '-o', OUT, t.path('x.png'))
        t.check(rc == 2 and 'it is off' in err, 'an output turned off: exit 2, says so',
                f'exit {rc}: {err}')

    with t.case('watch --exec snapshot'):
        log = t.path('exec.log')
        cmd = ('"$VEILCTL" snapshot -o "$VEIL_OUTPUT" "$DIR/watch-$VEIL_EVENT.png" '
               '&& echo "$VEIL_EVENT $VEIL_FILE" >> "$LOG"')
        env = dict(c.client_env, LOG=log, DIR=t.outdir, VEILCTL=t.veilctl)
        watch = subprocess.Popen([t.veilctl, 'watch', '-o', OUT, '--exec', cmd], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(0.5)
            set_file(c, still, 'center #000000')
            c.wait_until(lambda: os.path.exists(log) and
                         f'shown {still}' in open(log).read().splitlines(),
                         'the command ran for the picture shown')
            t.compare(vt.read_image(t.path('watch-shown.png')), vt.read_image(still),
                      'the command\'s snapshot is the picture shown', ignore_border=0)
        finally:
            watch.terminate()
            watch.wait(timeout=10)

    with t.case('a video on pixman'):
        clip = vt.make_colour_clip(
            os.path.join(media, 'cycle.mp4'), CYCLE, 10, 1.0,
            ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '10', '-g', '10', '-bf', '0',
             '-pix_fmt', 'yuv420p', '-movflags', '+faststart'], size=(64, 48))
        set_file(c, clip, 'stretch')
        p = wait_palette(c, 'the video\'s palette', lambda p: True)
        t.check(len(p) >= 1 and distance(p[0], CYCLE[0][1]) <= CYCLE_TOLERANCE,
                'a video\'s palette: its first frame\'s colour (red)', str(p))
        agreed = check_video_against_screen(c, 'pixman')
        t.check(agreed >= 5, 'the snapshot follows the video', f'{agreed} of 6')

with t.compositor(outputs=1, renderer='import', name='import') as c:
    with t.case('a video in YUV dmabufs (the importing renderer)'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        set_file(c, clip, 'stretch')
        fmt = (c.veil(OUT).get('source') or {}).get('format') or ''
        t.check(any(f in fmt.upper() for f in ('NV12', 'YUV420', 'I420', 'P010')),
                'the frames are YUV (read back from their planes)', fmt)
        agreed = check_video_against_screen(c, 'import')
        t.check(agreed >= 5, 'the snapshot follows the video', f'{agreed} of 6')
        rc, err = c.veilctl('snapshot', t.path('import-only.png'))
        t.check(rc == 0, 'one output: -o may be left out', err)

t.finish()
