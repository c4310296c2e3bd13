#!/usr/bin/env python3
"""
clips.py: makes the reference media of the measurements with ffmpeg, the way veil's client
daemon did (testsrc2: every frame differs; 10 s per clip, so a 60 s run loops six times).

    tools/devroot python3 tests/bench/clips.py [--out DIR] [--set reference|soak|all] [--force]

DIR defaults to build-bench/bench/clips. A file that exists is kept (--force makes it again);
a codec this ffmpeg cannot encode is skipped with a message, not an error. Prints one line per
file: name, codec, size, rate, duration, bytes.

Reference set (bench, compare):
    h264-1080p30.mp4   H.264 High, libx264 CRF 23, 1920x1080, 30 fps
    h264-1080p60.mp4   H.264 High, 1920x1080, 60 fps
    h264-2160p30.mp4   H.264 High, 3840x2160, 30 fps
    hevc-1080p60.mp4   HEVC Main, libx265 CRF 26, 1920x1080, 60 fps
    hevc-2160p30.mp4   HEVC Main, 3840x2160, 30 fps (memory.py: issue 40's 4K30 HEVC)
    vp9-1080p60.webm   VP9 profile 0, libvpx-vp9 4 Mbit/s, 1920x1080, 60 fps
    av1-1080p30.mkv    AV1, libsvtav1 CRF 35 (else libaom-av1), 1920x1080, 30 fps
    still-1080p.png    PNG, testsrc2's first frame, 1920x1080
    still-1080p-b.png  the same frame negated (every pixel differs: the second picture of the
                       switch measurements)
    still-2160p.png    PNG, 3840x2160
    h264-360p30.mp4    H.264 High, 640x360, 30 fps (video-isolate.py --renderer import: small
                       enough that the importing renderer's conversion on the CPU leaves the
                       compositor room)
Soak set (soak.py), as the client daemon's soaks had them:
    loop-1s-1080p30.mp4        H.264, 1 s at 30 fps: loops once a second
    soak-a-1280x960.mp4        H.264 1280x960, 3 s, 30 fps (video A of the switch soak)
    soak-b-2560x1080.webm      VP9 2560x1080, 3 s, 30 fps (video B)
    soak-a.png, soak-b.png     two 1920x1080 PNGs (images A and B)
Stall set (stall.py): photos of uniform noise around one colour each (so that a picture on the
screen is told by the mean colour of a region, whatever the scaler), and a video:
    noise-6000x4000.png        PNG rgb24, noise of +-40 around #3c6e9a
    noise-6000x4000.jpg        JPEG 4:2:0 (q 2), noise around #9a6e3c
    noise-3840x2160.jpg        JPEG, noise around #6e9a3c
    noise-1920x1080.png        PNG, noise around #8c3c9a
    hevc-1080p30.mp4           HEVC Main, 1920x1080, 30 fps, 5 s
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: (kind, width, height, rate, seconds, encoder choices [(encoder, args)])
X264 = [('libx264', ['-c:v', 'libx264', '-profile:v', 'high', '-preset', 'medium',
                     '-crf', '23', '-pix_fmt', 'yuv420p'])]
X265 = [('libx265', ['-c:v', 'libx265', '-preset', 'medium', '-crf', '26', '-pix_fmt',
                     'yuv420p', '-tag:v', 'hvc1', '-x265-params', 'log-level=error'])]
VP9 = [('libvpx-vp9', ['-c:v', 'libvpx-vp9', '-b:v', '4M', '-deadline', 'good',
                       '-cpu-used', '4', '-row-mt', '1', '-pix_fmt', 'yuv420p'])]
AV1 = [('libsvtav1', ['-c:v', 'libsvtav1', '-crf', '35', '-preset', '8', '-pix_fmt',
                      'yuv420p']),
       ('libaom-av1', ['-c:v', 'libaom-av1', '-crf', '35', '-cpu-used', '6', '-row-mt', '1',
                       '-pix_fmt', 'yuv420p'])]

REFERENCE = {
    'h264-1080p30.mp4': ('video', 1920, 1080, 30, 10, X264),
    'h264-1080p60.mp4': ('video', 1920, 1080, 60, 10, X264),
    'h264-2160p30.mp4': ('video', 3840, 2160, 30, 10, X264),
    'hevc-1080p60.mp4': ('video', 1920, 1080, 60, 10, X265),
    'hevc-2160p30.mp4': ('video', 3840, 2160, 30, 10, X265),
    'vp9-1080p60.webm': ('video', 1920, 1080, 60, 10, VP9),
    'av1-1080p30.mkv': ('video', 1920, 1080, 30, 10, AV1),
    'still-1080p.png': ('still', 1920, 1080, None, None, None),
    'still-1080p-b.png': ('still-negated', 1920, 1080, None, None, None),
    'still-2160p.png': ('still', 3840, 2160, None, None, None),
    'h264-360p30.mp4': ('video', 640, 360, 30, 10, X264),
}

SOAK = {
    'loop-1s-1080p30.mp4': ('video', 1920, 1080, 30, 1, X264),
    'soak-a-1280x960.mp4': ('video', 1280, 960, 30, 3, X264),
    'soak-b-2560x1080.webm': ('video', 2560, 1080, 30, 3, VP9),
    'soak-a.png': ('still', 1920, 1080, None, None, None),
    'soak-b.png': ('still-negated', 1920, 1080, None, None, None),
}

# The colour each noisy photo is made around (stall.py tells them on the screen by it).
NOISE_BASE = {
    'noise-6000x4000.png': (0x3c, 0x6e, 0x9a),
    'noise-6000x4000.jpg': (0x9a, 0x6e, 0x3c),
    'noise-3840x2160.jpg': (0x6e, 0x9a, 0x3c),
    'noise-1920x1080.png': (0x8c, 0x3c, 0x9a),
}

STALL = {
    'noise-6000x4000.png': ('noise', 6000, 4000, None, None, None),
    'noise-6000x4000.jpg': ('noise', 6000, 4000, None, None, None),
    'noise-3840x2160.jpg': ('noise', 3840, 2160, None, None, None),
    'noise-1920x1080.png': ('noise', 1920, 1080, None, None, None),
    'hevc-1080p30.mp4': ('video', 1920, 1080, 30, 5, X265),
}

SETS = {'reference': REFERENCE, 'soak': SOAK, 'stall': STALL,
        'all': {**REFERENCE, **SOAK, **STALL}}


def encoders():
    r = subprocess.run(['ffmpeg', '-hide_banner', '-encoders'], capture_output=True, text=True)
    names = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[0]) == 6:
            names.add(parts[1])
    return names


def make(path, spec, available):
    kind, w, h, rate, seconds, choices = spec
    src = f'testsrc2=size={w}x{h}'
    # Made under a name of this process's, then renamed: two runs making the same file at once
    # (two builds' tests sharing a cache) each put a whole file in place.
    tmp = f'{path}.part{os.getpid()}{os.path.splitext(path)[1]}'
    if kind == 'noise':
        # Uniform noise on every channel (rgb24 straight from the generator: geq draws each
        # pixel from its own random numbers), +-40 around the file's colour.
        r, g, b = NOISE_BASE[os.path.basename(path)]
        expr = ':'.join(f'{c}=clip({v}+80*(random(0)-0.5)\\,0\\,255)'
                        for c, v in (('r', r), ('g', g), ('b', b)))
        if path.endswith('.png'):
            out = ['-pix_fmt', 'rgb24', '-c:v', 'png']
        else:
            out = ['-pix_fmt', 'yuvj420p', '-c:v', 'mjpeg', '-q:v', '2']
        args = ['-f', 'lavfi', '-i', f'nullsrc=size={w}x{h}:rate=1', '-vf',
                f'format=gbrp,geq={expr}', '-frames:v', '1'] + out + ['-f', 'image2', tmp]
        how = 'noise'
    elif kind.startswith('still'):
        vf = ['-vf', 'negate'] if kind == 'still-negated' else []
        args = ['-f', 'lavfi', '-i', f'{src}:rate=1'] + vf + [
            '-frames:v', '1', '-pix_fmt', 'rgb24', '-c:v', 'png', '-f', 'image2', tmp]
        how = 'png'
    else:
        usable = [(enc, a) for enc, a in choices if enc in available]
        if not usable:
            return None, 'no encoder among ' + ', '.join(e for e, _ in choices)
        how, enc_args = usable[0]
        # A key frame every 2 s as players usually get; no audio.
        args = ['-f', 'lavfi', '-i', f'{src}:rate={rate}', '-t', str(seconds), '-an',
                '-g', str(2 * rate)] + enc_args + [tmp]
    r = subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y'] + args,
                       capture_output=True, text=True)
    if r.returncode != 0:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return None, f'ffmpeg failed: {r.stderr.strip()[-400:]}'
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return how, None


def probe(path):
    r = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                        'stream=codec_name,profile,width,height,avg_frame_rate:format=duration',
                        '-of', 'default=nw=1', path], capture_output=True, text=True)
    info = {}
    for line in r.stdout.splitlines():
        k, _, v = line.partition('=')
        info[k] = v
    return info


def ensure(out, names=None, which='all', force=False, quiet=False):
    """Makes the files of a set (or the named ones) in out; returns {name: path}."""
    if shutil.which('ffmpeg') is None:
        raise RuntimeError('ffmpeg is missing (run inside tools/devroot)')
    os.makedirs(out, exist_ok=True)
    wanted = SETS[which] if names is None else {n: SETS['all'][n] for n in names}
    available = None
    paths = {}
    for name, spec in wanted.items():
        path = os.path.join(out, name)
        if force or not os.path.exists(path):
            if available is None:
                available = encoders()
            how, err = make(path, spec, available)
            if err:
                print(f'{name}: skipped: {err}', flush=True)
                continue
        paths[name] = path
        if not quiet:
            i = probe(path)
            print(f'{name}: {i.get("codec_name")} {i.get("profile", "")} '
                  f'{i.get("width")}x{i.get("height")} {i.get("avg_frame_rate")} fps '
                  f'{i.get("duration", "")} s, {os.path.getsize(path)} bytes', flush=True)
    return paths


def main():
    p = argparse.ArgumentParser(description='Makes the reference media of the measurements.')
    p.add_argument('--out', default=os.path.join(ROOT, 'build-bench', 'bench', 'clips'))
    p.add_argument('--set', choices=sorted(SETS), default='all')
    p.add_argument('--force', action='store_true', help='make existing files again')
    p.add_argument('names', nargs='*', help='only these files')
    a = p.parse_args()
    try:
        ensure(os.path.abspath(a.out), a.names or None, a.set, a.force)
    except (RuntimeError, KeyError) as e:
        print(f'clips: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
