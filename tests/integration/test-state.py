#!/usr/bin/env python3
"""
What the user set, kept across real restarts of veil-tinywl (headless, pixman), driven with the
real swaymsg and seen with grim. veil-tinywl keeps it in $XDG_STATE_HOME/veil/veil-tinywl.json:
- a picture set at run time is written down (path, size, mtime, mode, colour); a start with
  `output HEADLESS-1 veil restore <fallback>` shows it again (screenshot), the status says
  restored: true;
- a slideshow moved with `next` comes back at the same picture and position, and goes on;
- a file changed between two runs is not restored: the fallback shows, the status says why;
- hostile state files (empty, not JSON, truncated, 2 MiB, nested 100000 deep, wrong types,
  another version, a directory) are each ignored with a log line naming the file, the fallback
  shown;
- a setting changed less than a second after the last write, the compositor stopped at once:
  the last write as it stops keeps it;
- workspace settings, a transition default, fps and battery policies come back with restore
  (a workspace whose file changed is left out, with a log line; the configuration's fps line
  after restore wins over the remembered one), and are written again;
- a paused video comes back paused at its position; a playing one, stopped cleanly, comes
  back at the position it had when the compositor stopped;
- a state file that cannot be written (its name is a directory) costs a log line, nothing else;
- the compositor killed (SIGKILL) 100 times while it writes the state: each kill comes at a
  random delay after veil creates its temporary file (inotify), so that most land inside the
  write (the temporary file is left behind) or just after; the state file is always absent or
  whole JSON of version 1, never torn. Three compositors at once, each its own state file.
The pictures are flat colours at the output's size, so that each screenshot is exactly one.
"""
import ctypes
import json
import os
import random
import select
import shutil
import signal
import struct
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('state')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default: the same after each restart
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media
KILLS = 100
LANES = 3


def hexc(c):
    return '#%02x%02x%02x' % tuple(c)


def flat_png(path, c):
    return vt.make_png(path, np.broadcast_to(np.array(c, np.uint8), (H, W, 3)).copy())


state_home = t.path('state-home')
state_file = os.path.join(state_home, 'veil', 'veil-tinywl.json')
ENV = {'XDG_STATE_HOME': state_home}

A, B, FB = (10, 120, 200), (200, 40, 40), (30, 200, 60)
pic_a = flat_png(os.path.join(media, 'a.png'), A)
pic_b = flat_png(os.path.join(media, 'b.png'), B)
fallback = flat_png(os.path.join(media, 'fallback.png'), FB)
show_dir = os.path.join(media, 'show')
os.makedirs(show_dir)
slides = {}
for i in range(1, 6):
    c = (40 * i, 255 - 40 * i, (90 * i) % 256)
    slides[flat_png(os.path.join(show_dir, f's{i}.png'), c)] = c


def config(*lines):
    path = t.path(f'conf-{random.getrandbits(32):08x}')
    with open(path, 'w') as f:
        f.write(''.join(line + '\n' for line in lines))
    return path


RESTORE = f'output {OUT} veil restore {vt.quote(fallback)} fill'


def read_state():
    try:
        with open(state_file) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def entry(state):
    return ((state or {}).get('outputs') or {}).get(OUT) or {}


def screen_is(c, col, label):
    return t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(col), W, H), label,
                     **EXACT)


def log_text(c):
    with open(c.log_path, 'rb') as f:
        return f.read().decode('utf-8', 'replace')


def shown_file(c):
    s = c.veil(OUT).get('slideshow')
    return s.get('file') if isinstance(s, dict) else None


# meson runs the script as two tests (VEIL_TEST_STATE_PART): 'state' the restarts, alone (a
# debounced write read before a stop, a video's position within 0.5 s of a stop), and 'state-kill'
# the kills, two at a time (each waits for its write with inotify; no rule on time). Unset: both.
PART = os.environ.get('VEIL_TEST_STATE_PART', 'all')


# ---- SIGKILL while writing ----

IN_MODIFY, IN_CREATE, IN_MOVED_TO = 0x2, 0x100, 0x80
_libc = ctypes.CDLL(None, use_errno=True)


