#!/usr/bin/env python3
"""
The sway patch series (examples/sway/) built and driven for real.

1. Sway's source: `apt-get source sway` in the work directory; if that fails, the tree named by
   VEIL_SWAY_SOURCE; if neither, the test is skipped (exit 77), saying why. Nothing else skips.
2. The series is applied with `patch -p1` to a copy of that tree, which is built with meson
   against the libveil of this build directory (its uninstalled pkg-config file), with the
   same sanitizers. The copy and the build are kept and reused while the series, the source
   and the options are unchanged.
3. The patched sway runs headless (pixman) with a config that starts swaybg (`output bg`) and
   sets a veil wallpaper. The real swaymsg sets images, a video, colours; grim screenshots are
   compared with pictures ffmpeg computed on its own; a fullscreen GStreamer client covers the
   output and the video must stop decoding; 50 switches; an output comes and goes; a reload;
   `swaymsg exit`.

Order with swaybg (decided in the series): a veil wallpaper covers swaybg and every other
client of the background layer; where veil has none (`veil off`), swaybg shows.
"""
import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
import veiltest as vt  # noqa: E402

BUILD_TIMEOUT = 1800
# sway's own options: nothing the test does not need (swaybar, man pages, completions).
SWAY_OPTIONS = ['-Dman-pages=disabled', '-Dswaybar=false', '-Dswaynag=false',
                '-Dtray=disabled', '-Dgdk-pixbuf=disabled', '-Ddefault-wallpaper=false',
                '-Dzsh-completions=false', '-Dbash-completions=false',
                '-Dfish-completions=false']


def say(*args):
    print(*args, flush=True)


def skip(reason):
    say(f'SKIP: {reason}')
    say('0 passed, 0 failed, 1 skipped')
    sys.exit(vt.SKIP)


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


def is_sway_tree(path):
    try:
        with open(os.path.join(path, 'meson.build')) as f:
            head = f.read(2000)
    except OSError:
        return False
    return re.search(r"project\(\s*'sway'", head) is not None and \
        os.path.isfile(os.path.join(path, 'sway', 'commands', 'output.c'))


def sway_version(path):
    with open(os.path.join(path, 'meson.build')) as f:
        m = re.search(r"version:\s*'([^']+)'", f.read(2000))
    return m.group(1) if m else '?'


def find_source(workdir, outdir):
    """Sway's source tree and how it was found; skips when there is none."""
    apt_dir = os.path.join(workdir, 'apt')
    os.makedirs(apt_dir, exist_ok=True)
    log = os.path.join(outdir, 'apt-get-source.log')
    rc, tail = run_logged(['apt-get', '-o', 'Acquire::Check-Valid-Until=false', 'source',
                           'sway'], log, cwd=apt_dir, timeout=600)
    trees = sorted(os.path.join(apt_dir, d) for d in os.listdir(apt_dir)
                   if d.startswith('sway-') and is_sway_tree(os.path.join(apt_dir, d)))
    if rc == 0 and trees:
        return trees[-1], f'apt-get source sway ({os.path.basename(trees[-1])})'
    errors = [line for line in tail.splitlines() if line.startswith('E:')]
    apt_reason = errors[0] if errors else f'exit status {rc}'
    say(f'# apt-get source sway failed: {apt_reason}')

    given = os.environ.get('VEIL_SWAY_SOURCE')
    if given:
        if not is_sway_tree(given):
            fail_setup(f'VEIL_SWAY_SOURCE={given} is not a sway source tree '
                       f'(no meson.build of project sway with sway/commands/output.c)')
        return os.path.abspath(given), f'VEIL_SWAY_SOURCE={given}'
    skip(f'no sway source to patch: `apt-get source sway` failed ({apt_reason}; '
         f'see {log}) and VEIL_SWAY_SOURCE is not set. Set it to an unpacked sway 1.12 '
         f'source tree to run this test.')


def sanitizers(text):
    """The sanitizer names in meson's b_sanitize value, as a string or as a list."""
    return [w for w in re.findall(r'[a-z]+', text or '') if w != 'none']


