"""
veiltest.xray: what the sway and labwc xray tests share (tests/sway/test-sway-xray.py,
tests/labwc/test-labwc-xray.py): a wallpaper of sharp squares, ImageMagick's blur of it as the
reference, the blend of a window's colour over a background, a wait for a box of the output to
show an expected blend, and moves recorded frame by frame.

veil's blur: `blur <px>` is the Gaussian's standard deviation in logical pixels (as CSS's
blur()), 20 when not given (include/veil/veil.h): ImageMagick's `-blur 0x20`.
"""
import os
import shutil
import subprocess
import time

import numpy as np

import veiltest as vt
from veiltest import ws as wslib

OUT = 'HEADLESS-1'
SIGMA = 20
# The blend of a window's colour with a background: the blur's own error (PSNR >= 35 dB, about
# 4.5 levels RMS) halved, pixman's rounding of the blend.
BLEND = dict(tolerance=8, mean_tolerance=2.0, ignore_border=2)


def squares(path, seed, size=32, width=1280, height=720):
    """A picture of sharp squares of random colours at the output's size; returns its pixels."""
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 256, (height // size + 1, width // size + 1, 3), dtype=np.uint8)
    img = np.repeat(np.repeat(cells, size, axis=0), size, axis=1)[:height, :width]
    vt.write_png(path, np.ascontiguousarray(img))
    return img


def magick_blur(t, src, sigma):
    """ImageMagick's Gaussian blur of src (`-blur 0x<sigma>`), as pixels."""
    out = os.path.splitext(src)[0] + f'-blur-{sigma:g}.png'
    magick = shutil.which('magick') or shutil.which('convert')
    r = subprocess.run([magick, src, '-blur', f'0x{sigma:g}', '-depth', '8', 'PNG24:' + out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise vt.Failure(f'ImageMagick could not blur {src}: {r.stderr.strip()}')
    return vt.read_image(out)


def blend(colour, background, alpha=0.5):
    """colour at opacity alpha over background (pixels), rounded."""
    c = np.array(colour, np.float64)
    return np.clip(np.rint(alpha * c + (1 - alpha) * background.astype(np.float64)),
                   0, 255).astype(np.uint8)


def crop(img, box):
    x, y, w, h = box
    return img[y:y + h, x:x + w]


def mean_error(a, b):
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2).mean())


def wait_box(t, c, box, expected, label, timeout=vt.WAIT_TIMEOUT, output=OUT):
    """
    Screenshots until the box shows expected within BLEND's mean (the blur is made on veil's
    workers: it lands a few frames after the command), then compares the last one for the
    record. Returns the screenshot.
    """
    deadline = time.monotonic() + timeout
    while True:
        shot = c.screenshot(output)
        if mean_error(crop(shot, box), expected) <= BLEND['mean_tolerance'] or \
                time.monotonic() > deadline:
            break
        time.sleep(0.1)
    t.compare(crop(shot, box), expected, label, **BLEND)
    return shot


def settled_blurs(status, quiet=1.0, timeout=30.0):
    """The blur count of status() (an output's xray status) once it has not moved for quiet s."""
    end = time.monotonic() + timeout
    count, since = status().get('blurs'), time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.1)
        now = status().get('blurs')
        if now != count:
            count, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return count
    raise TimeoutError(f'the xray blur count still moved after {timeout:.0f} s')


def best_shift(under, blurred, box, reach=3, inset=4):
    """
    Where the blurred patch is: under is the background recovered over box (x, y, w, h) of the
    output (float pixels, box's size), blurred the reference of the whole output. Returns the
    shift (dx, dy), each within reach, at which blurred matches under best inside box (inset
    pixels in from its edges), and {shift: mean absolute error over the channels}. A patch in
    its place is best at (0, 0); one whose source box a renderer rounded, 1 or 2 pixels off.
    """
    x, y, w, h = box
    inner = under[inset:h - inset, inset:w - inset].astype(np.float64)
    errors = {}
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            y0, x0 = y + inset + dy, x + inset + dx
            ref = blurred[y0:y0 + h - 2 * inset, x0:x0 + w - 2 * inset].astype(np.float64)
            errors[(dx, dy)] = float(np.abs(inner - ref).mean())
    return min(errors, key=errors.get), errors


