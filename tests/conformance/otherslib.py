"""
Animations and videos other programs wrote, for test-others-anim.py and test-others-video.py:
the files Debian's packages ship (fetched by apt at test time through debfiles.py, only the
files used extracted), copied into a test's media directory (the compositor may run as another
user), and their frames as independent decoders give them: ImageMagick for GIF and TIFF
(its own GIF reader; veil's is giflib), ffmpeg for APNG and WebP (its own apng and webp_anim
decoders; veil's are libpng and libwebp) and for videos (its own decoders; veil's are
GStreamer's). on_black() and psnr8() serve test-screenshots.py too.
"""
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import veiltest as vt  # noqa: E402
from veiltest import debfiles  # noqa: E402

# (package, member): small files from packages that ship them for their own use.
TIFF = ('r-cran-tiff', 'usr/lib/R/site-library/tiff/img/Rlogo.tiff')
GIF = ('python-kivy-examples',
       'usr/share/kivy-examples/widgets/sequenced_images/data/images/'
       'simple_cv_joint_animated.gif')
WEBP = ('kdenlive-data', 'usr/share/kdenlive/transitions/previews/dissolve.webp')
WEBM = ('gnome-user-docs', 'usr/share/help/C/gnome-help/figures/display-dual-monitors.webm')
MP4 = ('flowblade', 'usr/share/flowblade/Flowblade/res/gpu-test/gpu_test_clip.mp4')

# What test-conformance.py and test-screenshots.py take for a picture shown right.
THRESHOLD_DB = 30.0


def run(args, input=None, timeout=120):
    r = subprocess.run(args, input=input, capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise vt.Failure(f'{" ".join(args)}: {r.stderr.decode(errors="replace")[:500]}')
    return r.stdout


def fetch(t, package_member):
    """The package's file, copied into t's media (readable by all); its path."""
    package, member = package_member
    path = os.path.join(t.media, os.path.basename(member))
    shutil.copyfile(debfiles.path(package, member), path)
    os.chmod(path, 0o644)
    return path


def cut(t, path, fraction=None, length=None):
    """A copy of path cut to fraction of its length (or to length bytes), named truncated-NAME."""
    with open(path, 'rb') as f:
        data = f.read()
    out = os.path.join(t.media, 'truncated-' + os.path.basename(path))
    with open(out, 'wb') as f:
        f.write(data[:length if length is not None else int(len(data) * fraction)])
    os.chmod(out, 0o644)
    return out


def magick_frames(path):
    """
    ImageMagick's frames of path as composed for display (-coalesce), as HxWx4 float arrays
    from 0 to 1 (straight alpha), and each frame's delay in seconds (%T, in 1/100 s).
    """
    w, h = (int(v) for v in run(['magick', 'identify', '-format', '%W %H\n', path])
            .decode().split('\n')[0].split())
    delays = [int(v) / 100.0 for v in
              run(['magick', 'identify', '-format', '%T\n', path]).decode().split()]
    raw = run(['magick', path, '-coalesce', '+repage', '-depth', '8', 'RGBA:-'])
    n = len(raw) // (w * h * 4)
    if n != len(delays) or n * w * h * 4 != len(raw):
        raise vt.Failure(f'{path}: ImageMagick gave {len(raw)} bytes for {len(delays)} frames '
                         f'of {w}x{h}')
    px = np.frombuffer(raw, np.uint8).reshape(n, h, w, 4).astype(np.float64) / 255.0
    return list(px), delays


def start_time(path):
    """The file's first timestamp in seconds (ffprobe's start_time: 0.54 for an MPEG PS)."""
    out = run(['ffprobe', '-v', 'error', '-show_entries', 'format=start_time', '-of',
               'csv=p=0', path]).decode().strip()
    return float(out) if out not in ('', 'N/A') else 0.0


def first_packet(path):
    """(offset, size) in the file of its first video packet."""
    out = run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-read_intervals', '%+#1',
               '-show_entries', 'packet=pos,size', '-of', 'csv=p=0', path]).decode()
    pos, size = out.split()[0].split(',')[:2]
    return int(pos), int(size)