def build_sway(args, source, outdir):
    """Applies the series to a copy of source and builds it; returns the build directory."""
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
    with open(os.path.join(source, 'meson.build'), 'rb') as f:
        key.update(source.encode() + b'\0' + f.read())
    key.update(os.path.abspath(args.veil_build).encode() + ','.join(san).encode())
    key = key.hexdigest()

    work = os.path.abspath(args.workdir)
    src = os.path.join(work, 'src')
    build = os.path.join(work, 'build')
    stamp = os.path.join(work, 'stamp')
    log = os.path.join(outdir, 'sway-build.log')
    try:
        with open(stamp) as f:
            fresh = f.read().strip() != key or not os.path.isfile(
                os.path.join(build, 'build.ninja'))
    except OSError:
        fresh = True

    if fresh:
        say(f'# patching a copy of {source} (sway {sway_version(source)})')
        for d in (src, build):
            shutil.rmtree(d, ignore_errors=True)
        if os.path.exists(stamp):
            os.unlink(stamp)
        shutil.copytree(source, src, symlinks=True)
        for p in patches:
            rc, tail = run_logged(['patch', '-p1', '--batch', '--forward', '-i',
                                   os.path.join(series_dir, p)], log, cwd=src, timeout=120)
            if rc != 0:
                fail_setup(f'{p} does not apply to {source} (sway {sway_version(source)}; '
                           f'the series is made for sway 1.12)', tail)
        env = dict(os.environ)
        uninstalled = os.path.join(os.path.abspath(args.veil_build), 'meson-uninstalled')
        env['PKG_CONFIG_PATH'] = os.pathsep.join(
            [uninstalled] + [p for p in env.get('PKG_CONFIG_PATH', '').split(os.pathsep) if p])
        options = list(SWAY_OPTIONS)
        if san:
            # libveil then has the sanitizers' symbols undefined: sway links their runtimes.
            options += [f'-Db_sanitize={",".join(san)}', '-Db_lundef=false']
        rc, tail = run_logged(['meson', 'setup', build, src] + options, log, env=env)
        if rc != 0:
            fail_setup('meson setup of the patched sway failed', tail)
    else:
        say(f'# reusing the patched sway in {src}')
    rc, tail = run_logged(['ninja', '-C', build], log)
    if rc != 0:
        fail_setup('building the patched sway failed', tail)
    with open(stamp, 'w') as f:
        f.write(key + '\n')
    return build


def check_links_this_veil(sway, veil_build):
    """The sway binary loads libveil from this build directory, not an installed one."""
    r = subprocess.run(['ldd', sway], capture_output=True, text=True, timeout=60)
    line = next((l for l in r.stdout.splitlines() if 'libveil' in l), '')
    want = os.path.realpath(veil_build)
    m = re.search(r'=>\s*(\S+)', line)
    if not m or not os.path.realpath(m.group(1)).startswith(want + os.sep):
        fail_setup(f'{sway} does not load libveil from {want}', r.stdout)


def main():
    parser = argparse.ArgumentParser(description='veil: the sway patch series')
    parser.add_argument('--series', required=True, help='examples/sway')
    parser.add_argument('--veil-build', required=True, help="veil's build directory")
    parser.add_argument('--workdir', required=True, help='where sway is patched and built')
    parser.add_argument('--outdir', required=True, help='logs, images and failures')
    parser.add_argument('--sanitize', default='', help="meson's b_sanitize of veil's build")
    args = parser.parse_args()

    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    os.makedirs(args.workdir, exist_ok=True)
    logs = os.path.join(os.path.abspath(args.workdir), 'logs')
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)

    source, how = find_source(os.path.abspath(args.workdir), logs)
    say(f'# sway source: {how}')
    start = time.monotonic()
    build = build_sway(args, source, logs)
    sway = os.path.join(build, 'sway', 'sway')
    swaymsg_built = os.path.join(build, 'swaymsg', 'swaymsg')
    check_links_this_veil(sway, args.veil_build)
    say(f'# patched sway ready in {time.monotonic() - start:.0f} s: {sway}')

    # veiltest.Test reads the compositor and the output directory from the command line.
    sys.argv = [sys.argv[0], '--compositor', sway, '--outdir', outdir]
    t = vt.Test('sway')
    for name in os.listdir(logs):
        shutil.copy(os.path.join(logs, name), t.path(name))
    drive(t, sway, swaymsg_built, sanitized=bool(sanitizers(args.sanitize)))
    t.finish()


