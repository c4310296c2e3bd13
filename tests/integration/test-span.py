#!/usr/bin/env python3
"""
`span`: one picture across outputs. Two headless outputs side by side, then of different sizes
with a scale of 2 on one, then with a gap between them, then with a third output hotplugged and
unplugged: each output's grim screenshot is compared with the picture placed on the canvas (the
bounding box of the outputs' boxes in the layout, read from get_outputs) and sampled at that
output's pixels, computed here in numpy; where two outputs touch, the columns on both sides of
the edge are compared with it at full strictness, and the step across the edge must be the
picture's own. A video across two outputs runs one decode: one source, one frame counter,
"outputs": 2.

wlroots' pixman renderer rounds a node's source box to whole frame pixels (render/pixman/pass.c),
so where an output's edge falls inside a frame pixel the two sides can be off by up to half a
frame pixel. The layouts here are chosen so that every output's edge falls on a whole frame
pixel, where veil's geometry is checked strictly; one layout that does not is checked within
that half pixel ('fractional').
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('span')
A, B = 'HEADLESS-1', 'HEADLESS-2'
# Scaled by pixman's bilinear filter against numpy's: close, but not equal near sharp edges.
# wlroots 0.19's pixman renderer samples outside a buffer as transparent, which darkens half a
# frame pixel along the frame's own edges (up to 4 output pixels here): BORDER is left out there.
BORDER = 5
SCALED = dict(tolerance=8, mean_tolerance=1.5, ignore_edges=4, ignore_border=BORDER)
# Lossy video, 4:2:0, scaled 3 times (see test-video-shared.py).
VIDEO = dict(tolerance=16, mean_tolerance=4.5, ignore_edges=6, ignore_border=BORDER)
BARS = '#303030'

# 720x300 on the first canvas (1440x600): scaled 2, the outputs' edges on whole frame pixels.
pic_px = vt.quadrant_pixels(720, 300)
# Blue: diagonal waves, 48 picture pixels from crest to crest. Smooth, so that bilinear filters
# agree, and steep (up to 8 levels an output pixel at 2 times): an output that showed its
# part a pixel off, across or along the edge, would differ by more than the tolerance.
yy, xx = np.mgrid[0:300, 0:720]
pic_px[..., 2] = np.rint(128 + 120 * np.sin(2 * np.pi * (xx + yy) / 48)).astype(np.uint8)
pic = vt.make_png(os.path.join(t.media, 'pic-720x300.png'), pic_px)


def make_clip(name, pixels, seconds=2, fps=15):
    still = vt.make_png(os.path.join(t.media, name + '.png'), pixels)
    path = os.path.join(t.media, name + '.mp4')
    vt._ffmpeg(['-loop', '1', '-framerate', str(fps), '-i', still, '-t', str(seconds),
                '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '8', '-g', str(fps),
                '-pix_fmt', 'yuv420p', '-colorspace', 'smpte170m', '-color_primaries',
                'smpte170m', '-color_trc', 'smpte170m', '-color_range', 'tv', path])
    os.chmod(path, 0o644)
    return path


# Scaled 2 on 1440x600 (4 rows cropped above and below): edges on whole frame pixels.
clip = make_clip('clip-720x304', vt.quadrant_pixels(720, 304))
# Half a frame pixel of the waves at the scales of 'fractional' (up to 3.8), and the filters.
FRACTIONAL = dict(tolerance=16, mean_tolerance=6, ignore_edges=4, ignore_border=BORDER)


def boxes(c, names):
    """name -> (x, y, logical width, logical height, scale), from the compositor's layout."""
    outs = c.outputs()
    out = {}
    for n in names:
        r = outs[n]['rect']
        out[n] = (r['x'], r['y'], r['width'], r['height'], outs[n]['scale'])
    return out


def canvas_of(bx):
    x0 = min(b[0] for b in bx.values())
    y0 = min(b[1] for b in bx.values())
    x1 = max(b[0] + b[2] for b in bx.values())
    y1 = max(b[1] + b[3] for b in bx.values())
    return x0, y0, x1 - x0, y1 - y0


