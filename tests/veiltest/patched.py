"""
veiltest.patched: what the sway and labwc tests share to build a compositor with veil's patch
series.

Both unpack an upstream source (../shared/sources), apply a series with `patch -p1`, build it
with meson against the libveil of this build directory (its uninstalled pkg-config file) with
the same sanitizers, and keep the source and the build in a work directory with a stamp of what
made them: a rerun with the same series, source and options only runs ninja. A failure while
setting up ends the test at once ('0 passed, 1 failed'): these tests never skip.
"""
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import veiltest as vt

BUILD_TIMEOUT = 1800


def say(*args):
    print(*args, flush=True)


def fail_setup(what, detail=''):
    say(f'FAIL: {what}' + (f'\n{detail}' if detail else ''))
    say('0 passed, 1 failed')
    sys.exit(1)


def run_logged(argv, log_path, cwd=None, env=None, timeout=BUILD_TIMEOUT):
    """Runs argv with its output in log_path; returns (exit status, the log's tail)."""
    say(f'# {shlex.join(argv)} (log {log_path})')
    with open(log_path, 'ab') as log:
        log.write(f'$ {shlex.join(argv)}\n'.encode())
        log.flush()
        try:
            r = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log,
                               stderr=subprocess.STDOUT, timeout=timeout)
            rc = r.returncode
        except subprocess.TimeoutExpired:
            rc = 'timeout'
        except OSError as e:
            log.write(f'{e}\n'.encode())
            rc = str(e)
    return rc, vt._tail(log_path, 30)


def sanitizers(text):
    """The sanitizer names in meson's b_sanitize value, as a string or as a list."""
    return [w for w in re.findall(r'[a-z]+', text or '') if w != 'none']


def file_digest(path):
    """The SHA-256 of a file's bytes (a tarball's, for the stamp)."""
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.digest()


def build_patched(name, args, src, log, source_digest, unpack, options, key_extra=b''):
    """
    Builds compositor `name` with the series of args.series (the patches its `series` file
    lists, in order) in args.workdir/build; returns that build directory.

    src is where the patched source goes (in args.workdir); source_digest identifies the
    upstream source; unpack(src, log) puts a fresh copy of it in src and returns what a patch
    that does not apply is said not to apply to. options are the compositor's meson options;
    b_sanitize (and b_lundef=false) follow args.sanitize. key_extra is added to the stamp's key
    after the series, the source, args.veil_build and the sanitizers. The build's output goes
    to log.
    """
    series_dir = os.path.abspath(args.series)
    with open(os.path.join(series_dir, 'series')) as f:
        patches = [line.strip() for line in f
                   if line.strip() and not line.lstrip().startswith('#')]
    if not patches:
        fail_setup(f'{series_dir}/series lists no patch')
    san = sanitizers(args.sanitize)

    key = hashlib.sha256()
    for p in patches:
        with open(os.path.join(series_dir, p), 'rb') as f:
            key.update(p.encode() + b'\0' + f.read())
    key.update(source_digest)
    key.update(os.path.abspath(args.veil_build).encode() + ','.join(san).encode() + key_extra)
    key = key.hexdigest()

    work = os.path.abspath(args.workdir)
    build = os.path.join(work, 'build')
    stamp = os.path.join(work, 'stamp')
    try:
        with open(stamp) as f:
            fresh = f.read().strip() != key or not os.path.isfile(
                os.path.join(build, 'build.ninja'))
    except OSError:
        fresh = True

    if fresh:
        for d in (src, build):
            shutil.rmtree(d, ignore_errors=True)
        if os.path.exists(stamp):
            os.unlink(stamp)
        what = unpack(src, log)
        for p in patches:
            rc, tail = run_logged(['patch', '-p1', '--batch', '--forward', '-i',
                                   os.path.join(series_dir, p)], log, cwd=src, timeout=120)
            if rc != 0:
                fail_setup(f'{p} does not apply to {what}', tail)
        env = dict(os.environ)
        uninstalled = os.path.join(os.path.abspath(args.veil_build), 'meson-uninstalled')
        env['PKG_CONFIG_PATH'] = os.pathsep.join(
            [uninstalled] + [p for p in env.get('PKG_CONFIG_PATH', '').split(os.pathsep) if p])
        options = list(options)
        if san:
            # libveil then has the sanitizers' symbols undefined: the compositor links their
            # runtimes.
            options += [f'-Db_sanitize={",".join(san)}', '-Db_lundef=false']
        rc, tail = run_logged(['meson', 'setup', build, src] + options, log, env=env)
        if rc != 0:
            fail_setup(f'meson setup of the patched {name} failed', tail)
    else:
        say(f'# reusing the patched {name} in {src}')
    rc, tail = run_logged(['ninja', '-C', build], log)
    if rc != 0:
        fail_setup(f'building the patched {name} failed', tail)
    with open(stamp, 'w') as f:
        f.write(key + '\n')
    return build


