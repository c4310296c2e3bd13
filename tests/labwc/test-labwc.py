#!/usr/bin/env python3
"""
The labwc patch series (examples/labwc/) built and driven for real.

1. labwc's source: labwc-0.20.2.tar.xz in --sources (the project's ../shared/sources, upstream
   tag 0.20.2). Without it the test fails: it never skips.
2. The tarball is unpacked, the series applied with `patch -p1`, and labwc built with meson
   against the libveil of this build directory (its uninstalled pkg-config file), with the same
   sanitizers. Source and build are kept in --workdir and reused while the series, the tarball
   and the options are unchanged.
3. The patched labwc runs headless (pixman) with a config directory (`labwc -C`) whose rc.xml
   has a <wallpapers> section and whose autostart starts swaybg. The real veilctl sets every
   mode, a video, colours; grim screenshots are compared with pictures ffmpeg or numpy computed
   on their own; a fullscreen GStreamer client covers the output and the video must stop; an
   output comes and goes (labwc's VirtualOutputAdd/Remove, bound to keys that wtype presses
   through the virtual keyboard protocol); a right click on the wallpaper opens the root menu
   (wlrctl, virtual pointer protocol); a client of another user must not get veil's
   global (labwc's global filter); `labwc --reconfigure` with a changed rc.xml, then with a
   file that cannot be shown; `labwc --exit`. A second run has veil_scene_create() fail (an
   LD_PRELOAD library) and labwc must run on without wallpapers.
4. Another run has two workspaces with a <wallpaper workspace=""> each, switched with
   GoToDesktop keys (wtype): each must show its picture and the status its workspace; renamed,
   swapped, a missing file, removed (see workspaces()). Another has three, each with a window,
   and records every frame across 20 switches: none may mix two workspaces (atomicity()).
5. A last run loses the renderer (tests/integration/lose-renderer.c, preloaded, makes it emit
   "lost" on SIGUSR2, as a GPU reset does) with a video and a still set through veilctl.
   labwc must survive (the series' patch 4 re-creates the renderer from an idle callback;
   labwc 0.20.2 itself aborts, see LABWC_LOST_ABORT), the video restart with a new pipeline
   and play on, the still's picture and both settings stay.
6. Restarts (restart()): a private HOME and XDG_STATE_HOME; labwc makes $XDG_STATE_HOME/veil;
   a picture set with veilctl comes back at the next start with <wallpaper restore="yes">
   (grim, exact), and with the state file deleted the wallpaper's own file shows; a state
   directory that cannot be made is logged and labwc starts with the wallpaper's own file.

Under the sanitizers labwc is built with them too and LeakSanitizer stays on (LSAN_SUPP).
"""
import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
from veiltest import patched as cm  # noqa: E402
import veiltest as vt  # noqa: E402
from veiltest import ws as wslib  # noqa: E402
from veiltest.patched import fail_setup, is_solid, run_logged, say, sanitizers  # noqa: E402

TARBALL = 'labwc-0.20.2.tar.xz'
TOPDIR = 'labwc-0.20.2'
# labwc's own options: nothing the test does not need (Xwayland, man pages, translations).
LABWC_OPTIONS = ['-Dxwayland=disabled', '-Dman-pages=disabled', '-Dnls=disabled',
                 '-Dsvg=disabled', '-Dsystemd-session=disabled']

OUT = 'HEADLESS-1'
VIRT = 'VIRT-1'       # the output that VirtualOutputAdd makes (1920x1080)
W, H = 1280, 720      # the headless default
BG = '#b02818'        # swaybg's colour (autostart)
BG2 = '#18a028'       # a second swaybg's
BARS = '#204060'      # the rc.xml wallpaper's fit bars
SCALED = dict(tolerance=16, mean_tolerance=3, ignore_edges=4)
VIDEO = dict(tolerance=24, mean_tolerance=4, ignore_edges=4)
EXACT = dict(tolerance=0)


def build_labwc(args, outdir):
    """Unpacks the tarball, applies the series and builds; returns the labwc binary's path."""
    tarball = os.path.join(os.path.abspath(args.sources), TARBALL)
    if not os.path.isfile(tarball):
        fail_setup(f'no labwc source: {tarball} is missing. Put {TARBALL} (upstream tag '
                   f'0.20.2, `git archive --prefix={TOPDIR}/ 0.20.2`) there.')
    work = os.path.abspath(args.workdir)

    def unpack(src, log):
        say(f'# unpacking {tarball} and applying the series')
        os.makedirs(work, exist_ok=True)
        rc, tail = run_logged(['tar', '-xf', tarball, '-C', work], log, timeout=300)
        if rc != 0 or not os.path.isfile(os.path.join(src, 'meson.build')):
            fail_setup(f'unpacking {tarball} failed (no {TOPDIR}/meson.build)', tail)
        return TARBALL

    build = cm.build_patched('labwc', args, os.path.join(work, TOPDIR),
                             os.path.join(outdir, 'labwc-build.log'), cm.file_digest(tarball),
                             unpack, LABWC_OPTIONS, key_extra=' '.join(LABWC_OPTIONS).encode())
    return os.path.join(build, 'labwc')


def check_links_this_veil(t, labwc, veil_build):
    """The labwc binary loads libveil from this build directory, not an installed one."""
    r = subprocess.run(['ldd', labwc], capture_output=True, text=True, timeout=60)
    m = re.search(r'libveil\.so[^\s]*\s+=>\s+(\S+)', r.stdout)
    where = os.path.realpath(m.group(1)) if m else None
    t.check(where is not None and where.startswith(os.path.realpath(veil_build) + os.sep),
            f'labwc loads the libveil of {veil_build}', r.stdout[-1200:])