class Watch:
    """inotify on a directory: the first creation or change of a file named like the state."""

    def __init__(self, directory, prefix):
        self.prefix = prefix.encode()
        self.fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0 or _libc.inotify_add_watch(
                self.fd, directory.encode(), IN_CREATE | IN_MODIFY | IN_MOVED_TO) < 0:
            raise OSError(ctypes.get_errno(), 'inotify')

    def wait(self, timeout):
        """The first event's (mask, name) for a name starting with prefix, or None."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            data = os.read(self.fd, 65536)
            i = 0
            while i + 16 <= len(data):
                _, mask, _, n = struct.unpack_from('iIII', data, i)
                name = data[i + 16:i + 16 + n].rstrip(b'\0')
                i += 16 + n
                if name.startswith(self.prefix) and mask & (IN_CREATE | IN_MODIFY):
                    return mask, name.decode()

    def close(self):
        os.close(self.fd)


# A state of a few kilobytes, so that a torn one would be seen: settings of outputs that are
# not there, and of workspaces.
BULK = [f'output FAKE-{k} veil #{(37 * k) % 256:02x}{(91 * k) % 256:02x}80 solid_color'
        for k in range(40)] + [f'output * veil workspace w{k} #{k:02x}{k:02x}{k:02x} solid_color'
                               for k in range(40)]


results_lock = threading.Lock()


def count(results, key, value=1):
    with results_lock:
        if isinstance(results[key], list):
            results[key].append(value)
        else:
            results[key] += value


def kill_lane(lane, kills, rng, results):
    try:
        kill_runs(lane, kills, rng, results)
    except Exception as e:
        count(results, 'bad', f'lane {lane}: {e!r}')


def kill_runs(lane, kills, rng, results):
    home = t.path(f'kill-home-{lane}')
    directory = os.path.join(home, 'veil')
    path = os.path.join(directory, 'veil-tinywl.json')
    env = {'XDG_STATE_HOME': home}
    os.makedirs(directory, exist_ok=True)
    conf = config(*BULK, RESTORE)
    for i in range(kills):
        if i == 0 and lane == 0:
            # A write cut short leaves its temporary file, which the next start removes.
            with open(path + '.Xq3vZ1', 'w') as f:
                f.write('{"version": 1, "outp')
        watch = Watch(directory, 'veil-tinywl.json')
        c = vt.Compositor(t, outputs=1, env=env, name=f'kill-{lane}-{i}', config=conf)
        stop = threading.Event()
        try:
            c.start()

            def churn():
                k = 0
                while not stop.is_set():
                    k += 1
                    what = (f'{vt.quote(pic_a)} fit #{k % 256:02x}3040' if k % 3 else
                            f'#{k % 256:02x}0000 solid_color')
                    try:
                        c.msg(f'output {OUT} veil {what}', timeout=5)
                    except Exception:
                        return
                    stop.wait(0.05)

            th = threading.Thread(target=churn, daemon=True)
            th.start()
            event = watch.wait(10)
            if event is None:
                count(results, 'bad', f'{lane}-{i}: no write within 10 s')
            else:
                # Random points inside the write (its fsyncs take milliseconds) and after.
                time.sleep(rng.uniform(0, 0.006))
            c.proc.send_signal(signal.SIGKILL)
            c.proc.wait()
            stop.set()
            th.join()
        finally:
            watch.close()
            if c.proc is not None and c.proc.poll() is None:
                c.proc.kill()
                c.proc.wait()
            c.stopped = True
            if c.proc is not None:
                c._cleanup()
        if i == 0 and lane == 0:
            results['leftover_removed'] = not os.path.exists(path + '.Xq3vZ1')
        if [n for n in os.listdir(directory) if n != 'veil-tinywl.json']:
            count(results, 'inside')  # killed before the rename
        try:
            with open(path) as f:
                s = json.load(f)
            if s.get('version') != 1 or not isinstance(s.get('outputs'), dict):
                count(results, 'bad', f'{lane}-{i}: {str(s)[:200]}')
            count(results, 'whole')
        except FileNotFoundError:
            count(results, 'absent')
        except ValueError as e:
            with open(path, 'rb') as f:
                count(results, 'bad', f'{lane}-{i}: {e}: {f.read()[:200]!r}')
        count(results, 'done')


if PART != 'restarts':
    with t.case(f'killed {KILLS} times while writing: never a torn file'):
        results = {'bad': [], 'inside': 0, 'whole': 0, 'absent': 0, 'done': 0,
                   'leftover_removed': None}
        began = time.monotonic()
        lanes = [threading.Thread(target=kill_lane, args=(
            lane, KILLS // LANES + (lane < KILLS % LANES), random.Random(31 + lane), results))
            for lane in range(LANES)]
        for th in lanes:
            th.start()
        for th in lanes:
            th.join()
        took = time.monotonic() - began
        t.check(results['done'] == KILLS, f'{KILLS} kills', str(results['done']))
        t.check(not results['bad'], 'the state file was always absent or whole JSON of version 1',
                '\n'.join(results['bad'][:5]))
        t.check(results['leftover_removed'] is True,
                'a leftover temporary file removed at the start')
        # The kills land inside the write often enough for a torn file to be seen: a kill before
        # the rename leaves the temporary file (the next start removes it).
        t.check(results['inside'] >= KILLS // 10,
                f"{results['inside']} of {KILLS} kills inside a write (before its rename), "
                f"{results['whole']} found a whole file, {results['absent']} none ({took:.0f} s)")

if PART == 'kill':
    t.finish()


with t.compositor(outputs=1, env=ENV, name='first') as c:
    with t.case('a picture set at run time is written down'):
        t.check(os.path.isdir(os.path.dirname(state_file)),
                'veil-tinywl made $XDG_STATE_HOME/veil')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_a)} fit #123456')
        t.check(ok, 'a picture at run time', err)
        c.wait_veil(OUT, 'shown', file=pic_a)
        st = os.stat(pic_a)
        s = c.wait_until(lambda: (entry(read_state()).get('file') or {}).get('path') == pic_a
                         and read_state(), 'the state file names the picture')
        e = entry(s)
        t.check(s.get('version') == 1, 'version 1', str(s))
        t.check(e.get('file') == {'path': pic_a, 'size': st.st_size,
                                  'mtime_ns': st.st_mtime_ns},
                'path, size and mtime', str(e))
        t.check(e.get('mode') == 'fit' and e.get('color') == '#123456', 'mode and colour',
                str(e))
        t.check(os.listdir(os.path.dirname(state_file)) == ['veil-tinywl.json'],
                'no temporary file left beside it', str(os.listdir(os.path.dirname(state_file))))
        t.check(c.veil(OUT).get('restored') is None, 'no restore, no "restored" in the status')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_a)} fill')
        t.check(ok, 'fill', err)
        c.wait_until(lambda: entry(read_state()).get('mode') == 'fill', 'the state says fill')

    with t.case('a change just before the compositor stops is kept'):
        # The write of b comes within a second of the write of fill: it waits for the rest of
        # that second, and the compositor stops before. Only the last write, as it stops,
        # keeps it.
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_b)} fill')
        t.check(ok, 'b', err)
        c.wait_veil(OUT, 'shown', file=pic_b)
        t.check((entry(read_state()).get('file') or {}).get('path') == pic_a,
                'b not written yet (debounced)', str(entry(read_state())))
        c.stop()
        t.check((entry(read_state()).get('file') or {}).get('path') == pic_b,
                'written as the compositor stopped', str(entry(read_state())))

with t.compositor(outputs=1, env=ENV, name='restored', config=config(RESTORE)) as c:
    with t.case('restore shows it again'):
        v = c.wait_veil(OUT, 'shown', file=pic_b)
        screen_is(c, B, 'restored-b')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_a)} fill')
        t.check(ok, 'a', err)
        c.wait_until(lambda: (entry(read_state()).get('file') or {}).get('path') == pic_a,
                     'the state names a')
    with t.case('restore again (a configuration read again) brings back the latest, a'):
        # sway's reload and labwc's reconfigure run the configuration's restore once more:
        # what was set since the start (a), not what the file said then (b).
        ok, err = c.msg(RESTORE)
        t.check(ok, 'restore', err)
        v = c.wait_veil(OUT, 'shown', file=pic_a)
        t.check(v.get('restored') is True, 'the status says restored', str(v))
        screen_is(c, A, 'restored-again-a')
        c.stop()

with t.compositor(outputs=1, env=ENV, name='restored-a', config=config(RESTORE)) as c:
    with t.case('restore shows a again'):
        v = c.wait_veil(OUT, 'shown', file=pic_a)
        t.check(v.get('restored') is True, 'the status says restored', str(v))
        t.check(v.get('mode') == 'fill', 'in its mode', str(v))
        screen_is(c, A, 'restored-a')
        t.check('restored what was set before' in log_text(c), 'the log says restored')

    with t.case('a slideshow moved with next is written down'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(show_dir)} fill every 1h')
        t.check(ok, 'a slideshow', err)
        first = os.path.join(show_dir, 's1.png')
        c.wait_until(lambda: shown_file(c) == first and c.veil(OUT).get('file') == first,
                     'the first picture')
        t.check(c.veil(OUT).get('restored') is None,
                'a command after the restore: the status no longer says restored',
                str(c.veil(OUT).get('restored')))
        for i in range(2):
            c.wait_until(lambda: (c.veil(OUT).get('slideshow') or {}).get('ahead'),
                         'the next picture decoded ahead')
            before = shown_file(c)
            ok, err = c.msg(f'output {OUT} veil next')
            t.check(ok, 'next', err)
            c.wait_until(lambda: shown_file(c) != before, 'a step')
        third = os.path.join(show_dir, 's3.png')
        t.check(shown_file(c) == third, 's3 after two steps', str(shown_file(c)))
        s = c.wait_until(lambda: (entry(read_state()).get('slideshow') or {}).get('file') ==
                         third and read_state(), 'the state names s3')
        sh = entry(s)['slideshow']
        t.check(sh.get('directory') == show_dir and sh.get('position') == 3 and
                sh.get('order') == 'name' and sh.get('every') == 3600,
                'directory, position, order, interval', str(sh))

with t.compositor(outputs=1, env=ENV, name='restored-show', config=config(RESTORE)) as c:
    with t.case('the slideshow comes back at its place'):
        third = os.path.join(show_dir, 's3.png')
        c.wait_until(lambda: shown_file(c) == third and c.veil(OUT).get('file') == third,
                     'the slideshow at s3')
        v = c.veil(OUT)
        t.check(v.get('restored') is True and v['slideshow'].get('position') == 3,
                'restored, position 3', str(v))
        screen_is(c, slides[third], 'restored-s3')
        c.wait_until(lambda: (c.veil(OUT).get('slideshow') or {}).get('ahead'),
                     'the next picture decoded ahead')
        ok, err = c.msg(f'output {OUT} veil next')
        t.check(ok, 'next', err)
        fourth = os.path.join(show_dir, 's4.png')
        c.wait_until(lambda: shown_file(c) == fourth, 'next goes on to s4')
    with t.case('set b, then b changes while the compositor is stopped'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_b)} fill')
        t.check(ok, 'b', err)
        c.wait_until(lambda: (entry(read_state()).get('file') or {}).get('path') == pic_b,
                     'the state names b')

# The same name, other pixels and another size: not what was set.
time.sleep(0.01)
vt.make_png(pic_b, np.broadcast_to(np.array(A, np.uint8), (H // 2, W // 2, 3)).copy())

with t.compositor(outputs=1, env=ENV, name='changed', config=config(RESTORE)) as c:
    with t.case('a changed file falls back'):
        v = c.wait_veil(OUT, 'shown', file=fallback)
        t.check(v.get('restored') is False and 'changed' in (v.get('restore_reason') or ''),
                'restored: false, because b changed', str(v))
        screen_is(c, FB, 'changed-fallback')
        t.check('not restored' in log_text(c) and 'b.png' in log_text(c),
                'the log says why', vt._tail(c.log_path, 5))

video = os.path.join(media, 'clip.mp4')
vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=8', '-c:v', 'libx264',
            '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '15', video])
C, D = (90, 60, 200), (250, 200, 20)
pic_c = flat_png(os.path.join(media, 'c.png'), C)
pic_d = flat_png(os.path.join(media, 'd.png'), D)
MAIL = (0xab, 0xcd, 0xef)
EXTRAS = [
    f'output * veil workspace 2 {vt.quote(pic_d)} fill',
    f'output * veil workspace mail {hexc(MAIL)} solid_color',
    f'output * veil workspace 3 {vt.quote(pic_c)} fill',
    'output * veil transition fade 3000',
    'output * veil fps 12',
    f'output {OUT} veil battery fps 5',
    f'output {OUT} veil {vt.quote(pic_a)} fill',
]


def extras_kept(s):
    """What EXTRAS leave in a state file, as a list of what is missing."""
    s = s or {}
    ws = (s.get('workspaces') or {}).get('*') or {}
    missing = []
    if (ws.get('2', {}).get('file') or {}).get('path') != pic_d:
        missing.append('workspace 2')
    if ws.get('mail', {}).get('color') != hexc(MAIL):
        missing.append('workspace mail')
    if ((s.get('transitions') or {}).get('*') or {}) != {'kind': 'fade', 'ms': 3000}:
        missing.append('transition')
    if ((s.get('policies') or {}).get('*') or {}).get('fps') != 12:
        missing.append('fps')
    if ((s.get('policies') or {}).get(OUT) or {}) != {'battery': 'fps', 'battery_fps': 5}:
        missing.append('battery')
    return missing


with t.compositor(outputs=1, env=ENV, name='extras') as c:
    with t.case('workspaces, a transition default and policies are written down'):
        for line in EXTRAS:
            ok, err = c.msg(line)
            t.check(ok, line, err)
        c.wait_veil(OUT, 'shown', file=pic_a)
        s = c.wait_until(lambda: not extras_kept(read_state()) and read_state(),
                         'the state has them all')
        t.check(((s['workspaces']['*'].get('3') or {}).get('file') or {}).get('path') == pic_c,
                'workspace 3', str(s['workspaces']))

# Workspace 3's file changes: it is not restored; the others are.
time.sleep(0.01)
vt.make_png(pic_c, np.broadcast_to(np.array(B, np.uint8), (H, W, 3)).copy())

# The configuration's line after restore wins over what restore brings back (fps 12).
with t.compositor(outputs=1, env=ENV, name='extras-restored',
                  config=config('output * veil restore', RESTORE, 'output * veil fps 20')) as c:
    with t.case('restore brings them back'):
        v = c.wait_veil(OUT, 'shown', file=pic_a)
        t.check(v.get('restored') is True, 'the setting restored', str(v))
        ws = v.get('workspaces') or {}
        t.check((ws.get('2') or {}).get('file') == pic_d and 'mail' in ws and '3' not in ws,
                'workspaces 2 and mail, not 3 (its file changed)', str(ws))
        t.check("workspace '3' not restored" in log_text(c) and 'c.png' in log_text(c),
                'the log says why 3 is not', vt._tail(c.log_path, 5))
        screen_is(c, A, 'extras-a')
        for ws_name, col in (('2', D), ('mail', MAIL), ('1', A)):
            ok, err = c.msg(f'workspace {ws_name}')
            t.check(ok, f'workspace {ws_name}', err)
            screen_is(c, col, f'extras-ws-{ws_name}')
    with t.case('the fps cap and the transition default are in force'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fill')
        t.check(ok, 'a video', err)
        v = c.wait_until(lambda: c.veil(OUT).get('file') == video and
                         c.veil(OUT).get('transition') and c.veil(OUT),
                         'the video comes in with a transition')
        t.check(v['transition'].get('kind') == 'fade', 'a fade, the default restored',
                str(v['transition']))
        v = c.wait_veil(OUT, 'shown', file=video, kind='video')
        t.check(v.get('fps') == 20, 'capped at 20 frames a second: the line after restore',
                str(v.get('fps')))
        s = c.wait_until(lambda: (entry(read_state()).get('file') or {}).get('path') == video
                         and read_state(), 'the state names the video')
        t.check(extras_kept(s) == ['fps'] and s['policies']['*'].get('fps') == 20,
                'the restored ones are written again, and fps 20', str(extras_kept(s)))



def position(c):
    p = c.veil(OUT).get('position_ms')
    return p if isinstance(p, int) else None


with t.compositor(outputs=1, env=ENV, name='video') as c:
    with t.case('a paused video is written down, with its position'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fit')
        t.check(ok, 'a video', err)
        c.wait_veil(OUT, 'shown', file=video, kind='video')
        c.wait_until(lambda: (position(c) or 0) >= 2500, 'the video 2.5 s in', timeout=15)
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, 'pause', err)
        c.wait_until(lambda: c.veil(OUT).get('state') == 'paused', 'paused')
        paused_at = position(c)
        s = c.wait_until(lambda: entry(read_state()).get('paused') is True and
                         read_state(), 'the state says the video is paused')
        e = entry(s)
        t.check((e.get('file') or {}).get('path') == video and
                abs(e.get('position_ms', -10**6) - paused_at) <= 100,
                f'the state keeps its position ({paused_at} ms)', str(e))

with t.compositor(outputs=1, env=ENV, name='video-restored', config=config(RESTORE)) as c:
    with t.case('the video comes back paused, where it was'):
        v = c.wait_until(lambda: c.veil(OUT).get('file') == video and
                         c.veil(OUT).get('state') == 'paused' and
                         abs((position(c) or -10**6) - paused_at) <= 100 and c.veil(OUT),
                         f'the video, paused at {paused_at} ms', timeout=10)
        t.check(v.get('restored') is True and v.get('paused') == 'command',
                'restored, paused by the command', str(v))
        frames = c.veil(OUT).get('frames')
        time.sleep(0.5)
        v = c.veil(OUT)
        t.check(v.get('frames') == frames and v.get('position_ms') == position(c),
                'no frame shown while paused', f"{frames} -> {v.get('frames')}")
    with t.case('a playing video stopped cleanly is kept at its last position'):
        ok, err = c.msg(f'output {OUT} veil resume')
        t.check(ok, 'resume', err)
        c.wait_until(lambda: (position(c) or 0) >= paused_at + 1200, 'it plays on')
        c.wait_until(lambda: entry(read_state()).get('paused') is None, 'written as playing')
        # No change from here on: only the last write, as the compositor stops, has the
        # position of the end.
        time.sleep(1.2)
        before = position(c)
        c.stop()
        e = entry(read_state())
        stopped_at = e.get('position_ms')
        t.check(isinstance(stopped_at, int) and before <= stopped_at <= before + 500,
                f'the position when it stopped ({stopped_at} ms; {before} ms just before)',
                str(e))

with t.compositor(outputs=1, env=ENV, name='video-playing', config=config(RESTORE)) as c:
    with t.case('the playing video comes back playing, from there'):
        # From its start, it would need stopped_at ms of playing to get there.
        c.wait_veil(OUT, 'shown', file=video, kind='video')
        shown = time.monotonic()
        p = c.wait_until(lambda: (position(c) or 0) >= stopped_at - 100 and position(c),
                         f'at {stopped_at} ms', timeout=10)
        took = time.monotonic() - shown
        t.check(took * 1000 < stopped_at - 1000 and p <= stopped_at + 1500,
                f'there within {took:.2f} s of its first frame ({p} ms)')
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('paused') is False, 'not paused', str(v))
        c.wait_until(lambda: (position(c) or 0) >= p + 500, 'it plays on')

INPROCESS = ['--decoding', 'inprocess']

with t.compositor(outputs=1, env=ENV, name='video-inprocess', args=INPROCESS) as c:
    with t.case('in the compositor\'s process: a paused video is kept at its position'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fit')
        t.check(ok, 'a video', err)
        v = c.wait_veil(OUT, 'shown', file=video, kind='video')
        t.check((v.get('source') or {}).get('process') != 'veil-decoder', 'played in process',
                str(v.get('source')))
        c.wait_until(lambda: (position(c) or 0) >= 3000, 'the video 3 s in', timeout=15)
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, 'pause', err)
        c.wait_until(lambda: c.veil(OUT).get('state') == 'paused', 'paused')
        paused_in = position(c)
        # A frame may still come while the pipeline pauses: within 100 ms (3 frames).
        c.wait_until(lambda: abs(entry(read_state()).get('position_ms', -10**6) - paused_in)
                     <= 100 and entry(read_state()).get('paused'),
                     f'the state keeps about {paused_in} ms, paused')

with t.compositor(outputs=1, env=ENV, name='video-inprocess-restored', args=INPROCESS,
                  config=config(RESTORE)) as c:
    with t.case('in the compositor\'s process: its first frame is the one at the position'):
        v = c.wait_veil(OUT, 'paused', file=video, kind='video')
        t.check(v.get('restored') is True and v.get('frames') == 1 and
                abs((v.get('position_ms') or -10**6) - paused_in) <= 100,
                f'one frame shown, at {paused_in} ms', str(v))

HOSTILE = {
    'empty': b'',
    'not-json': b'\x89PNG this is not a state file',
    'truncated': json.dumps({'version': 1, 'outputs': {OUT: {
        'mode': 'fill', 'color': '#000000',
        'file': {'path': pic_a, 'size': os.stat(pic_a).st_size,
                 'mtime_ns': os.stat(pic_a).st_mtime_ns}}}}).encode()[:-7],
    'huge': b'{"version":1,"outputs":{},"pad":"' + b'x' * (2 << 20) + b'"}',
    'nested': b'[' * 100000 + b']' * 100000,
    'wrong-types': json.dumps({'version': 1, 'outputs': {OUT: {
        'mode': 7, 'file': {'path': ['/etc/passwd']}}}}).encode(),
    'other-version': json.dumps({'version': 99, 'outputs': {}}).encode(),
    'not-a-path': json.dumps({'version': 1, 'outputs': {OUT: {
        'mode': 'fill', 'file': {'path': 'relative.png', 'size': 1, 'mtime_ns': 1}}}}).encode(),
}
for name, data in HOSTILE.items():
    with open(state_file, 'wb') as f:
        f.write(data)
    with t.compositor(outputs=1, env=ENV, name=f'hostile-{name}', config=config(RESTORE)) as c:
        with t.case(f'a hostile state file ({name}) falls back'):
            v = c.wait_veil(OUT, 'shown', file=fallback)
            t.check(v.get('restored') is False, f'{name}: restored false', str(v))
            if name == 'not-json':
                screen_is(c, FB, 'hostile-fallback')
            lines = [x for x in log_text(c).splitlines() if 'is ignored' in x]
            t.check(len(lines) == 1 and state_file in lines[0],
                    f'{name}: one log line naming the file', '\n'.join(lines) or
                    vt._tail(c.log_path, 5))
            t.check(c.responsive(), f'{name}: the compositor answers')

with t.case('a state file that cannot be written'):
    os.unlink(state_file)
    os.makedirs(state_file)  # rename() onto a directory fails
    with t.compositor(outputs=1, env=ENV, name='unwritable') as c:
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_a)} fill')
        t.check(ok, 'a picture', err)
        c.wait_veil(OUT, 'shown', file=pic_a)
        c.wait_until(lambda: 'cannot keep the wallpapers' in log_text(c), 'a log line')
        ok, err = c.msg(f'output {OUT} veil #204060 solid_color')
        t.check(ok, 'commands go on working', err)
        c.wait_veil(OUT, 'shown', kind='color')
        screen_is(c, (0x20, 0x40, 0x60), 'unwritable-colour')
        time.sleep(1.5)  # a second write (debounced) fails too
        n = log_text(c).count('cannot keep the wallpapers')
        t.check(n == 1, 'one line for failures in a row', str(n))
    shutil.rmtree(state_file)

t.finish()