OUT = 'HEADLESS-1'
W, H = 1280, 720  # wlroots' headless default mode
SCALED = dict(tolerance=16, mean_tolerance=3, ignore_edges=4)
VIDEO = dict(tolerance=24, mean_tolerance=4, ignore_edges=4)
BG = '#b02818'       # swaybg's solid colour
BARS = '#204060'     # the config wallpaper's fit bars


def rss_kib(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def is_solid(img, color, tolerance=2):
    want = vt.np.array(vt.rgb(color), vt.np.int16)
    return int(vt.np.abs(img.astype(vt.np.int16) - want).max()) <= tolerance


def drive(t, sway, swaymsg_built, sanitized):
    media = t.media
    cfg_png = vt.make_png(os.path.join(media, 'config-800x600.png'),
                          vt.quadrant_pixels(800, 600))
    img_png = vt.make_png(os.path.join(media, 'image-1600x1000.png'),
                          vt.quadrant_pixels(1600, 1000))
    # A 2 s H.264 clip whose picture edges fall on 8-pixel boundaries (see test-video.py).
    still = vt.make_png(os.path.join(media, 'still-512x320.png'), vt.quadrant_pixels(512, 320))
    clip = os.path.join(media, 'clip-512x320.mp4')
    vt._ffmpeg(['-loop', '1', '-framerate', '25', '-i', still, '-t', '2', '-c:v', 'libx264',
                '-preset', 'veryfast', '-crf', '8', '-g', '25', '-pix_fmt', 'yuv420p',
                '-colorspace', 'smpte170m', '-color_primaries', 'smpte170m',
                '-color_trc', 'smpte170m', '-color_range', 'tv', '-movflags', '+faststart',
                clip])
    os.chmod(clip, 0o644)

    expect_cfg = vt.expect_fit(cfg_png, W, H, BARS)
    expect_img = vt.expect_fill(img_png, W, H)
    expect_clip = vt.expect_fill(clip, W, H)

    config = t.path('config')
    with open(config, 'w') as f:
        f.write('xwayland disable\n'
                'default_border none\n'
                f'output {OUT} bg {BG} solid_color\n'
                f'output * veil {vt.quote(cfg_png)} fit {BARS}\n')

    env = {}
    if sanitized:
        # sway frees little at exit (server_fini: "TODO: free sway-specific resources"):
        # LeakSanitizer would fail it for leaks of its own. Every other check stays on.
        env['ASAN_OPTIONS'] = 'detect_leaks=0'

    with t.compositor(outputs=1, config=config, env=env) as c:
        def set_veil(words, what=None):
            ok, err = c.msg(f'output {OUT} veil {words}')
            t.check(ok, f'`output {OUT} veil {what or words}` accepted', err)
            return ok

        def counters():
            v = c.veil(OUT)
            src = v.get('source') or {}
            return v.get('frames', 0), src.get('frames', 0)

        with t.case('config'):
            v = c.wait_veil(OUT, 'shown', file=cfg_png)
            t.check(v.get('kind') == 'image' and v.get('mode') == 'fit' and
                    v.get('color') == BARS and v.get('setting') == '*',
                    'the config line set an image in fit mode for *', json.dumps(v))
            shot = c.settled_screenshot(OUT)
            t.compare_structure(shot, expect_cfg, 'config-fit', slack=2, bars=vt.rgb(BARS))
            t.compare(shot, expect_cfg, 'config-fit', **SCALED)

        with t.case('swaybg below'):
            if not t.check(shutil.which('swaybg'), 'swaybg is installed (sway runs it for bg)'):
                raise vt.Failure('no swaybg in PATH')
            set_veil('off')
            v = c.wait_veil(OUT, 'off')
            t.check(v.get('kind') == 'off', 'status kind off', json.dumps(v))
            # swaybg starts on its own time: once its colour is up, it is mapped.
            c.check_until(lambda: is_solid(c.screenshot(OUT), BG),
                          f'with veil off, swaybg ({BG}) shows')
            set_veil(f'{vt.quote(img_png)} fill')
            c.wait_veil(OUT, 'shown', file=img_png)
            shot = c.settled_screenshot(OUT)
            t.compare_structure(shot, expect_img, 'over-swaybg', slack=2)
            t.compare(shot, expect_img, 'over-swaybg', **SCALED)
            # A new swaybg (a new bg) maps above veil's tree: sway must put veil back on top.
            old = swaybg_pids(c)
            ok, err = c.msg(f'output {OUT} bg #18a028 solid_color')
            t.check(ok, '`output bg #18a028 solid_color` accepted', err)
            c.wait_until(lambda: (swaybg_pids(c) - old) or None, 'a new swaybg')
            time.sleep(1.5)  # let it map
            v = c.veil(OUT)
            t.check(v.get('state') == 'shown', 'veil still shown over the new swaybg',
                    json.dumps(v))
            t.compare(c.settled_screenshot(OUT), expect_img, 'over-new-swaybg', **SCALED)
            set_veil('off')
            c.check_until(lambda: is_solid(c.screenshot(OUT), '#18a028'),
                          'with veil off again, the new swaybg shows')

        with t.case('names'):
            ok, err = c.msg('output "Unknown Unknown Unknown" veil #112233 solid_color')
            t.check(ok, 'an output identifier is accepted', err)
            v = c.wait_veil(OUT, 'shown', kind='color')
            t.check(v.get('setting') == OUT, f'the identifier set {OUT}\'s own wallpaper',
                    json.dumps(v))
            t.check(is_solid(c.settled_screenshot(OUT), '#112233', 0), 'solid #112233')
            ok, err = c.msg('output * veil off')
            t.check(ok, '`output * veil off` accepted', err)
            c.wait_veil(OUT, 'off', kind='off')
            ok, err = c.msg(f'output * veil {vt.quote(img_png)}')
            t.check(ok, '`output * veil <file>` accepted', err)
            v = c.wait_veil(OUT, 'shown', file=img_png, setting='*')
            t.check(v.get('mode') == 'fill', 'fill is the default mode', json.dumps(v))
            t.compare(c.settled_screenshot(OUT), expect_img, 'star-fill', **SCALED)

        with t.case('errors'):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(t.path("missing.png"))}')
            t.check(not ok and 'missing.png' in err, 'a missing file fails with a message',
                    err)
            ok, err = c.msg(f'output {OUT} veil {vt.quote(img_png)} sideways')
            t.check(not ok and 'sideways' in err, 'an unknown mode fails with a message', err)
            v = c.veil(OUT)
            t.check(v.get('state') == 'shown' and v.get('file') == img_png,
                    'the wallpaper is unchanged after failed commands', json.dumps(v))
            r = subprocess.run([swaymsg_built, '-s', c.swaysock, '-p', '-t', 'get_outputs'],
                               env=c.client_env, capture_output=True, text=True, timeout=60)
            t.check(f'Veil: image, shown ({img_png})' in r.stdout,
                    "the series' swaymsg prints the veil status", r.stdout[-800:])

        with t.case('video'):
            set_veil(f'{vt.quote(clip)} fill')
            v = c.wait_veil(OUT, 'shown', file=clip)
            t.check(v.get('kind') == 'video', 'status kind video', json.dumps(v))
            f0 = counters()
            c.wait_until(lambda: counters()[1] >= f0[1] + 10, 'ten more decoded frames')
            c.check_until(lambda: counters()[0] >= f0[0] + 10,
                          'the video plays: ten more frames on the output')
            shot = c.screenshot(OUT)
            t.compare_structure(shot, expect_clip, 'video-fill', slack=2)
            t.compare(shot, expect_clip, 'video-fill', **VIDEO)
            set_veil('pause')
            c.wait_veil(OUT, 'paused')
            time.sleep(0.3)
            a = counters()
            time.sleep(1.0)
            t.check(counters() == a, 'no frame while paused', f'{a} -> {counters()}')
            set_veil('resume')
            c.wait_veil(OUT, 'shown')
            a = counters()
            c.check_until(lambda: counters()[1] >= a[1] + 5,
                          'the video plays again after resume: five more decoded frames')

        with t.case('fullscreen client'):
            covered(t, c, counters)

        with t.case('50 switches'):
            switch_50(t, c, img_png, cfg_png, clip, expect_img, check_memory=not sanitized)

        with t.case('hotplug'):
            ok, err = c.msg('create_output')
            t.check(ok, '`create_output` accepted', err)
            c.wait_mode('HEADLESS-2', 1920, 1080)
            v = c.wait_veil('HEADLESS-2', 'shown', file=img_png, setting='*')
            # HEADLESS-1 shows the same file (its own setting): one source, decoded once.
            t.check(v.get('source', {}).get('outputs') == 2,
                    "a new output shows `*`'s wallpaper from the source HEADLESS-1 uses",
                    json.dumps(v))
            t.compare(c.settled_screenshot('HEADLESS-2'), vt.expect_fill(img_png, 1920, 1080),
                      'new-output-fill', **SCALED)
            ok, err = c.msg('output HEADLESS-2 unplug')
            t.check(ok, '`output HEADLESS-2 unplug` accepted', err)
            c.wait_until(lambda: 'HEADLESS-2' not in c.outputs(), 'HEADLESS-2 to go')
            v = c.veil(OUT)
            t.check(v.get('state') == 'shown' and v.get('file') == img_png and
                    v.get('source', {}).get('outputs') == 1,
                    f'{OUT} goes on showing its wallpaper, alone', json.dumps(v))

        with t.case('reload'):
            ok, err = c.msg('reload')
            t.check(ok, '`reload` accepted', err)
            v = c.wait_veil(OUT, 'shown', file=cfg_png)
            # HEADLESS-1's own wallpaper, set with swaymsg, would beat the config's `*` one:
            # the reload forgot it, as it forgets a swaymsg `output bg`.
            t.check(v.get('setting') == '*' and v.get('mode') == 'fit',
                    "after a reload, the config's wallpaper is back", json.dumps(v))
            t.compare(c.settled_screenshot(OUT), expect_cfg, 'reload-fit', **SCALED)

        with t.case('exit'):
            c.stop('exit')

    if sanitized:
        with open(c.log_path, 'rb') as f:
            log = f.read().decode('utf-8', 'replace')
        reports = [line for line in log.splitlines()
                   if 'runtime error:' in line or 'AddressSanitizer' in line]
        t.check(not reports, 'no sanitizer report in the compositor log',
                '\n'.join(reports[:10]))