class Labwc(vt.Compositor):
    """labwc -C <config dir> on the headless backend with pixman, driven with veilctl."""

    def __init__(self, test, labwc, veilctl, cfgdir, home, env=None, name='labwc',
                 with_veil=True, args=()):
        super().__init__(test, outputs=1, config=cfgdir, name=name, env=env)
        self.labwc = labwc
        self.veilctl = veilctl
        self.home = home
        self.with_veil = with_veil
        self.args = list(args)

    def start(self):
        self.runtime = tempfile.mkdtemp(prefix='veil-labwc-')
        env = {k: v for k, v in os.environ.items()
               if k not in ('WAYLAND_DISPLAY', 'WAYLAND_SOCKET', 'DISPLAY', 'SWAYSOCK',
                            'I3SOCK', 'XDG_RUNTIME_DIR', 'LABWC_PID')}
        # veil's state goes to the private HOME's ~/.local/state unless the test says where.
        env.pop('XDG_STATE_HOME', None)
        env.update({
            'XDG_RUNTIME_DIR': self.runtime,
            'HOME': self.home,
            'XDG_CONFIG_HOME': os.path.join(self.home, '.config'),
            'WLR_BACKENDS': 'headless',
            'WLR_RENDERER': 'pixman',
            'WLR_HEADLESS_OUTPUTS': '1',
            'WLR_LIBINPUT_NO_DEVICES': '1',
        })
        env.update(self.extra_env)
        argv = [self.labwc, '-C', self.config] + self.args
        self.log = open(self.log_path, 'wb')
        say(f'# starting {shlex.join(argv)} (log {self.log_path})')
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log,
                                         stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)
        except OSError as e:
            self.log.close()
            shutil.rmtree(self.runtime, ignore_errors=True)
            raise vt.Failure(f'cannot run {self.labwc}: {e}')
        deadline = time.monotonic() + vt.READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise vt.Failure(f'labwc exited ({vt.describe_status(self.proc.returncode)})'
                                 f'; log:\n' + vt._tail(self.log_path))
            names = [n for n in os.listdir(self.runtime) if re.fullmatch(r'wayland-\d+', n)]
            if names:
                self.wayland_display = names[0]
                break
            time.sleep(0.1)
        else:
            raise vt.Failure('labwc made no Wayland socket')
        # A library preloaded into labwc is labwc's alone.
        self.client_env = {k: v for k, v in env.items()
                           if not k.startswith('WLR_') and k not in ('LD_PRELOAD',
                                                                     'VEIL_TEST_STATUS_FILE')}
        self.client_env.update({'WAYLAND_DISPLAY': self.wayland_display,
                                'LABWC_PID': str(self.proc.pid)})
        if self.with_veil:
            self.wait_until(lambda: self.ctl('status', '--json', quiet=True)[0] == 0,
                            'veilctl status to answer', timeout=vt.READY_TIMEOUT)
        say(f'# ready: WAYLAND_DISPLAY={self.wayland_display} LABWC_PID={self.proc.pid}')

    def ctl(self, *args, quiet=False):
        """Runs veilctl; returns (exit status, stdout, stderr)."""
        self.require_alive(f'veilctl {" ".join(args)}')
        try:
            r = subprocess.run([self.veilctl] + list(args), env=self.client_env,
                               stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=vt.IPC_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise vt.Failure(f'veilctl {" ".join(args)} did not answer: labwc hangs')
        err = r.stderr.decode('utf-8', 'replace').strip()
        if not quiet:
            say(f'   $ veilctl {shlex.join(args)} -> {r.returncode}' + (f': {err}' if err else ''))
        return r.returncode, r.stdout.decode('utf-8', 'replace'), err

    def status(self):
        rc, out, err = self.ctl('status', '--json', quiet=True)
        if rc != 0:
            raise vt.Failure(f'veilctl status --json failed ({rc}): {err}')
        return json.loads(out)

    def veil(self, output):
        s = self.status()
        if output not in s:
            raise vt.Failure(f'no output {output} in veilctl status: {json.dumps(s)[:400]}')
        return s[output]

    def outputs(self):
        return self.status()

    def labwc_cmd(self, *args):
        """labwc --reconfigure / --exit, as a user runs them (LABWC_PID)."""
        argv = [self.labwc] + list(args)
        r = subprocess.run(argv, env=self.client_env, capture_output=True, text=True,
                           timeout=vt.IPC_TIMEOUT)
        say(f'   $ labwc {shlex.join(args)} -> {r.returncode}')
        return r.returncode == 0, r.stderr.strip()

    def log_text(self):
        with open(self.log_path, 'rb') as f:
            return f.read().decode('utf-8', 'replace')

    def _ask_exit(self):
        """stop('exit'): `labwc --exit`, as a user runs it; checked to exit 0."""
        ok, err = self.labwc_cmd('--exit')
        self.test.check(ok, '`labwc --exit` exits 0', err)


# LeakSanitizer stays on for labwc (a leak makes it exit 1, which fails the exit check), with
# one suppression: fontconfig's config, allocated under pango's font map when labwc starts,
# 320 bytes in 3 allocations whose every stack is inside libfontconfig.so.1 (seen running the
# ASan labwc of this test with and without a wallpaper: the same report). Not veil's.
LSAN_SUPP = '''leak:libfontconfig.so
'''


def sanitizer_env(t, sanitized):
    if not sanitized:
        return {}
    supp = t.path('labwc-lsan.supp')
    if not os.path.exists(supp):
        write(supp, LSAN_SUPP)
    return {'LSAN_OPTIONS': f'suppressions={supp}:print_suppressions=0'}


def rc_xml(wallpapers, desktops='', extra=''):
    """
    An rc.xml: the wallpapers given, keys that add and remove a virtual output, and the
    <desktops> given, with F7, F8 and F9 bound to the first, second and third workspace
    (GoToDesktop by index, so that they do not depend on the names); extra: more of it.
    """
    return f'''<?xml version="1.0"?>
<labwc_config>
  <core><decoration>client</decoration></core>
{desktops}{extra}
  <wallpapers>
{wallpapers}
  </wallpapers>
  <keyboard>
    <keybind key="F10"><action name="VirtualOutputAdd" output_name="{VIRT}" /></keybind>
    <keybind key="F11"><action name="VirtualOutputRemove" output_name="{VIRT}" /></keybind>
    <keybind key="F7"><action name="GoToDesktop" to="1" wrap="no" /></keybind>
    <keybind key="F8"><action name="GoToDesktop" to="2" wrap="no" /></keybind>
    <keybind key="F9"><action name="GoToDesktop" to="3" wrap="no" /></keybind>
  </keyboard>
</labwc_config>
'''


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o644)


def labwc_config(cfgdir, wallpapers):
    """
    Makes cfgdir with an rc.xml of the wallpapers given (see rc_xml) and an autostart that
    starts swaybg in BG; returns the rc.xml's path.
    """
    os.makedirs(cfgdir)
    rc_path = os.path.join(cfgdir, 'rc.xml')
    write(rc_path, rc_xml(wallpapers))
    write(os.path.join(cfgdir, 'autostart'), f"swaybg -c '{BG}' >/dev/null 2>&1 &\n")
    return rc_path


# rc.xml's wallpaper for the runs after the first: a solid colour on every output.
SOLID_WALLPAPER = '    <wallpaper output="*" mode="solid_color" color="#112233" />'


def preload_env(t, sanitized, lib, **extra):
    """labwc's environment with lib preloaded (with extra variables)."""
    env = dict(sanitizer_env(t, sanitized), LD_PRELOAD=lib, **extra)
    if sanitized:
        # The sanitizer runtime wants to come first; the library only replaces or wraps a few
        # functions.
        env['ASAN_OPTIONS'] = 'verify_asan_link_order=0'
    return env