def best_point(box, wall, blurred, inset=20):
    """The point of box (inset) where the wallpaper and its blur differ most."""
    x, y, w, h = box
    d = np.abs(wall.astype(np.int16) - blurred.astype(np.int16)).max(axis=2)
    sub = d[y + inset:y + h - inset, x + inset:x + w - inset]
    j, i = np.unravel_index(int(np.argmax(sub)), sub.shape)
    return x + inset + int(i), y + inset + int(j)


def recorded_moves(t, c, frame_record, log_path, places, window_over, wall, blurred, move,
                   set_xray, moves=12, tolerance=12):
    """
    The window moved between two places (move(i) takes it to places[i], by the compositor's
    IPC or a key), every frame of the output recorded (tests/tools/frame-record) at a point of
    each place: each frame must show, at each point, either the window over the blurred
    wallpaper or the plain wallpaper; never the window over the plain wallpaper (the patch late)
    nor the blurred wallpaper alone (the patch left behind). window_over(pixels) is what the
    window shows over a background. The control: set_xray(False), two moves must show the window
    over the plain wallpaper, then set_xray(True). The window starts at places[0]; returns the
    index of the place it ends at.
    """
    points = [best_point(b, wall, blurred) for b in places]
    classes = []
    for x, y in points:
        cls = {'window': window_over(blurred[y, x][None, None])[0, 0],
               'wallpaper': wall[y, x],
               'window over the plain wallpaper': window_over(wall[y, x][None, None])[0, 0],
               'blurred wallpaper alone': blurred[y, x]}
        classes.append(cls)
        vals = list(cls.values())
        gap = min(int(np.abs(a.astype(np.int16) - b.astype(np.int16)).max())
                  for i, a in enumerate(vals) for b in vals[i + 1:])
        t.check(gap > 2 * tolerance, f'at {x},{y} the four pictures are told apart '
                f'(closest {gap} levels apart)', str({k: vt.px(v) for k, v in cls.items()}))

    def classify(i, colour):
        colour = np.array(colour, np.int16)
        for name, want in classes[i].items():
            if int(np.abs(colour - want.astype(np.int16)).max()) <= tolerance:
                return name
        return 'other'

    rec = wslib.Recorder(frame_record, c.client_env, points, log_path)
    try:
        rec.wait_ready()
        at = 0

        def step(k, want):
            nonlocal at
            at = 1 - at
            since = rec.count()
            move(at)
            if rec.wait_for(lambda f, at=at: classify(at, f[4][at]) == want, since,
                            vt.WAIT_TIMEOUT) is None:
                raise vt.Failure(f'move {k + 1}: no recorded frame shows the {want} at '
                                 f'{points[at]}')
            time.sleep(0.1)

        for k in range(moves):
            step(k, 'window')
        # The control: with xray off, the classes see the window over the plain wallpaper.
        control = rec.count()
        set_xray(False)
        for k in range(2):
            step(moves + k, 'window over the plain wallpaper')
        set_xray(True)
    finally:
        rec.stop()
    with rec.lock:
        frames = list(rec.frames[:control])
        late = sum(1 for f in rec.frames[control:]
                   if 'window over the plain wallpaper' in
                   (classify(0, f[4][0]), classify(1, f[4][1])))
    t.check(late >= 2, 'the control: with xray off, the frames of two moves show the window '
            'over the plain wallpaper, which the check below refuses', f'{late} frames')
    bad = []
    seen = set()
    for f in frames:
        names = tuple(classify(i, f[4][i]) for i in range(2))
        seen.add(names)
        if sorted(names) != ['wallpaper', 'window']:
            bad.append((f[0], names))
    blind = (rec.end or {}).get('blind', -1)
    print(f'# moves: {len(frames)} frames recorded, {blind} possibly missed, kinds '
          f'{sorted(seen)}', flush=True)
    t.check(len(frames) >= moves, f'{moves} moves recorded ({len(frames)} frames)')
    t.check(not bad, 'every recorded frame shows the window over the blurred wallpaper at one '
            'place and the plain wallpaper at the other', str(bad[:10]))
    return at