def is_solid(img, color, tolerance=2):
    want = vt.np.array(vt.rgb(color), vt.np.int16)
    return int(vt.np.abs(img.astype(vt.np.int16) - want).max()) <= tolerance


def still_while_hidden(t, c, out, counters, covered, what, watch=None, window=1.5, attempts=3):
    """
    Checks that counters() (frames decoded or shown) stand still while veil reports out
    "hidden". The status is sampled about ten times a second for `window` seconds, after a
    frame already on its way had time to land. watch (a vt.StatusWatch) hears every change of
    shown and hidden, also those too short for the samples to see.

    Counters that move between two samples that both say hidden, with no "shown" heard between
    them, fail. If the output was shown meanwhile, covered() (the screen) decides: still covered
    while the samples say shown is veil's fault and fails; otherwise the scene uncovered the
    wallpaper for a moment (waylandsink under sanitizers does) and the window starts over once
    veil says hidden again, at most `attempts` times. Returns the last samples.
    """
    for attempt in range(attempts):
        c.wait_veil(out, 'hidden')
        time.sleep(0.5)  # a frame already on its way may still land
        if watch is not None:
            watch.drain()
        samples = []
        end = time.monotonic() + window
        while True:
            samples.append((time.monotonic(), c.veil(out).get('state'), counters()))
            if time.monotonic() >= end:
                break
            time.sleep(0.1)
        heard = watch.drain() if watch is not None else []
        shown_at = [when for when, d in heard if (d.get(out) or {}).get('state') == 'shown']

        def shown_between(a, b):
            # A line may arrive a little after the sample that already counted its frames.
            return any(a[0] - 0.2 <= when <= b[0] + 0.2 for when in shown_at)
        pairs = list(zip(samples, samples[1:]))
        moved = [(a, b) for a, b in pairs
                 if a[1] == b[1] == 'hidden' and a[2] != b[2] and not shown_between(a, b)]
        if moved:
            a, b = moved[0]
            t.check(False, what, f'{a[2]} -> {b[2]} while hidden, nothing heard of it shown')
            return samples
        states = [s[1] for s in samples]
        if not shown_at and all(state == 'hidden' for state in states):
            t.check(True, what, f'{samples[0][2]} -> {samples[-1][2]}')
            return samples
        if any(state != 'hidden' for state in states) and covered():
            t.check(False, what, f'veil said {", ".join(states)} while the window still covers '
                    'the output')
            return samples
        say(f'NOTE: the scene showed the wallpaper for a moment ({attempt + 1}/{attempts}): '
            f'samples {", ".join(states)}; "shown" heard {len(shown_at)} times')
    t.check(False, what, f'the wallpaper never stayed hidden for {window} s')
    return samples


def make_media(media):
    """
    The media both tests set: config-800x600.png, image-1600x1000.png and a 2 s H.264 clip
    whose picture edges fall on 8-pixel boundaries (see test-video.py), made from
    still-512x320.png. Returns the paths of the two pictures and the clip.
    """
    cfg_png = vt.make_png(os.path.join(media, 'config-800x600.png'),
                          vt.quadrant_pixels(800, 600))
    img_png = vt.make_png(os.path.join(media, 'image-1600x1000.png'),
                          vt.quadrant_pixels(1600, 1000))
    still = vt.make_png(os.path.join(media, 'still-512x320.png'), vt.quadrant_pixels(512, 320))
    clip = os.path.join(media, 'clip-512x320.mp4')
    vt._ffmpeg(['-loop', '1', '-framerate', '25', '-i', still, '-t', '2', '-c:v', 'libx264',
                '-preset', 'veryfast', '-crf', '8', '-g', '25', '-pix_fmt', 'yuv420p',
                '-colorspace', 'smpte170m', '-color_primaries', 'smpte170m',
                '-color_trc', 'smpte170m', '-color_range', 'tv', '-movflags', '+faststart',
                clip])
    os.chmod(clip, 0o644)
    return cfg_png, img_png, clip
