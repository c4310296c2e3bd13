"""
veiltest.load: what the tests of wallpapers that take long to load share (test-no-stall.py,
test-supersede.py, test-late-errors.py).

- Media: the bench's noisy photos and HEVC clip (tests/bench/clips.py, set 'stall'), made
  once in build-media/ beside the build directories (media_dir()) and kept for the next run
  and the other builds. Each photo is uniform noise around a colour of its own
  (clips.NOISE_BASE), so what the screen shows is told from the colour of blocks of it,
  computed without veil's scaler.
- The compositor's IPC on a raw connection (veiltest.ipc.Ipc): a command's own round trip, and
  the GET_VERSION probe of stall.py (stall.Probe).
- Screens told apart: the solid colour shown before ('old'), a noisy photo ('new'), anything
  else ('other': black, empty, half drawn).
"""

import hashlib
import os
import subprocess
import sys

import numpy as np

from veiltest import bench as bl

# The bench's media and its probe: programs of tests/bench, imported as modules.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'bench'))
import clips  # noqa: E402
import stall  # noqa: E402

OLD = stall.BASE            # the solid colour shown before the photos
OLD_TEXT = stall.BASE_TEXT
BLOCK = 64
# A block's mean against the photo's colour: the noise (+-40) averages out over a block far
# below this; JPEG's 4:2:0 rounding and any scaler stay well inside it.
PHOTO_TOLERANCE = 12.0
# The solid colour as pixman fills it: exact, a little room for nothing in particular.
SOLID_TOLERANCE = 3

Probe = stall.Probe
Ipc = bl.Ipc


def media_dir(outdir):
    """
    Where the stall set is kept: build-media/stall-KEY beside the build directory that holds
    outdir (the build root's parent), so that every build of a checkout (CI's three) makes it
    once; KEY is a hash of the set's parameters and ffmpeg's version, so a change to either
    makes it again. Outside a meson build: <outdir's parent>/stall-media, as before.
    """
    root = outdir
    while not os.path.isdir(os.path.join(root, 'meson-private')):
        if os.path.dirname(root) == root:
            return os.path.join(os.path.dirname(outdir), 'stall-media')
        root = os.path.dirname(root)
    version = subprocess.run(['ffmpeg', '-version'], capture_output=True, text=True)
    key = hashlib.sha256(repr((sorted(clips.STALL.items()), sorted(clips.NOISE_BASE.items()),
                               version.stdout.split('\n', 1)[0])).encode()).hexdigest()
    return os.path.join(os.path.dirname(root), 'build-media', 'stall-' + key[:12])


def media(t, names):
    """{name: path} of the stall set's files (made once per checkout: media_dir())."""
    paths = clips.ensure(media_dir(t.outdir), names, quiet=True)
    missing = [n for n in names if n not in paths]
    if missing:
        raise RuntimeError(f'cannot make {", ".join(missing)}')
    return paths


def colour_of(path):
    return clips.NOISE_BASE[os.path.basename(path)]


def block_means(img):
    h, w = img.shape[:2]
    h, w = h - h % BLOCK, w - w % BLOCK
    b = img[:h, :w].astype(np.float64).reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK, 3)
    return b.mean(axis=(1, 3))


def is_solid(img, colour):
    return int(np.abs(img.astype(np.int16) - np.array(colour, np.int16)).max()) <= \
        SOLID_TOLERANCE


def is_photo(img, colour):
    """Every block of the screen has the photo's colour: it fills the output, nothing else."""
    return float(np.abs(block_means(img) - np.array(colour)).max()) < PHOTO_TOLERANCE


def describe(img):
    m = block_means(img)
    return (f'mean {img.reshape(-1, 3).mean(axis=0).round(1).tolist()}, block means from '
            f'{m.reshape(-1, 3).min(axis=0).round(1).tolist()} to '
            f'{m.reshape(-1, 3).max(axis=0).round(1).tolist()}')


def classify(img, photos):
    """'old', the name of the photo in photos ({name: colour}) it shows, or 'other'."""
    if is_solid(img, OLD):
        return 'old'
    for name, colour in photos.items():
        if is_photo(img, colour):
            return name
    return 'other'