def swaybg_pids(c):
    """The swaybg processes of this sway (it double-forks them: they inherit its SWAYSOCK)."""
    pids = set()
    for entry in os.listdir('/proc'):
        try:
            with open(f'/proc/{entry}/comm') as f:
                if f.read().strip() != 'swaybg':
                    continue
        except OSError:
            continue
        if _env_of(entry).get('SWAYSOCK') == c.swaysock:
            pids.add(int(entry))
    return pids


def _env_of(pid):
    try:
        with open(f'/proc/{pid}/environ', 'rb') as f:
            items = f.read().split(b'\0')
    except OSError:
        return {}
    return dict(i.decode('utf-8', 'replace').split('=', 1) for i in items if b'=' in i)


def covered(t, c, counters):
    """A fullscreen client covers the output: veil is hidden and the video stops decoding."""
    argv = ['gst-launch-1.0', '-q', 'videotestsrc', 'pattern=solid-color',
            'foreground-color=0xff18c040', '!', f'video/x-raw,width={W},height={H},'
            'framerate=10/1', '!', 'videoconvert', '!', 'waylandsink', 'fullscreen=true']
    log = open(t.path('fullscreen-client.log'), 'wb')
    client = subprocess.Popen(argv, env=c.client_env, stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        def fullscreen_view():
            tree = c.query('get_tree')
            stack = [tree]
            while stack:
                n = stack.pop()
                if n.get('pid') == client.pid and n.get('fullscreen_mode') == 1:
                    return n
                stack += n.get('nodes', []) + n.get('floating_nodes', [])
            if client.poll() is not None:
                raise vt.Failure(f'the client exited ({client.returncode}): '
                                 + vt._tail(t.path('fullscreen-client.log')))
            return None
        if not c.check_until(fullscreen_view, 'a fullscreen window covers the output'):
            raise vt.Failure('the GStreamer window never became fullscreen')
        v = c.wait_veil(OUT, 'hidden')
        t.check(v.get('kind') == 'video', 'veil reports the video as hidden', json.dumps(v))
        time.sleep(0.5)  # a frame already on its way may still land
        a = counters()
        time.sleep(1.5)
        b = counters()
        t.check(a == b, 'no frame decoded or shown while covered', f'{a} -> {b}')
        shot = c.settled_screenshot(OUT)
        centre = shot[H // 4:3 * H // 4, W // 4:3 * W // 4]
        t.check(is_solid(centre, '#18c040', 12), "the screen shows the client's green",
                f'centre pixel {vt.px(shot[H // 2, W // 2])}')
    finally:
        if client.poll() is None:
            os.killpg(client.pid, signal.SIGTERM)
            try:
                client.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(client.pid, signal.SIGKILL)
                client.wait()
        log.close()
    v = c.wait_veil(OUT, 'shown')
    a = counters()
    c.check_until(lambda: counters()[1] >= a[1] + 5 and counters()[0] >= a[0] + 5,
                  'the video plays again once the window is gone')


def switch_50(t, c, img_png, cfg_png, clip, expect_img, check_memory):
    """Fifty wallpapers in a row, images, video and colours, without waiting in between."""
    sequence = [
        (f'{vt.quote(clip)} fit #000000', 'video'),
        (f'{vt.quote(cfg_png)} center #303030', 'image'),
        ('#336699 solid_color', 'color'),
        (f'{vt.quote(img_png)} tile', 'image'),
        (f'{vt.quote(clip)} stretch', 'video'),
        (f'{vt.quote(cfg_png)} stretch', 'image'),
        ('off', 'off'),
    ]
    rss_before = rss_kib(c.proc.pid)
    accepted = kinds = 0
    bad = []
    for i in range(49):
        words, kind = sequence[i % len(sequence)]
        ok, err = c.msg(f'output {OUT} veil {words}')
        accepted += ok
        v = c.veil(OUT)
        kinds += v.get('kind') == kind
        if not ok or v.get('kind') != kind:
            bad.append(f'#{i + 1} `veil {words}`: {err or json.dumps(v)}')
    ok, err = c.msg(f'output {OUT} veil {vt.quote(img_png)} fill')
    accepted += ok
    t.check(accepted == 50, '50 switches accepted', '; '.join(bad[:5]) or err)
    t.check(kinds == 49, 'each switch shows at once in the status', '; '.join(bad[:5]))
    v = c.wait_veil(OUT, 'shown', file=img_png, mode='fill')
    t.compare(c.settled_screenshot(OUT), expect_img, 'after-50', **SCALED)
    t.check(v.get('error') is None, 'no error after the switches', json.dumps(v))
    src = v.get('source') or {}
    t.check(src.get('outputs') == 1, 'one output views the source', json.dumps(src))
    rss_after = rss_kib(c.proc.pid)
    grown = (rss_after - rss_before) / 1024
    if not check_memory:
        # AddressSanitizer keeps freed memory in quarantine (256 MiB): RSS says nothing.
        vt._say(f'# memory after 50 switches: {grown:+.1f} MiB (not checked under ASan)')
        return
    # 14 videos and 22 images came and went: keeping each image's frame (3.5 MiB) would pass
    # 64 MiB.
    t.check(grown < 64, f'memory after 50 switches: {grown:+.1f} MiB (under 64)',
            f'{rss_before} KiB -> {rss_after} KiB')


if __name__ == '__main__':
    main()