def sample(img, u, v):
    """Bilinear samples of img at frame coordinates u (per column) and v (per row)."""
    h, w = img.shape[:2]
    x = np.clip(u - 0.5, 0, w - 1)
    y = np.clip(v - 0.5, 0, h - 1)
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    x1 = np.minimum(x0 + 1, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    fx = (x - x0)[None, :, None]
    fy = (y - y0)[:, None, None]
    f = img.astype(np.float64)
    top = f[np.ix_(y0, x0)] * (1 - fx) + f[np.ix_(y0, x1)] * fx
    bottom = f[np.ix_(y1, x0)] * (1 - fx) + f[np.ix_(y1, x1)] * fx
    return top * (1 - fy) + bottom * fy


def expect(img, bx, name, mode, color=None):
    """
    What output name shows of img placed on the canvas of bx in mode (fill or fit): each
    physical pixel's centre taken to layout coordinates, then to the picture's.
    """
    cx, cy, cw, ch = canvas_of(bx)
    ih, iw = img.shape[:2]
    s = (max if mode == 'fill' else min)(cw / iw, ch / ih)
    px0, py0 = cx + (cw - iw * s) / 2, cy + (ch - ih * s) / 2
    ox, oy, lw, lh, k = bx[name]
    pw, ph = round(lw * k), round(lh * k)
    lx = ox + (np.arange(pw) + 0.5) / k
    ly = oy + (np.arange(ph) + 0.5) / k
    u, v = (lx - px0) / s, (ly - py0) / s
    out = sample(img, u, v)
    if color is not None:
        inside = ((u >= 0) & (u <= iw))[None, :] & ((v >= 0) & (v <= ih))[:, None]
        out[~inside] = vt.rgb(color)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def check_canvas(c, bx, names):
    cx, cy, cw, ch = canvas_of(bx)
    for n in names:
        span = c.veil(n).get('span')
        want = {'x': cx, 'y': cy, 'width': cw, 'height': ch}
        t.check(span == want, f'{n}: the status says span and the canvas {want}', str(span))


def check_seam(shots, bx, exp, left, right, label, tolerance=SCALED['tolerance']):
    """
    Where right's left edge touches left's right edge: the columns on both sides against the
    expected pictures with no border left out, and the step across the edge against the
    picture's own step there (two outputs each showing a picture of their own fail it).
    """
    lx, ly, lw, lh, lk = bx[left]
    rx, ry, rw, rh, rk = bx[right]
    if lx + lw != rx:
        raise vt.Failure(f'{left} and {right} do not touch')
    # The rows both show, but for the frame's own edges at the outputs' top and bottom.
    y0, y1 = max(ly, ry) + BORDER, min(ly + lh, ry + rh) - BORDER
    for n, k, oy, cols in ((left, lk, ly, slice(-3, None)), (right, rk, ry, slice(0, 3))):
        rows = slice(round((y0 - oy) * k), round((y1 - oy) * k))
        t.compare(shots[n][rows, cols], exp[n][rows, cols], f'{label}: {n} at the edge',
                  tolerance=tolerance, ignore_border=0, ignore_edges=2)
    # One sample per logical row on both sides: the last column left, the first right.
    rows = np.arange(y0, y1)
    li = np.floor((rows - ly + 0.5) * lk).astype(int)
    ri = np.floor((rows - ry + 0.5) * rk).astype(int)

    def step(imgs):
        return np.abs(imgs[left][li, -1].astype(int) - imgs[right][ri, 0].astype(int))
    got, want = step(shots), step(exp)
    # Rows next to a sharp edge of the picture (a quadrant's) are left out: the filters differ.
    col = exp[left][li, -1].astype(int)
    sharp = np.zeros(len(rows), bool)
    jumps = np.nonzero(np.abs(np.diff(col, axis=0)).max(axis=1) > 24)[0]
    for j in jumps:
        sharp[max(j - 3, 0):j + 5] = True
    bad = (np.abs(got - want).max(axis=1) > tolerance) & ~sharp
    t.check(int(bad.sum()) == 0, f'{label}: the picture goes on across the edge '
            f'({len(rows) - int(sharp.sum())} rows; mean step {got.mean():.1f}, '
            f'the picture\'s {want.mean():.1f})',
            f'{int(bad.sum())} rows step differently, first at layout y '
            f'{rows[np.argmax(bad)] if bad.any() else "-"}')


def check_all(c, names, label, mode='fill', color=None, img=pic_px, cmp=SCALED):
    bx = boxes(c, names)
    check_canvas(c, bx, names)
    shots, exp = {}, {}
    for n in names:
        shots[n] = c.settled_screenshot(n)
        exp[n] = expect(img, bx, n, mode, color)
        if not t.check(shots[n].shape == exp[n].shape, f'{label}: grim gives {n} at '
                       f'{exp[n].shape[1]}x{exp[n].shape[0]}', str(shots[n].shape)):
            return bx, None, None
        t.compare(shots[n], exp[n], f'{label}-{n}', **cmp)
    return bx, shots, exp


def wait_rect(c, name, x, y, w, h):
    def pred():
        r = c.outputs()[name]['rect']
        return (r['x'], r['y'], r['width'], r['height']) == (x, y, w, h)
    c.wait_until(pred, f'{name} at {x},{y} {w}x{h}')


with t.compositor(outputs=2) as c:

    with t.case('setup'):
        for cmd in (f'output {A} resolution 800x600', f'output {A} pos 0 0',
                    f'output {B} resolution 640x480', f'output {B} pos 800 0'):
            ok, err = c.msg(cmd)
            t.check(ok, cmd, err)
        wait_rect(c, A, 0, 0, 800, 600)
        wait_rect(c, B, 800, 0, 640, 480)

    with t.case('side by side'):
        ok, err = c.msg(f'output * veil {vt.quote(pic)} fill span')
        t.check(ok, '`output * veil pic fill span` accepted', err)
        for n in (A, B):
            c.wait_veil(n, 'shown', file=pic, mode='fill')
        bx, shots, exp = check_all(c, (A, B), 'side-by-side')
        if shots is not None:
            check_seam(shots, bx, exp, A, B, 'side-by-side')
        for n in (A, B):
            src = c.veil(n).get('source') or {}
            t.check(src.get('outputs') == 2, f'{n}: one source seen on 2 outputs', str(src))

    with t.case('without span each output has its own picture'):
        # The control: the same checks fail when the outputs do not span.
        ok, err = c.msg(f'output * veil {vt.quote(pic)} fill')
        t.check(ok, '`output * veil pic fill` accepted', err)
        c.wait_until(lambda: 'span' not in c.veil(A), 'the status of A without span')
        t.check('span' not in c.veil(B), 'no span in the status of B', str(c.veil(B)))
        bx = boxes(c, (A, B))
        shot = c.settled_screenshot(A)
        diff = np.abs(shot.astype(int) - expect(pic_px, bx, A, 'fill').astype(int)).max(axis=2)
        t.check((diff > SCALED['tolerance']).mean() > 0.2,
                'the canvas picture is not what an output shows alone',
                f'{(diff > SCALED["tolerance"]).mean():.3f} of the pixels differ')

    with t.case('sizes and a scale of 2'):
        ok, err = c.msg(f'output * veil {vt.quote(pic)} fill span transition fade 200')
        t.check(ok, '`... fill span transition fade 200` accepted', err)
        for cmd in (f'output {B} resolution 1280x960', f'output {B} scale 2'):
            ok, err = c.msg(cmd)
            t.check(ok, cmd, err)
        c.wait_mode(B, 1280, 960, scale=2)
        wait_rect(c, B, 800, 0, 640, 480)
        c.wait_until(lambda: c.veil(B).get('transition') is None, 'the fade to end')
        bx, shots, exp = check_all(c, (A, B), 'scale2')
        if shots is not None:
            check_seam(shots, bx, exp, A, B, 'scale2')

    with t.case('a gap between outputs, fit'):
        # Canvas 1800x600: fit scales 2 (180 columns of bars left and right), fill 2.5.
        ok, err = c.msg(f'output {B} pos 1160 100')
        t.check(ok, f'output {B} pos 1160 100', err)
        wait_rect(c, B, 1160, 100, 640, 480)
        ok, err = c.msg(f'output * veil {vt.quote(pic)} fit {BARS} span')
        t.check(ok, '`output * veil pic fit #303030 span` accepted', err)
        for n in (A, B):
            c.wait_veil(n, 'shown', mode='fit')
        check_all(c, (A, B), 'gap-fit', mode='fit', color=BARS)
        ok, err = c.msg(f'output * veil {vt.quote(pic)} fill span')
        t.check(ok, '`output * veil pic fill span` accepted', err)
        for n in (A, B):
            c.wait_veil(n, 'shown', mode='fill')
        check_all(c, (A, B), 'gap-fill')

    new = None
    with t.case('hotplug'):
        ok, err = c.msg(f'output {B} pos 800 0')
        t.check(ok, f'output {B} pos 800 0', err)
        wait_rect(c, B, 800, 0, 640, 480)
        before = set(c.outputs())
        ok, err = c.msg('create_output')
        t.check(ok, 'create_output', err)
        added = c.wait_until(lambda: set(c.outputs()) - before, 'a new output')
        new = sorted(added)[0]
        c.wait_mode(new, 1280, 720)
        c.wait_veil(new, 'shown', file=pic, mode='fill')
        bx = boxes(c, (A, B, new))
        cx, cy, cw, ch = canvas_of(bx)
        c.wait_until(lambda: (c.veil(A).get('span') or {}).get('width') == cw,
                     f'the canvas of {A} to grow to {cw}')
        # 2720x720: scaled 3.78, the edges inside frame pixels (see the top).
        check_all(c, (A, B, new), 'fractional', cmp=FRACTIONAL)
        # 2880x1040: scaled 4, 80 rows cropped above and below.
        ok, err = c.msg(f'output {new} resolution 1440x1040')
        t.check(ok, f'output {new} resolution 1440x1040', err)
        c.wait_mode(new, 1440, 1040)
        c.wait_until(lambda: (c.veil(A).get('span') or {}).get('width') == 2880,
                     f'the canvas of {A} to grow to 2880')
        bx, shots, exp = check_all(c, (A, B, new), 'hotplug')
        if shots is not None:
            check_seam(shots, bx, exp, A, B, 'hotplug')
            nx = bx[new][0]
            if nx == bx[B][0] + bx[B][2]:
                check_seam(shots, bx, exp, B, new, 'hotplug-new')
            else:
                vt._say(f'   {new} is at x {nx}, not touching {B}: no seam to check')

    with t.case('unplug'):
        if new is None:
            raise vt.Failure('no hotplugged output to unplug')
        ok, err = c.msg(f'output {new} unplug')
        t.check(ok, f'output {new} unplug', err)
        c.wait_until(lambda: new not in c.outputs(), f'{new} to go away')
        c.wait_until(lambda: (c.veil(A).get('span') or {}).get('width') == 1440,
                     f'the canvas of {A} back to 1440 wide')
        bx, shots, exp = check_all(c, (A, B), 'unplug')
        if shots is not None:
            check_seam(shots, bx, exp, A, B, 'unplug')

    with t.case('an output of its own leaves the canvas'):
        ok, err = c.msg(f'output {B} veil {BARS} solid_color')
        t.check(ok, f'output {B} veil {BARS} solid_color', err)
        c.wait_until(lambda: (c.veil(A).get('span') or {}).get('width') == 800,
                     f'the canvas of {A} shrinks to its own box')
        check_all(c, (A,), 'alone')

    with t.case('a video across two outputs'):
        for cmd in (f'output {B} scale 1', f'output {B} resolution 640x480'):
            ok, err = c.msg(cmd)
            t.check(ok, cmd, err)
        wait_rect(c, B, 800, 0, 640, 480)
        # `* off` clears B's own setting, so that both outputs use "*" again.
        ok, err = c.msg('output * veil off')
        t.check(ok, 'output * veil off', err)
        ok, err = c.msg(f'output * veil {vt.quote(clip)} fill span')
        t.check(ok, '`output * veil clip fill span` accepted', err)
        for n in (A, B):
            c.wait_veil(n, 'shown', file=clip)
        c.check_until(lambda: (c.veil(A).get('source') or {}).get('frames', 0) >= 10,
                      'the video plays')
        outs = c.outputs()
        sa, sb = outs[A]['veil'].get('source') or {}, outs[B]['veil'].get('source') or {}
        t.check(sa.get('pipeline') and sa.get('pipeline') == sb.get('pipeline'),
                'both outputs report the same pipeline', f'{sa} / {sb}')
        t.check(sa.get('outputs') == 2 and sb.get('outputs') == 2, '"outputs": 2 on both',
                f'{sa.get("outputs")} / {sb.get("outputs")}')
        # One source, one counter: one get_outputs reply gives both outputs the same numbers.
        t.check(sa.get('frames') == sb.get('frames') and sa.get('loops') == sb.get('loops'),
                'one decoded-frame counter for both', f'{sa} / {sb}')
        # Frames decoded at the clip's rate (15 fps), not twice it: one decode for two outputs.
        f0 = sa.get('frames', 0)
        start = time.monotonic()
        time.sleep(2.0)
        f1 = (c.veil(A).get('source') or {}).get('frames', 0)
        rate = (f1 - f0) / (time.monotonic() - start)
        t.check(8 <= rate <= 18, f'frames decoded at the clip\'s 15 fps ({rate:.1f} a second)',
                f'{f0} -> {f1}')
        # Paused, so that screenshots settle: the lossy frames of a still differ a little.
        ok, err = c.msg('output * veil pause')
        t.check(ok, 'output * veil pause', err)
        for n in (A, B):
            c.wait_veil(n, 'paused')
        first = vt.read_image(clip)
        bx, shots, exp = check_all(c, (A, B), 'video', img=first, cmp=VIDEO)
        if shots is not None:
            check_seam(shots, bx, exp, A, B, 'video', tolerance=VIDEO['tolerance'])

    with t.case('exit command'):
        c.stop(method='exit')

t.finish()