def drive(t, labwc, veilctl, sanitized):
    media = t.media
    cfg_png, img_png, clip = cm.make_media(media)
    small_px = vt.quadrant_pixels(500, 300)
    small_png = vt.make_png(os.path.join(media, 'small-500x300.png'), small_px)
    tile_px = vt.quadrant_pixels(250, 150)
    tile_png = vt.make_png(os.path.join(media, 'tile-250x150.png'), tile_px)

    expect_cfg = vt.expect_fit(cfg_png, W, H, BARS)
    expect_img = vt.expect_fill(img_png, W, H)

    # HOME is the output directory: rc.xml names the media as ~/media/... and $HOME/media/...
    home = t.outdir
    cfgdir = t.path('labwc-config')
    rc_path = labwc_config(cfgdir, f'    <wallpaper output="*" mode="fit" color="{BARS}">'
                                   f'~/media/config-800x600.png</wallpaper>')

    env = sanitizer_env(t, sanitized)

    with Labwc(t, labwc, veilctl, cfgdir, home, env=env) as c:
        def set_veil(*words, output=OUT):
            rc, _, err = c.ctl('set', '-o', output, *words)
            return t.check(rc == 0 and err == '', f'`veilctl set -o {output} '
                           f'{" ".join(os.path.basename(w) for w in words)}` exits 0 quietly',
                           f'exit {rc}: {err}')

        def frames():
            return c.veil(OUT).get('frames', 0)

        with t.case('rc.xml at startup'):
            v = c.wait_veil(OUT, 'shown', file=cfg_png)
            t.check(v.get('kind') == 'image' and v.get('mode') == 'fit' and
                    v.get('color') == BARS and v.get('setting') == '*',
                    '<wallpaper output="*" mode="fit"> with ~/ set an image for *',
                    json.dumps(v))
            shot = c.settled_screenshot(OUT)
            t.compare_structure(shot, expect_cfg, 'rcxml-fit', slack=2, bars=vt.rgb(BARS))
            t.compare(shot, expect_cfg, 'rcxml-fit', **SCALED)

        with t.case('swaybg below'):
            rc, _, err = c.ctl('off', '-o', OUT)
            t.check(rc == 0, '`veilctl off -o HEADLESS-1` exits 0', err)
            c.wait_veil(OUT, 'off')
            c.check_until(lambda: is_solid(c.screenshot(OUT), BG),
                          f'with veil off, the autostart swaybg ({BG}) shows')
            set_veil(img_png, 'fill')
            c.wait_veil(OUT, 'shown', file=img_png)
            t.compare(c.settled_screenshot(OUT), expect_img, 'over-swaybg', **SCALED)
            # A new background client maps on top of the layer: labwc must put veil back on top.
            log = open(t.path('swaybg2.log'), 'wb')
            bg2 = subprocess.Popen(['swaybg', '-c', BG2], env=c.client_env,
                                   stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
            try:
                time.sleep(1.5)  # let it map
                t.check(bg2.poll() is None, 'a second swaybg runs', vt._tail(log.name))
                t.compare(c.settled_screenshot(OUT), expect_img, 'over-new-swaybg', **SCALED)
                rc, _, err = c.ctl('off', '-o', OUT)
                c.check_until(lambda: is_solid(c.screenshot(OUT), BG2),
                              f'with veil off again, the second swaybg ({BG2}) shows')
            finally:
                if bg2.poll() is None:
                    os.killpg(bg2.pid, signal.SIGTERM)
                    bg2.wait(timeout=30)
                log.close()

        def mode_case(name, words, expected, cmp, status, bars=None):
            with t.case(name):
                if not set_veil(*words):
                    return
                v = c.wait_veil(OUT, 'shown', **status)
                t.check(v.get('error') is None and v.get('setting') == OUT,
                        f'status: shown, no error, setting {OUT}', json.dumps(v))
                shot = c.settled_screenshot(OUT)
                t.compare_structure(shot, expected, name, slack=2, bars=bars)
                t.compare(shot, expected, name, **cmp)

        mode_case('stretch', [img_png, 'stretch'], vt.expect_stretch(img_png, W, H), SCALED,
                  dict(file=img_png, mode='stretch'))
        mode_case('fill', [img_png, 'fill'], expect_img, SCALED,
                  dict(file=img_png, mode='fill'))
        mode_case('fit', [img_png, 'fit', '#ff00ff'], vt.expect_fit(img_png, W, H, '#ff00ff'),
                  SCALED, dict(file=img_png, mode='fit', color='#ff00ff'), bars=(255, 0, 255))
        mode_case('center', [small_png, 'center', '#00ffff'],
                  vt.expect_center(small_png, W, H, '#00ffff'), EXACT,
                  dict(file=small_png, mode='center'), bars=(0, 255, 255))
        mode_case('tile', [tile_png, 'tile'], vt.expect_tile(tile_px, W, H), EXACT,
                  dict(file=tile_png, mode='tile'))
        with t.case('solid_color'):
            if set_veil('#336699', 'solid_color'):
                v = c.wait_veil(OUT, 'shown', kind='color')
                t.check(v.get('color') == '#336699', 'status color #336699', json.dumps(v))
                shot = c.settled_screenshot(OUT)
                t.compare(shot, vt.expect_solid('#336699', W, H), 'solid_color', **EXACT)

        with t.case('a click on the wallpaper is on Root'):
            root_menu(t, c, '#336699')

        with t.case('a client of another user'):
            other_user(t, c)

        with t.case('video'):
            set_veil(clip, 'fill')
            v = c.wait_veil(OUT, 'shown', file=clip)
            t.check(v.get('kind') == 'video', 'status kind video', json.dumps(v))
            f0 = frames()
            c.check_until(lambda: frames() >= f0 + 10,
                          f'the video plays (frames {f0} -> {f0 + 10} or more)')
            shot = c.screenshot(OUT)
            t.compare(shot, vt.expect_fill(clip, W, H), 'video-fill', **VIDEO)

        with t.case('fullscreen client'):
            covered(t, c, frames)

        with t.case('hotplug'):
            hotplug(t, c, img_png)

        with t.case('reconfigure'):
            # The attribute form, $HOME, an output of its own; * is no longer in rc.xml.
            write(rc_path, rc_xml(f'    <wallpaper output="{OUT}" mode="stretch" '
                                  f'file="$HOME/media/image-1600x1000.png" />'))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            v = c.wait_veil(OUT, 'shown', file=img_png, mode='stretch')
            t.check(v.get('setting') == OUT and v.get('error') is None,
                    "after --reconfigure, the changed rc.xml's wallpaper shows", json.dumps(v))
            t.compare(c.settled_screenshot(OUT), vt.expect_stretch(img_png, W, H),
                      'reconfigure-stretch', **SCALED)

        with t.case('reconfigure with a bad file'):
            missing = os.path.join(media, 'missing.png')
            write(rc_path, rc_xml(f'    <wallpaper output="{OUT}" mode="fill">'
                                  f'~/media/missing.png</wallpaper>'))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            c.wait_until(lambda: 'missing.png' in c.log_text(), 'labwc to log the bad file')
            lines = [line for line in c.log_text().splitlines() if 'missing.png' in line]
            t.check(any('wallpaper for output' in line and missing in line for line in lines),
                    'labwc logs the file it cannot show', '\n'.join(lines[-3:]))
            v = c.veil(OUT)
            t.check(v.get('state') == 'shown' and v.get('file') == img_png and
                    v.get('mode') == 'stretch', 'the old wallpaper stays', json.dumps(v))
            t.compare(c.settled_screenshot(OUT), vt.expect_stretch(img_png, W, H),
                      'bad-file-keeps-old', **SCALED)

        with t.case('exit'):
            before = len(c.log_text())
            c.stop('exit')
            tail = c.log_text()[before:]
            bad = [line for line in tail.splitlines()
                   if re.search(r'veil|thread|AddressSanitizer|runtime error', line, re.I)]
            t.check(not bad, 'nothing about veil or threads is logged at exit',
                    '\n'.join(bad[:10]))

    if sanitized:
        reports = [line for line in c.log_text().splitlines()
                   if 'runtime error:' in line or 'AddressSanitizer' in line]
        t.check(not reports, 'no sanitizer report in the labwc log', '\n'.join(reports[:10]))


def root_menu(t, c, color):
    """
    A right click on the wallpaper opens labwc's root menu (the default Root mouse binding),
    as on an empty desktop: get_cursor_context() must see Root, not veil's buffer. wlrctl
    clicks through the virtual pointer protocol, wtype's Escape closes the menu.
    """
    wlrctl, wtype = shutil.which('wlrctl'), shutil.which('wtype')
    if not t.check(wlrctl and wtype, 'wlrctl and wtype are installed'):
        return
    t.check(is_solid(c.settled_screenshot(OUT), color, 0), f'the wallpaper is solid {color}')
    for argv in (['pointer', 'move', '200', '200'], ['pointer', 'click', 'right']):
        r = subprocess.run([wlrctl] + argv, env=c.client_env, capture_output=True, text=True,
                           timeout=60)
        t.check(r.returncode == 0, f'`wlrctl {" ".join(argv)}` exits 0', r.stderr.strip())

    def menu():
        shot = c.screenshot(OUT)
        other = vt.np.any(shot != vt.np.array(vt.rgb(color), vt.np.uint8), axis=2)
        return other.any() and other.mean() < 0.2 and vt.bbox(other)
    box = c.check_until(menu, 'a right click on the wallpaper opens the root menu', timeout=20)
    say(f'   the menu is at {box}')
    r = subprocess.run([wtype, '-k', 'Escape'], env=c.client_env, capture_output=True,
                       text=True, timeout=60)
    t.check(r.returncode == 0, '`wtype -k Escape` exits 0', r.stderr.strip())
    c.check_until(lambda: is_solid(c.screenshot(OUT), color, 0),
                  'Escape closes it: the wallpaper shows whole again', timeout=20)


def other_user(t, c):
    """
    labwc's global filter asks veil_scene_filter_global(): veil's default filter refuses a
    client of another user, so labwc must not even offer it the global.
    """
    if not vt.can_run_as_other_user():
        say('   (not run: needs root and setpriv to run veilctl as another user)')
        return
    before = c.veil(OUT)
    with vt.socket_open_to_others(c) as sock:
        env = dict(c.client_env, WAYLAND_DISPLAY=sock, HOME='/')
        r = subprocess.run(vt.OTHER_USER + [c.veilctl, 'set', '-o', OUT, '#ff0000',
                                            'solid_color'],
                           env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=vt.IPC_TIMEOUT)
        err = r.stderr.strip()
        t.check(r.returncode == 1 and 'does not offer' in err,
                "labwc's global filter hides veil's global from another user's client",
                f'exit {r.returncode}: {err}')
    after = c.veil(OUT)
    t.check(after == before, 'the wallpaper is unchanged', f'{before} -> {after}')


def covered(t, c, frames):
    """A fullscreen client covers the output: veil is hidden and the video stops."""
    log = t.path('fullscreen-client.log')
    with vt.fullscreen_client(c, log, vt.rgb('#18c040'), W, H) as client:
        def green():
            vt.require_running(client, log)
            return is_solid(c.screenshot(OUT), '#18c040', 12)
        if not c.check_until(green, 'a fullscreen window covers the whole output'):
            return
        v = c.wait_veil(OUT, 'hidden')
        t.check(v.get('kind') == 'video', 'veilctl reports the video as hidden', json.dumps(v))
        with vt.StatusWatch(c.veilctl, c.client_env) as watch:
            cm.still_while_hidden(t, c, OUT, frames, green, 'no frame shown while covered',
                                  watch=watch)
    c.wait_veil(OUT, 'shown')
    a = frames()
    c.check_until(lambda: frames() >= a + 5, 'the video plays again once the window is gone')


def hotplug(t, c, img_png):
    """
    labwc has no command line for outputs; its VirtualOutputAdd and VirtualOutputRemove
    actions make and destroy a headless output. They are bound to F10 and F11 in rc.xml and
    wtype presses those through the virtual keyboard protocol.
    """
    wtype = shutil.which('wtype')
    if not t.check(wtype, 'wtype is installed (it presses the keys of VirtualOutputAdd)'):
        say('NOTE: hotplug not exercised: without wtype nothing can run labwc\'s '
            'VirtualOutputAdd headless')
        return
    # `veilctl off` without -o also forgets the outputs' own settings: * then counts.
    rc, _, err = c.ctl('off')
    t.check(rc == 0, '`veilctl off` (every output) exits 0', err)
    rc, _, err = c.ctl('set', img_png, 'fill')
    t.check(rc == 0, '`veilctl set <image> fill` (every output) exits 0', err)
    c.wait_veil(OUT, 'shown', file=img_png, setting='*')

    def press(key):
        r = subprocess.run([wtype, '-k', key], env=c.client_env, capture_output=True,
                           text=True, timeout=60)
        t.check(r.returncode == 0, f'`wtype -k {key}` exits 0', r.stderr.strip())

    press('F10')
    try:
        v = c.wait_until(lambda: c.status().get(VIRT), f'{VIRT} to appear in veilctl status',
                         timeout=20)
    except vt.Failure as e:
        say(f'NOTE: hotplug not exercised: F10 (VirtualOutputAdd) made no output: {e}')
        raise
    say(f'   VirtualOutputAdd made {VIRT}')
    v = c.wait_veil(VIRT, 'shown', file=img_png, setting='*')
    t.check(v.get('kind') == 'image', f"{VIRT} shows the wallpaper set for every output",
            json.dumps(v))
    shot = c.settled_screenshot(VIRT)
    t.compare(shot, vt.expect_fill(img_png, shot.shape[1], shot.shape[0]), 'virtual-fill',
              **SCALED)
    press('F11')
    c.check_until(lambda: VIRT not in c.status(), f'VirtualOutputRemove removed {VIRT}')
    v = c.veil(OUT)
    t.check(v.get('state') == 'shown' and v.get('file') == img_png,
            f'{OUT} goes on showing its wallpaper', json.dumps(v))
    t.compare(c.settled_screenshot(OUT), vt.expect_fill(img_png, W, H), 'after-unplug',
              **SCALED)


SHIM = r'''
struct wl_display;
struct wlr_renderer;
struct veil_scene;
struct veil_scene *veil_scene_create(struct wl_display *display, struct wlr_renderer *renderer) {
	(void)display;
	(void)renderer;
	return 0;
}
'''


def without_veil(t, labwc, veilctl, sanitized):
    """labwc whose veil_scene_create() returned NULL runs on: no global, no crash."""
    with t.case('without veil: setup'):
        cc = shutil.which('cc') or shutil.which('gcc') or shutil.which('clang')
        if not t.check(cc, 'a C compiler builds the library that makes veil_scene_create fail'):
            return
        src, shim = t.path('no-veil.c'), t.path('no-veil.so')
        write(src, SHIM)
        r = subprocess.run([cc, '-shared', '-fPIC', '-o', shim, src], capture_output=True,
                           text=True, timeout=120)
        if not t.check(r.returncode == 0, 'the library builds', r.stderr[-800:]):
            return
    env = preload_env(t, sanitized, shim)
    home = t.path('home-no-veil')
    cfgdir = t.path('labwc-config-no-veil')
    os.makedirs(home)
    labwc_config(cfgdir, SOLID_WALLPAPER)
    with Labwc(t, labwc, veilctl, cfgdir, home, env=env, name='labwc-no-veil',
               with_veil=False) as c:
        with t.case('without veil'):
            c.check_until(lambda: 'unable to create veil scene' in c.log_text(),
                          'veil_scene_create() failed and labwc says so', timeout=20)
            rc, _, err = c.ctl('status')
            t.check(rc == 1 and err != '',
                    'veilctl finds no control global (exit 1, a message)', f'{rc}: {err}')
            c.check_until(lambda: is_solid(c.screenshot(OUT), BG), f'swaybg ({BG}) shows')
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            time.sleep(1.0)
            t.check(c.alive(), 'labwc survives a reconfigure with <wallpapers> and no veil',
                    vt._tail(c.log_path))
            c.stop('exit')


# What unpatched labwc 0.20.2 does on a renderer loss with wlroots 0.20: handle_renderer_lost()
# destroys the old renderer while the renderer is still emitting "lost" (wl_signal_emit_mutable()
# keeps two entries of its own in the listener list until it returns), and wlr_renderer_destroy()
# asserts that nobody listens to "lost" any more. The series' patch 4 fixes it; should the abort
# come back, the failure names it.
LABWC_LOST_ABORT = ("wlr_renderer_destroy: Assertion "
                    "`wl_list_empty(&r->events.lost.listener_list)' failed")


def renderer_loss(t, labwc, veilctl, sanitized):
    """
    A GPU reset, provoked: the headless backend cannot lose its renderer, so a preloaded library
    (tests/integration/lose-renderer.c) makes the renderer that wlr_renderer_autocreate() gave
    labwc emit "lost" on SIGUSR2, as wlroots' GPU renderers do, and writes veil's own status
    JSON on SIGUSR1 (veilctl's status has no pipeline name). labwc's handle_renderer_lost()
    stops listening to the lost renderer and, from an idle callback (the series' patch 4), labwc
    makes a new renderer and allocator, calls veil_scene_set_renderer(), reconfigures and
    destroys the old renderer. A video plays on HEADLESS-1 and a still shows on VIRT-1, both
    set with veilctl over rc.xml's `*`: labwc must survive, the video restart for the new
    renderer (a new pipeline) and play on, the still's picture and both settings stay.
    labwc runs with -V, so that its log and veil's say what happened.
    """
    with t.case('renderer loss: setup'):
        shim = vt.build_lose_renderer(t)
        if shim is None:
            say('NOTE: renderer loss not exercised: the library that provokes it did not build')
            return
    media = t.media
    clip = os.path.join(media, 'clip-512x320.mp4')    # made by drive()
    img_png = os.path.join(media, 'image-1600x1000.png')
    status_file = t.path('renderer-loss-status.json')
    env = preload_env(t, sanitized, shim, VEIL_TEST_STATUS_FILE=status_file)
    home = t.path('home-renderer-loss')
    cfgdir = t.path('labwc-config-renderer-loss')
    os.makedirs(home)
    labwc_config(cfgdir, SOLID_WALLPAPER)
    with Labwc(t, labwc, veilctl, cfgdir, home, env=env, name='labwc-renderer-loss',
               args=['-V']) as c:
        with t.case('renderer loss'):
            def made():
                return c.log_text().count('lose-renderer: the compositor made renderer')

            def pipeline():
                """The video's pipeline, from veil_scene_status_json() (SIGUSR1)."""
                if os.path.exists(status_file):
                    os.unlink(status_file)
                c.proc.send_signal(signal.SIGUSR1)
                c.wait_until(lambda: os.path.exists(status_file), 'veil\'s status JSON')
                with open(status_file) as f:
                    status = json.load(f)
                return ((status or {}).get(OUT, {}).get('source') or {}).get('pipeline')

            t.check(made() == 1, 'the preloaded library saw labwc make its renderer',
                    vt._tail(c.log_path, 20))
            rc, _, err = c.ctl('set', '-o', OUT, clip, 'fill')
            t.check(rc == 0, f'`veilctl set -o {OUT} <video> fill` exits 0', err)
            still = None
            wtype = shutil.which('wtype')
            if wtype:
                r = subprocess.run([wtype, '-k', 'F10'], env=c.client_env,
                                   capture_output=True, text=True, timeout=60)
                t.check(r.returncode == 0, '`wtype -k F10` exits 0', r.stderr.strip())
                c.wait_until(lambda: c.status().get(VIRT), f'{VIRT} to appear')
                still = VIRT
                rc, _, err = c.ctl('set', '-o', still, img_png, 'fit', '#203040')
                t.check(rc == 0, f'`veilctl set -o {still} <image> fit #203040` exits 0', err)
            else:
                say('NOTE: no wtype: no second output, the renderer loss is checked without a '
                    'still')
            video = c.wait_veil(OUT, 'shown', file=clip)
            image = c.wait_veil(still, 'shown', file=img_png) if still else None
            shown = lambda: c.veil(OUT).get('frames', 0)  # noqa: E731
            a = shown()
            c.wait_until(lambda: shown() >= a + 5, 'the video to play')
            before = c.wait_until(pipeline, 'the video\'s pipeline in veil\'s status')
            say(f'   the video plays, pipeline {before}')
            picture = c.settled_screenshot(still) if still else None

            c.proc.send_signal(signal.SIGUSR2)

            def replaced_or_gone():
                log = c.log_text()
                at = log.find('lose-renderer: loss 1: lost emitted')
                if not c.alive():
                    return 'gone'
                if at >= 0 and made() == 2 and re.search(
                        r'lose-renderer: renderer \S+ destroyed', log[at:]):
                    return 'replaced'
                return None
            deadline = time.monotonic() + vt.WAIT_TIMEOUT
            outcome = None
            while outcome is None and time.monotonic() < deadline:
                outcome = replaced_or_gone()
                time.sleep(0.05)
            log = c.log_text()
            loss = log[log.find('lose-renderer: loss 1'):]
            t.check('Re-creating renderer after GPU reset' in loss and made() == 2,
                    "labwc's handle_renderer_lost() ran and made a new renderer",
                    vt._tail(c.log_path, 30))
            t.check('veil: the compositor has a new renderer' in loss,
                    'labwc handed veil the new renderer', vt._tail(c.log_path, 30))
            if outcome == 'gone':
                c.stopped = True
                rc = c.proc.returncode
                c._cleanup()
                why = (f' ({LABWC_LOST_ABORT}: labwc destroyed the old renderer inside its '
                       f'"lost" signal, is patch 4 of the series applied?)'
                       if LABWC_LOST_ABORT in loss else '')
                raise vt.Failure(f'labwc did not survive the renderer loss: '
                                 f'{vt.describe_status(rc)}{why}; log tail:\n'
                                 + vt._tail(c.log_path, 40))
            if outcome is None:
                raise vt.Failure('labwc neither replaced its renderer nor exited; log tail:\n'
                                 + vt._tail(c.log_path, 30))
            say('   the renderer emitted lost; labwc made a new one, destroyed the old, and '
                'runs on')

            def restarted():
                v = c.veil(OUT)
                p = pipeline()
                return (v, p) if v.get('state') == 'shown' and p and p != before else None
            after, now = c.wait_until(restarted, 'the video to restart with a new pipeline')
            t.check(now != before, 'the video restarted for the new renderer',
                    f'pipeline {before} -> {now}')
            same = ('kind', 'setting', 'file', 'mode', 'color')
            t.check(all(after.get(k) == video.get(k) for k in same) and
                    after.get('error') is None,
                    f'{OUT} keeps its veilctl setting', f'{video} -> {after}')
            a = shown()
            c.check_until(lambda: shown() >= a + 10, f'the video plays on after the loss '
                          f'(frames {a} -> {a + 10} or more)')
            if still:
                img_after = c.veil(still)
                t.check(all(img_after.get(k) == image.get(k) for k in same + ('state',)) and
                        img_after.get('error') is None,
                        f'{still} keeps its veilctl setting', f'{image} -> {img_after}')
                t.compare(c.settled_screenshot(still), picture, 'renderer-loss-still',
                          tolerance=0)
            c.stop('exit')


def desktops_xml(*names):
    """<desktops> with these names, and no workspace OSD (it would show in the screenshots)."""
    inner = ''.join(f'<name>{n}</name>' for n in names)
    return (f'  <desktops number="{len(names)}"><popupTime>0</popupTime>'
            f'<names>{inner}</names></desktops>')


def workspaces(t, labwc, veilctl, sanitized):
    """
    A wallpaper per workspace: rc.xml names two workspaces, alpha and beta, and gives each a
    picture of its own (alpha for every output, beta for HEADLESS-1 only) over a solid colour
    for every output. F7 and F8 (GoToDesktop, pressed with wtype through the virtual keyboard
    protocol; labwc has no IPC) switch between them: labwc's workspaces_switch_to() tells veil
    which workspace the outputs show. Each workspace must show its picture, computed by ffmpeg
    on its own, and veilctl's status the workspace shown and the setting it resolves to. A
    virtual output shows alpha's picture (a `*` setting) but the solid colour on beta (whose
    setting is HEADLESS-1's). Then reconfigures: both renamed (in <names> and in their
    <wallpaper>), with a setting of veilctl's (-W) for the first, which must follow it; the two
    names swapped; a third workspace whose file is missing (the log and the status name it,
    the workspace shows the output's colour); alpha's wallpaper removed (`veil workspace alpha
    off`).
    """
    wtype = shutil.which('wtype')
    with t.case('workspaces: setup'):
        if not t.check(wtype, 'wtype is installed (it presses the keys of GoToDesktop)'):
            return
    media = t.media
    pic = vt.quadrant_pixels(800, 600)
    alpha_png = vt.make_png(os.path.join(media, 'ws-alpha-800x600.png'), pic)
    # beta's picture: the same quadrants mirrored, so every quadrant changes colour class
    beta_png = vt.make_png(os.path.join(media, 'ws-beta-800x600.png'),
                           vt.np.ascontiguousarray(pic[:, ::-1]))
    # veilctl's, upside down
    gamma_png = vt.make_png(os.path.join(media, 'ws-gamma-800x600.png'),
                            vt.np.ascontiguousarray(pic[::-1]))
    solid = '#112233'
    expect_alpha = vt.expect_fill(alpha_png, W, H)
    expect_beta = vt.expect_fill(beta_png, W, H)
    expect_gamma = vt.expect_fill(gamma_png, W, H)
    expect_solid = vt.expect_solid(solid, W, H)

    def wallpapers(alpha='alpha', beta='beta', extra=''):
        """rc.xml's: alpha's picture for `*` on <alpha>, beta's for HEADLESS-1 on <beta>"""
        lines = [f'    <wallpaper output="*" mode="solid_color" color="{solid}" />']
        if alpha:
            lines.append(f'    <wallpaper output="*" workspace="{alpha}" mode="fill">'
                         f'~/ws-media/ws-alpha-800x600.png</wallpaper>')
        lines.append(f'    <wallpaper output="{OUT}" workspace="{beta}" mode="fill" '
                     f'file="$HOME/ws-media/ws-beta-800x600.png" />')
        return '\n'.join(lines + ([extra] if extra else []))

    home = t.path('home-workspaces')
    os.makedirs(home)
    os.symlink(media, os.path.join(home, 'ws-media'))
    cfgdir = t.path('labwc-config-workspaces')
    os.makedirs(cfgdir)
    rc_path = os.path.join(cfgdir, 'rc.xml')
    write(rc_path, rc_xml(wallpapers(), desktops_xml('alpha', 'beta')))
    write(os.path.join(cfgdir, 'autostart'), f"swaybg -c '{BG}' >/dev/null 2>&1 &\n")

    with Labwc(t, labwc, veilctl, cfgdir, home, env=sanitizer_env(t, sanitized),
               name='labwc-workspaces') as c:
        def press(key):
            r = subprocess.run([wtype, '-k', key], env=c.client_env, capture_output=True,
                               text=True, timeout=60)
            t.check(r.returncode == 0, f'`wtype -k {key}` exits 0', r.stderr.strip())

        def shows(output, workspace, file, setting, setting_workspace, error=()):
            """
            Waits for the status; checks it; returns it. error: words that the status's error
            must hold, () for no error, None for any.
            """
            want = dict(workspace=workspace, setting_workspace=setting_workspace)
            if file is not None:
                want['file'] = file
            else:
                want['kind'] = 'color'
            try:
                v = c.wait_veil(output, 'shown', **want)
            except vt.Failure as e:
                t.fail(f'{output} on {workspace}: status {want}', str(e))
                return None
            t.check(v.get('setting') == setting,
                    f'{output} on workspace {workspace}: the setting of {setting} for '
                    f'{setting_workspace or "every workspace"} shows', json.dumps(v))
            if error == ():
                t.check(v.get('error') is None, f'{output}: no error in the status',
                        json.dumps(v))
            elif error is not None:
                t.check(all(w in (v.get('error') or '') for w in error),
                        f'{output}: the status\'s error names {", ".join(error)}',
                        json.dumps(v))
            return v

        def picture(output, expected, label):
            t.compare(c.settled_screenshot(output), expected, label, **SCALED)

        with t.case('workspaces at startup'):
            v = shows(OUT, 'alpha', alpha_png, '*', 'alpha')
            if v:
                ws = v.get('workspaces') or {}
                t.check(set(ws) == {'alpha', 'beta'} and
                        ws['alpha'].get('setting') == '*' and
                        ws['alpha'].get('file') == alpha_png and
                        ws['beta'].get('setting') == OUT and
                        ws['beta'].get('file') == beta_png,
                        'the status lists the two workspace settings of rc.xml',
                        json.dumps(ws))
            picture(OUT, expect_alpha, 'ws-alpha')
            rc, out, err = c.ctl('status')
            t.check(rc == 0 and re.search(r'workspace\W+alpha', out) is not None,
                    '`veilctl status` says the workspace shown (alpha)', out + err)

        with t.case('workspace switches'):
            for key, ws, png, setting, expected in (
                    ('F8', 'beta', beta_png, OUT, expect_beta),
                    ('F7', 'alpha', alpha_png, '*', expect_alpha),
                    ('F8', 'beta', beta_png, OUT, expect_beta)):
                press(key)
                if shows(OUT, ws, png, setting, ws):
                    picture(OUT, expected, f'ws-switch-{ws}')
            rc, out, err = c.ctl('status')
            t.check(rc == 0 and re.search(r'workspace\W+beta', out) is not None,
                    '`veilctl status` says the workspace shown (beta)', out + err)

        with t.case('workspaces on a second output'):
            press('F10')
            try:
                c.wait_until(lambda: c.status().get(VIRT), f'{VIRT} to appear', timeout=20)
            except vt.Failure as e:
                t.fail(f'VirtualOutputAdd made {VIRT}', str(e))
            else:
                # beta's setting is HEADLESS-1's: VIRT-1 shows the colour for every output
                shows(VIRT, 'beta', None, '*', None)
                shot = c.settled_screenshot(VIRT)
                t.check(is_solid(shot, solid), f'{VIRT} on beta shows {solid}')
                press('F7')
                shows(VIRT, 'alpha', alpha_png, '*', 'alpha')
                shows(OUT, 'alpha', alpha_png, '*', 'alpha')
                shot = c.settled_screenshot(VIRT)
                t.compare(shot, vt.expect_fill(alpha_png, shot.shape[1], shot.shape[0]),
                          'ws-virtual-alpha', **SCALED)
                press('F11')
                c.check_until(lambda: VIRT not in c.status(),
                              f'VirtualOutputRemove removed {VIRT}')

        with t.case('workspaces renamed on reconfigure'):
            # A setting of veilctl's for alpha: HEADLESS-1's beats rc.xml's for *
            press('F8')
            shows(OUT, 'beta', beta_png, OUT, 'beta')
            rc, _, err = c.ctl('set', '-o', OUT, '-W', 'alpha', gamma_png, 'fill')
            t.check(rc == 0, f'`veilctl set -o {OUT} -W alpha <image> fill` exits 0', err)
            # labwc renames both in place; rc.xml's <wallpaper> say the new names
            write(rc_path, rc_xml(wallpapers(alpha='apple', beta='bravo'),
                                  desktops_xml('apple', 'bravo')))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            v = shows(OUT, 'bravo', beta_png, OUT, 'bravo')
            if v:
                t.check(set(v.get('workspaces') or {}) == {'apple', 'bravo'},
                        'the renamed workspaces keep their settings, no other is left',
                        json.dumps(v.get('workspaces')))
            picture(OUT, expect_beta, 'ws-renamed')
            press('F7')
            shows(OUT, 'apple', gamma_png, OUT, 'apple')
            picture(OUT, expect_gamma, 'ws-renamed-veilctl')

        with t.case('workspaces swap names on reconfigure'):
            # [apple, bravo] -> [bravo, apple]: labwc renames apple to bravo while bravo is
            # there, and then bravo to apple. veilctl's setting stays with its workspace (the
            # first, now bravo); rc.xml's follow their names.
            write(rc_path, rc_xml(wallpapers(alpha='bravo', beta='apple'),
                                  desktops_xml('bravo', 'apple')))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            shows(OUT, 'bravo', gamma_png, OUT, 'bravo')
            picture(OUT, expect_gamma, 'ws-swapped-veilctl')
            press('F8')
            shows(OUT, 'apple', beta_png, OUT, 'apple')
            picture(OUT, expect_beta, 'ws-swapped-rcxml')
            rc, _, err = c.ctl('off', '-o', OUT, '-W', 'bravo')
            t.check(rc == 0, f'`veilctl off -o {OUT} -W bravo` exits 0', err)
            press('F7')
            shows(OUT, 'bravo', alpha_png, '*', 'bravo')
            picture(OUT, expect_alpha, 'ws-veilctl-off')
            press('F8')

        with t.case('a workspace with a bad file'):
            missing = os.path.join(media, 'ws-missing.png')
            bad = (f'    <wallpaper output="*" workspace="charlie" mode="fill">'
                   f'{missing}</wallpaper>')
            # [bravo, apple] -> [alpha, bravo, charlie]
            write(rc_path, rc_xml(wallpapers(beta='bravo', extra=bad),
                                  desktops_xml('alpha', 'bravo', 'charlie')))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            c.wait_until(lambda: 'ws-missing.png' in c.log_text(), 'labwc to log the bad file')
            lines = [line for line in c.log_text().splitlines() if 'ws-missing.png' in line]
            t.check(any('wallpaper for output *, workspace charlie' in line and missing in line
                        for line in lines),
                    'labwc logs the file it cannot show and the workspace', '\n'.join(lines[-3:]))
            press('F9')
            shows(OUT, 'charlie', None, '*', None, error=("'charlie'", missing))
            picture(OUT, expect_solid, 'ws-bad-file-falls-back')

        with t.case("a workspace's wallpaper removed"):
            press('F7')
            shows(OUT, 'alpha', alpha_png, '*', 'alpha', error=None)
            write(rc_path, rc_xml(wallpapers(alpha=None, beta='bravo'),
                                  desktops_xml('alpha', 'bravo')))
            ok, err = c.labwc_cmd('--reconfigure')
            t.check(ok, '`labwc --reconfigure` exits 0', err)
            v = shows(OUT, 'alpha', None, '*', None, error=None)
            if v:
                t.check(set(v.get('workspaces') or {}) == {'bravo'},
                        "alpha's setting is gone (`veil workspace alpha off`), bravo's stays",
                        json.dumps(v.get('workspaces')))
            picture(OUT, expect_solid, 'ws-removed')
            press('F8')
            shows(OUT, 'bravo', beta_png, OUT, 'bravo', error=None)
            picture(OUT, expect_beta, 'ws-removed-bravo-stays')

        c.stop('exit')


def atomicity(t, labwc, veilctl, tools, sanitized):
    """
    A wallpaper per workspace, frame by frame (tests/veiltest/ws.py): rc.xml names three
    workspaces, 1, 2 and 3, each with a <wallpaper workspace=""> picture of its own colour, and
    places windows in the middle of the output; each gets a window of its own colour
    (solid-window). 20 switches with the GoToDesktop keys (F7, F8, F9, pressed by wtype) are
    recorded frame by frame (tests/tools/frame-record, labwc's wlr-screencopy): no frame may
    show one workspace's window over another's picture, or over none. The recorder's own check
    first; a control after (the workspace wallpapers taken off with veilctl, the output's set
    with veilctl after each switch: the count must see mixed frames).
    """
    wtype = shutil.which('wtype')
    with t.case('atomicity: setup'):
        missing = [f'{k} ({v!r})' for k, v in tools.items() if not v or
                   not os.access(v, os.X_OK)]
        if not t.check(not missing, 'frame-record and solid-window are built',
                       ', '.join(missing) + ' (meson passes --frame-record, --solid-window)'):
            return
        if not t.check(wtype, 'wtype is installed (it presses the keys of GoToDesktop)'):
            return
    pictures = wslib.make_pictures(t.media, (W, H))
    outdir = t.path('ws-atomic')
    home = os.path.join(outdir, 'home')
    os.makedirs(home)
    cfgdir = os.path.join(outdir, 'labwc-config')
    os.makedirs(cfgdir)
    wallpapers = '\n'.join(f'    <wallpaper output="*" workspace="{ws}" mode="fill">'
                           f'{pictures[ws]}</wallpaper>' for ws in wslib.WORKSPACES)
    write(os.path.join(cfgdir, 'rc.xml'), rc_xml(
        wallpapers, desktops_xml(*wslib.WORKSPACES),
        '  <placement><policy>center</policy></placement>\n'))
    with Labwc(t, labwc, veilctl, cfgdir, home, env=sanitizer_env(t, sanitized),
               name='labwc-ws-atomic') as c:
        driver = wslib.KeyDriver(c, dict(zip(wslib.WORKSPACES, ('F7', 'F8', 'F9'))), wtype)
        wslib.atomicity(t, c, tools, pictures, outdir, driver=driver, label='atomicity: ')
        c.stop('exit')


def flat_png(path, colour):
    """A picture of one colour at the output's size: its screenshot is exactly that colour."""
    import numpy as np
    return vt.make_png(path, np.broadcast_to(np.array(vt.rgb(colour), np.uint8),
                                             (H, W, 3)).copy())


def restart(t, labwc, veilctl, sanitized):
    """
    What veilctl set is kept across a restart (patch 5): labwc gives veil
    $XDG_STATE_HOME/veil/labwc.json, making the directories, and <wallpaper restore="yes">
    shows it again at the next start; without the state file, the wallpaper's own file. A
    private HOME and XDG_STATE_HOME, three starts, exact screenshots of flat pictures.
    """
    started = time.monotonic()
    with t.case('restart: ~/.local/state by default'):
        # drive()'s labwc had HOME=t.outdir and no XDG_STATE_HOME, and veilctl set pictures.
        default = os.path.join(t.outdir, '.local', 'state', 'veil', 'labwc.json')
        t.check(os.path.isfile(default), f'without XDG_STATE_HOME, veil kept {default}')
    home = t.path('restart-home')
    state_home = os.path.join(home, 'xdg', 'state')  # no directory yet: labwc makes it
    state_file = os.path.join(state_home, 'veil', 'labwc.json')
    os.makedirs(home)
    set_c, fb_c = '#1e6ea0', '#3cc850'
    set_png = flat_png(t.path('restart-set.png'), set_c)
    fb_png = flat_png(t.path('restart-fallback.png'), fb_c)
    cfgdir = t.path('labwc-config-restart')
    labwc_config(cfgdir, f'    <wallpaper output="*" restore="yes" mode="fill">{fb_png}'
                         f'</wallpaper>')
    env = dict(sanitizer_env(t, sanitized), XDG_STATE_HOME=state_home)

    def remembered():
        try:
            with open(state_file) as f:
                s = json.load(f)
        except (OSError, ValueError):
            return None
        return (((s.get('outputs') or {}).get('*') or {}).get('file') or {}).get('path')

    def fallback_shows(c, why):
        v = c.wait_veil(OUT, 'shown', file=fb_png)
        t.check(v.get('restored') is False and v.get('restore_reason'),
                f'the status says not restored ({why}), and why', json.dumps(v))
        t.compare(c.settled_screenshot(OUT), vt.expect_solid(fb_c, W, H),
                  f'restart-fallback-{why}', **EXACT)

    with Labwc(t, labwc, veilctl, cfgdir, home, env=env, name='labwc-restart-1') as c:
        with t.case('restart: first start, nothing kept'):
            sdir = os.path.dirname(state_file)
            t.check(os.path.isdir(sdir) and (os.stat(sdir).st_mode & 0o777) == 0o700,
                    'labwc made $XDG_STATE_HOME/veil (0700) and its missing parents')
            fallback_shows(c, 'first start')
            rc, _, err = c.ctl('set', set_png, 'fill')
            t.check(rc == 0, '`veilctl set <picture> fill` exits 0', err)
            c.wait_veil(OUT, 'shown', file=set_png)
            c.check_until(lambda: remembered() == set_png,
                          'veil wrote the picture to $XDG_STATE_HOME/veil/labwc.json')
            c.stop('exit')

    with Labwc(t, labwc, veilctl, cfgdir, home, env=env, name='labwc-restart-2') as c:
        with t.case('restart: restore'):
            v = c.wait_veil(OUT, 'shown', file=set_png)
            t.check(v.get('restored') is True and v.get('mode') == 'fill',
                    'the picture set with veilctl is back, restored: true', json.dumps(v))
            t.compare(c.settled_screenshot(OUT), vt.expect_solid(set_c, W, H),
                      'restart-restored', **EXACT)
            c.stop('exit')

    os.unlink(state_file)
    with Labwc(t, labwc, veilctl, cfgdir, home, env=env, name='labwc-restart-3') as c:
        with t.case('restart: state file deleted'):
            fallback_shows(c, 'no state file')
            c.stop('exit')

    # A state directory that cannot be made: logged, and labwc runs without a state file.
    blocker = os.path.join(home, 'not-a-directory')
    write(blocker, 'in the way\n')
    env = dict(env, XDG_STATE_HOME=os.path.join(blocker, 'state'))
    with Labwc(t, labwc, veilctl, cfgdir, home, env=env, name='labwc-restart-4') as c:
        with t.case('restart: no state directory'):
            c.wait_veil(OUT, 'shown', file=fb_png)
            t.compare(c.settled_screenshot(OUT), vt.expect_solid(fb_c, W, H),
                      'restart-no-state-dir', **EXACT)
            log = c.log_text()
            t.check(f'unable to create {blocker}/state/veil' in log and 'not kept' in log,
                    'labwc starts, logs why nothing is kept and shows the fallback',
                    log[-1500:])
            c.stop('exit')
    say(f'# restart: {time.monotonic() - started:.1f} s')


def patched_labwc(name, description):
    """
    Parses the arguments meson gives, builds labwc with the series (build_labwc) and makes the
    test `name` with its output directory; returns (args, test, labwc's path, veilctl's path,
    sanitized); says how long the build took.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--series', required=True, help='examples/labwc')
    parser.add_argument('--veil-build', required=True, help="this build directory")
    parser.add_argument('--veilctl', required=True, help='the veilctl of this build')
    parser.add_argument('--workdir', required=True, help='where labwc is unpacked and built')
    parser.add_argument('--outdir', required=True, help='logs, screenshots, failures')
    parser.add_argument('--sources', required=True,
                        help=f'a directory that holds {TARBALL} (../shared/sources)')
    parser.add_argument('--sanitize', default='none', help="meson's b_sanitize")
    parser.add_argument('--frame-record', default='', help='tests/tools/frame-record')
    parser.add_argument('--solid-window', default='', help='tests/tools/solid-window')
    args = parser.parse_args()

    started = time.monotonic()
    outdir = os.path.abspath(args.outdir)
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    labwc = build_labwc(args, outdir)
    say(f'# labwc built in {time.monotonic() - started:.0f} s')

    # veiltest's Test parses --compositor and --outdir: hand it labwc and ours.
    sys.argv = [sys.argv[0], '--compositor', labwc, '--outdir', os.path.join(outdir, 'run')]
    t = vt.Test(name)
    os.chmod(t.outdir, 0o755)
    sanitized = bool(sanitizers(args.sanitize))
    veilctl = os.path.abspath(args.veilctl)
    with t.case('build'):
        t.check(os.access(veilctl, os.X_OK), f'veilctl is built ({veilctl})')
        check_links_this_veil(t, labwc, args.veil_build)
    return args, t, labwc, veilctl, sanitized


def main():
    started = time.monotonic()
    args, t, labwc, veilctl, sanitized = patched_labwc(
        'labwc', 'the labwc patch series, built and driven')
    drive(t, labwc, veilctl, sanitized)
    workspaces(t, labwc, veilctl, sanitized)
    atomicity(t, labwc, veilctl, {'frame-record': args.frame_record,
                                  'solid-window': args.solid_window}, sanitized)
    without_veil(t, labwc, veilctl, sanitized)
    renderer_loss(t, labwc, veilctl, sanitized)
    restart(t, labwc, veilctl, sanitized)
    say(f'# the labwc suite took {time.monotonic() - started:.0f} s')
    t.finish()


if __name__ == '__main__':
    main()