def ffmpeg_frames(path):
    """
    ffmpeg's frames of path (every one, no frame dropped or doubled), as HxWx4 float arrays
    from 0 to 1.
    """
    w, h = vt.image_size(path)
    raw = run(['ffmpeg', '-v', 'error', '-nostdin', '-i', path, '-fps_mode', 'passthrough',
               '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'])
    n = len(raw) // (w * h * 4)
    px = np.frombuffer(raw[:n * w * h * 4], np.uint8).reshape(n, h, w, 4)
    return list(px.astype(np.float64) / 255.0)


def ffprobe_durations(path):
    """Each frame's duration in seconds, as ffprobe reads the file."""
    out = run(['ffprobe', '-v', 'error', '-show_entries', 'frame=duration_time', '-of',
               'csv=p=0', path]).decode()
    return [float(v) for v in out.split()]


def ffmpeg_centred(path, w, h, start, seconds):
    """
    ffmpeg's frames of a video from start (seconds from the file's beginning) for seconds, each
    as it shows centred on a black w x h output (8-bit RGB), and the picture's part of the
    screen (y, x slices), as on_black() gives them.
    """
    fw, fh = vt.image_size(path)
    raw = run(['ffmpeg', '-v', 'error', '-nostdin', '-ss', f'{max(0.0, start):.3f}', '-i', path,
               '-t', f'{seconds:.3f}', '-fps_mode', 'passthrough', '-vf',
               f'format=rgb24,crop=min(iw\\,{w}):min(ih\\,{h}),'
               f'pad={w}:{h}:{max(0, (w - fw) // 2)}:{max(0, (h - fh) // 2)}:black',
               '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'])
    n = len(raw) // (w * h * 3)
    frames = list(np.frombuffer(raw[:n * w * h * 3], np.uint8).reshape(n, h, w, 3))
    _, area = on_black(np.zeros((fh, fw, 4)), w, h)
    return frames, area


def magick_iterations(path):
    """The file's loop count as ImageMagick reads it (0: for ever)."""
    out = run(['magick', 'identify', '-verbose', path + '[0]']).decode()
    for line in out.splitlines():
        if line.strip().startswith('Iterations:'):
            return int(line.split(':')[1])
    raise vt.Failure(f'ImageMagick says no loop count for {path}')


def on_black(rgba, w, h):
    """
    A frame as it shows centred on a black w x h output (`center #000000`), as 8-bit RGB, and
    the frame's part of the screen (y, x slices).
    """
    fh, fw = rgba.shape[:2]
    rgb = rgba[:, :, :3] * rgba[:, :, 3:]
    canvas = np.zeros((h, w, 3))
    x, y = (w - fw) // 2, (h - fh) // 2
    sx, sy = max(0, -x), max(0, -y)
    dx, dy = max(0, x), max(0, y)
    cw, ch = min(fw - sx, w - dx), min(fh - sy, h - dy)
    canvas[dy:dy + ch, dx:dx + cw] = rgb[sy:sy + ch, sx:sx + cw]
    area = (slice(dy, dy + ch), slice(dx, dx + cw))
    return np.clip(np.round(canvas * 255), 0, 255).astype(np.uint8), area


def psnr8(a, b):
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return float('inf') if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def match(shot, refs, area):
    """
    (index, dB) of the reference frame (on_black pictures) closest to the screenshot over
    area, allowing veil's centring a pixel off either way (tried for the three frames
    closest unmoved).
    """
    ys, xs = area

    def at(i, dy, dx):
        got = shot[ys.start + dy:ys.stop + dy, xs.start + dx:xs.stop + dx]
        want = refs[i][area]
        return psnr8(got, want) if got.shape == want.shape else -1.0
    unmoved = sorted(range(len(refs)), key=lambda i: -at(i, 0, 0))[:3]
    return max(((i, at(i, dy, dx)) for i in unmoved for dy in (-1, 0, 1) for dx in (-1, 0, 1)),
               key=lambda r: r[1])
