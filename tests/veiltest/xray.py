"""
veiltest.xray: what the sway and labwc xray tests share (tests/sway/test-sway-xray.py,
tests/labwc/test-labwc-xray.py): a wallpaper of sharp squares, ImageMagick's blur of it as the
reference, the blend of a window's colour over a background, and a wait for a box of the output
to show an expected blend.

veil's blur: `blur <px>` is the Gaussian's standard deviation in logical pixels (as CSS's
blur()), 20 when not given (include/veil/veil.h): ImageMagick's `-blur 0x20`.
"""
import os
import shutil
import subprocess
import time

import numpy as np

import veiltest as vt

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
