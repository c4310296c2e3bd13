"""
veiltest.ws: a wallpaper per workspace, measured frame by frame (test-ws-atomic.py, the sway and
labwc suites through atomicity(), and tests/bench/ws-atomic.py which compares veil with a
script around swaybg).

The compositor (veil-tinywl, a sway or a labwc, headless, pixman, one 1280x720 output) gets three
workspaces "1", "2", "3". Each has one window of its own colour (tests/tools/solid-window, a real
xdg-shell client, 320x240: on sway a floating window, centred) and a picture of its own (a PNG of
noise around a colour; veil's `output * veil workspace <ws> <file>`, or swaybg). The output is
recorded frame by frame with tests/tools/frame-record (wlr-screencopy copy_with_damage: every
frame the compositor commits, with its commit time) at two points: the middle of the window, and
a corner of the wallpaper away from it. Then the workspaces are switched (`workspace <name>`,
each on one i3-ipc connection kept open: IpcDriver; labwc, which has no IPC, with the keys its
rc.xml binds to GoToDesktop, pressed by wtype: KeyDriver), one after the other in a cycle.

Each frame is classified by the colours at the two points: the window of workspace i (or none of
them), the picture of workspace j (or none: black where swaybg was killed, a blend). A frame is
"mixed" when it shows one workspace's window over another workspace's picture: what a wallpaper
switched in the same frame as the workspace never shows. "bare": a window over no picture.

Per switch: the time from the command's send (CLOCK_MONOTONIC) to the commit of the first frame
showing the new workspace's window, and to the first frame showing its picture too.
"""

import os
import queue
import signal
import subprocess
import threading
import time

import numpy as np

import veiltest as vt
from veiltest import bench as bl

OUT = 'HEADLESS-1'
W, H = 1280, 720
WORKSPACES = ['1', '2', '3']
# Windows and pictures: six colours far apart in every channel pair (classified with TOLERANCE).
WINDOW_COLOURS = {'1': (0xc0, 0x30, 0x20), '2': (0x20, 0xc0, 0x40), '3': (0x30, 0x50, 0xd0)}
PICTURE_COLOURS = {'1': (0xe0, 0xc0, 0x40), '2': (0xc0, 0x40, 0xc0), '3': (0x40, 0xc0, 0xc0)}
NOISE = 12          # the pictures' noise: +-NOISE around their colour
TOLERANCE = 40      # a point's colour within this (each channel) of a known colour is it
WINDOW_SIZE = (320, 240)
APP_ID = 'veil-ws-window'
SETTLE_TIMEOUT = 10.0   # a switch that shows no consistent frame in this long is "unsettled"
HOLD = 0.15             # seconds on a workspace once it is consistent, before the next switch


def hexrgb(c):
    return '#%02x%02x%02x' % tuple(c)


def make_pictures(media, size):
    """A noisy PNG per workspace, of its colour: {name: path}. Made once per size."""
    w, h = size
    rng = np.random.default_rng(30)
    out = {}
    for name in WORKSPACES:
        path = os.path.join(media, f'ws{name}-{w}x{h}.png')
        if not os.path.exists(path):
            base = np.array(PICTURE_COLOURS[name], np.int16)
            px = base + rng.integers(-NOISE, NOISE + 1, (h, w, 3), dtype=np.int16)
            vt.make_png(path, np.clip(px, 0, 255).astype(np.uint8))
        out[name] = path
    return out


def classify(colour, table):
    """The name whose colour in table is within TOLERANCE of colour (nearest), else None."""
    best, dist = None, None
    for name, c in table.items():
        d = max(abs(a - b) for a, b in zip(colour, c))
        if d <= TOLERANCE and (dist is None or d < dist):
            best, dist = name, d
    return best


class Recorder:
    """
    frame-record on an output, its lines read in a thread: frames as (n, commit_s, received_s,
    blind_s, [(r, g, b) per point]); commit and received times on CLOCK_MONOTONIC in seconds,
    as time.monotonic().
    """

    def __init__(self, path, env, points, log_path, output=OUT):
        self.points = points
        argv = [path, '--output', output]
        for x, y in points:
            argv += ['--point', f'{x},{y}']
        self.log = open(log_path, 'wb')
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     start_new_session=True)
        self.frames = []
        self.header = None
        self.end = None
        self.ready = threading.Event()
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            words = line.split()
            if not words:
                continue
            if words[0] == 'frame':
                n, commit, received, blind = words[1:5]
                colours = [vt.rgb(c) for c in words[5:]]
                with self.lock:
                    self.frames.append((int(n), float(commit), int(received) / 1e9,
                                        int(blind) / 1e9, colours))
                    self.changed.notify_all()
            elif words[0] == 'output':
                self.header = words
            elif words[0] == 'ready':
                self.ready.set()
            elif words[0] == 'end':
                self.end = dict(zip(words[1::2], (int(v) for v in words[2::2])))
        with self.lock:
            self.changed.notify_all()

    def wait_ready(self, timeout=30.0):
        if not self.ready.wait(timeout):
            raise vt.Failure(f'frame-record gave no frame in {timeout:.0f} s: '
                             + vt._tail(self.log.name))

    def period(self):
        return int(self.header[-1]) / 1e9 if self.header else 1 / 60

    def wait_for(self, pred, since, timeout):
        """The first frame from index since on for which pred(frame) holds, or None."""
        deadline = time.monotonic() + timeout
        i = since
        with self.lock:
            while True:
                while i < len(self.frames):
                    if pred(self.frames[i]):
                        return self.frames[i]
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.changed.wait(min(left, 0.5))

    def count(self):
        with self.lock:
            return len(self.frames)

    def stop(self):
        vt.stop_process(self.proc)
        self.thread.join(timeout=10)
        self.log.close()
        return self.end


class Window:
    """solid-window of one colour, mapped on the focused workspace; waits until it is drawn."""

    def __init__(self, path, env, colour, log_path, size=WINDOW_SIZE, extra=()):
        self.log = open(log_path, 'wb')
        self.proc = subprocess.Popen([path, '--color', hexrgb(colour)[1:], '--size',
                                      f'{size[0]}x{size[1]}', '--app-id', APP_ID] + list(extra),
                                     env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, start_new_session=True)
        q = queue.Queue()
        threading.Thread(target=lambda: q.put(self.proc.stdout.readline()),
                         daemon=True).start()
        try:
            line = q.get(timeout=30)
        except queue.Empty:
            line = ''
        if not line.startswith('shown'):
            self.stop()
            raise vt.Failure(f'solid-window {hexrgb(colour)} was not shown: '
                             + vt._tail(self.log.name))

    def stop(self):
        vt.stop_process(self.proc)
        self.log.close()


def window_box(shot, colour):
    """(x0, y0, x1, y1) of the pixels of exactly colour, or None."""
    return vt.bbox(np.all(shot == np.array(colour, np.uint8), axis=2))


def sway_config(path, extra=''):
    """A sway config for the measurement: windows of APP_ID float (centred, their own size)."""
    with open(path, 'w') as f:
        f.write('xwayland disable\n'
                'default_border none\n'
                'default_floating_border none\n'
                'focus_on_window_activation none\n'
                f'for_window [app_id="^{APP_ID}$"] floating enable\n' + extra)
    return path


SWITCHER = r'''#!/bin/sh
# What users do today for a wallpaper per workspace on sway: follow sway's workspace events
# and start swaybg with the workspace's picture, then end the swaybg before it: at once, or
# KEEP seconds later (the new one is drawn over it meanwhile, once it has decoded its picture).
# usage: [KEEP=seconds] switcher.sh OUTPUT WS=PICTURE...
out=$1
shift
picture() {
	for pair in "$@"; do
		[ "${pair%%=*}" = "$ws" ] && { printf '%s\n' "${pair#*=}"; return; }
	done
}
old=
show() {
	pic=$(picture "$@")
	[ -n "$pic" ] || return 0
	swaybg -o "$out" -i "$pic" -m fill &
	new=$!
	if [ -n "$old" ]; then
		if [ "${KEEP:-0}" = 0 ]; then
			kill "$old"
		else
			(sleep "$KEEP"; kill "$old") &
		fi
	fi
	old=$new
}
ws=$(swaymsg -t get_workspaces | jq -r '.[] | select(.focused) | .name')
show "$@"
swaymsg -t subscribe -m '["workspace"]' |
	jq --unbuffered -r 'select(.change == "focus") | .current.name' |
	while read -r ws; do
		show "$@"
	done
'''


class Switcher:
    """SWITCHER as a process group of its own (the shell, swaymsg, jq, the swaybg it runs)."""

    def __init__(self, path, env, pictures, log_path, keep=0):
        with open(path, 'w') as f:
            f.write(SWITCHER)
        os.chmod(path, 0o755)
        self.log = open(log_path, 'wb')
        self.proc = subprocess.Popen(['/bin/sh', path, OUT] +
                                     [f'{ws}={p}' for ws, p in pictures.items()],
                                     env=dict(env, KEEP=str(keep)), stdin=subprocess.DEVNULL,
                                     stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.log.close()


class IpcDriver:
    """
    How a Run drives veil-tinywl and sway: commands on one i3-ipc connection kept open.
    sway's series spells veil's `veil workspace <ws> ...` its own way, as `workspace <ws> gaps
    ...` is spelt; veil-tinywl takes veil's words.
    """

    def __init__(self, c):
        self.c = c
        self.ipc = bl.Ipc(c.swaysock)

    def command(self, cmd):
        ok, err = self.ipc.command(cmd)
        if not ok:
            raise vt.Failure(f'{cmd!r} failed: {err}')

    def _workspace(self, ws, words):
        self.command(f'workspace {ws} veil {words}' if self.c.is_sway else
                     f'output * veil workspace {ws} {words}')

    def workspace_wallpapers(self, pictures):
        for ws in WORKSPACES:
            self._workspace(ws, f'{vt.quote(pictures[ws])} fill')

    def workspace_wallpapers_off(self):
        for ws in WORKSPACES:
            self._workspace(ws, 'off')

    def output_wallpaper(self, path):
        self.command(f'output * veil {vt.quote(path)} fill')

    def goto(self, ws):
        self.command(f'workspace {ws}')

    def close(self):
        self.ipc.close()


class KeyDriver:
    """
    How a Run drives a compositor without i3-ipc (labwc): its workspaces are switched with the
    keys its config binds (keys: {workspace: key}), pressed by wtype through the virtual
    keyboard protocol (wtype returns once the compositor has the key: its switch is done), and
    veil's settings are made with veilctl (c.ctl(*args) -> (status, stdout, stderr)). The
    workspace wallpapers are the config's own: workspace_wallpapers() checks that veil has
    them, as the config gives them.
    """

    def __init__(self, c, keys, wtype='wtype'):
        self.c = c
        self.keys = keys
        self.wtype = wtype

    def ctl(self, *args):
        rc, _, err = self.c.ctl(*args, quiet=True)
        if rc != 0:
            raise vt.Failure(f'veilctl {" ".join(args)} failed ({rc}): {err}')

    def workspace_wallpapers(self, pictures):
        def listed():
            v = self.c.veil(OUT)
            ws = v.get('workspaces') or {}
            return all((ws.get(n) or {}).get('file') == pictures[n] for n in WORKSPACES)
        self.c.wait_until(listed, f'{OUT} to list the config\'s workspace wallpapers')

    def workspace_wallpapers_off(self):
        for ws in WORKSPACES:
            self.ctl('off', '-W', ws)

    def output_wallpaper(self, path):
        self.ctl('set', path, 'fill')

    def goto(self, ws):
        r = subprocess.run([self.wtype, '-k', self.keys[ws]], env=self.c.client_env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=vt.IPC_TIMEOUT)
        if r.returncode != 0:
            raise vt.Failure(f'wtype -k {self.keys[ws]} failed ({r.returncode}): '
                             f'{r.stderr.strip()}')

    def close(self):
        pass


class Run:
    """
    One system's run: set up (c: a started vt.Compositor), then switch() n times, then
    summary(). mode: 'veil' (veil's workspace words), 'swaybg' (the switcher script), 'none' (no
    wallpaper: the windows only, for the time to the frame), 'swaybg-keep' (the script, the old
    swaybg ended a second after the new one started), 'veil-after' (the control: no
    workspace words, the output's wallpaper set by a command sent after each switch's reply,
    as a client would: the frames between must be seen mixed).

    driver: how the compositor is driven (IpcDriver, the default, or KeyDriver). control()
    turns a 'veil' run into the control in the same compositor, with the same windows.
    """

    def __init__(self, c, mode, pictures, tools, outdir, tag='', driver=None):
        self.c = c
        self.mode = mode
        self.pictures = pictures
        self.tools = tools          # {'frame-record': path, 'solid-window': path}
        self.outdir = outdir
        self.tag = tag
        self.windows = []
        self.recorder = None
        self.switcher = None
        self.driver = driver or IpcDriver(c)
        self.switches = []          # dicts: see switch()
        self.first = 0              # the first switch that summary() counts
        self.current = None

    def setup(self):
        c = self.c
        if self.mode == 'veil':
            self.driver.workspace_wallpapers(self.pictures)
        elif self.mode == 'veil-after':
            self.driver.output_wallpaper(self.pictures[WORKSPACES[-1]])
        boxes = {}
        for ws in WORKSPACES:
            self.driver.goto(ws)
            self.windows.append(Window(self.tools['solid-window'], c.client_env,
                                       WINDOW_COLOURS[ws],
                                       os.path.join(self.outdir, f'window{ws}{self.tag}.log')))
            shot = c.settled_screenshot(OUT)
            boxes[ws] = window_box(shot, WINDOW_COLOURS[ws])
            if boxes[ws] is None:
                raise vt.Failure(f'the window of workspace {ws} is not on the screen')
        # The window's middle (the windows are one size: on sway all centred) and a point of
        # the wallpaper far from every window.
        x0, y0, x1, y1 = boxes[WORKSPACES[0]]
        win_pt = ((x0 + x1) // 2, (y0 + y1) // 2)
        for ws, (a, b, cx, d) in boxes.items():
            if not (a <= win_pt[0] <= cx and b <= win_pt[1] <= d):
                raise vt.Failure(f'the windows are not on one place: {boxes}')
        corners = [(W - 16, H - 16), (16, H - 16), (W - 16, 16), (16, 16)]
        wall_pt = next((p for p in corners if all(
            not (a - 8 <= p[0] <= cx + 8 and b - 8 <= p[1] <= d + 8)
            for a, b, cx, d in boxes.values())), None)
        if wall_pt is None:
            raise vt.Failure(f'no corner of the output is free of windows: {boxes}')
        self.points = [win_pt, wall_pt]
        if self.mode in ('swaybg', 'swaybg-keep'):
            self.switcher = Switcher(os.path.join(self.outdir, 'switcher.sh'), c.client_env,
                                     self.pictures,
                                     os.path.join(self.outdir, f'switcher{self.tag}.log'),
                                     keep=1 if self.mode == 'swaybg-keep' else 0)
        self.current = WORKSPACES[-1]
        self.recorder = Recorder(self.tools['frame-record'], c.client_env, self.points,
                                 os.path.join(self.outdir, f'frame-record{self.tag}.log'))
        self.recorder.wait_ready()
        if self.mode != 'none':
            # The last workspace, with its own picture, before the first switch.
            f = self.recorder.wait_for(lambda f: self.state(f) == (self.current, self.current),
                                       0, SETTLE_TIMEOUT * 3)
            if f is None:
                raise vt.Failure(f'workspace {self.current} never showed its window over its '
                                 f'picture; last frame: {self.last_frame()}')
        return self.points

    def last_frame(self):
        with self.recorder.lock:
            return self.recorder.frames[-1] if self.recorder.frames else None

    def state(self, frame):
        """(window's workspace, picture's workspace) of a frame; None where neither."""
        win, wall = frame[4][0], frame[4][1]
        return classify(win, WINDOW_COLOURS), classify(wall, PICTURE_COLOURS)

    def switch(self):
        """
        Switches to the next workspace and waits until a frame shows its window (and, but with
        mode 'none', its picture), then HOLD seconds. Records the command's send time and the
        commit times of those frames.
        """
        new = WORKSPACES[(WORKSPACES.index(self.current) + 1) % len(WORKSPACES)]
        since = self.recorder.count()
        sent = time.monotonic()
        self.driver.goto(new)
        replied = time.monotonic()
        if self.mode == 'veil-after':
            self.driver.output_wallpaper(self.pictures[new])
        win = self.recorder.wait_for(lambda f: f[1] >= sent and self.state(f)[0] == new,
                                     since, SETTLE_TIMEOUT)
        both = None
        if self.mode != 'none':
            both = self.recorder.wait_for(lambda f: f[1] >= sent and self.state(f) == (new, new),
                                          since, SETTLE_TIMEOUT)
        self.switches.append({'from': self.current, 'to': new, 'sent': sent,
                              'replied': replied,
                              'window': win[1] - sent if win else None,
                              'picture': both[1] - sent if both else None})
        self.current = new
        time.sleep(HOLD)

    def stop(self):
        self.ended = time.monotonic()
        end = self.recorder.stop() if self.recorder else None
        if self.switcher:
            self.switcher.stop()
        for w in self.windows:
            w.stop()
        self.driver.close()
        return end

    def control(self):
        """
        Turns this run into the control, 'veil-after', with the same compositor, windows and
        recording: the workspace wallpapers removed, the output's set to the picture of the
        workspace shown; waits for a consistent frame. summary() then counts the switches from
        here on only (call summary() for the switches before first).
        """
        self.driver.workspace_wallpapers_off()
        self.driver.output_wallpaper(self.pictures[self.current])
        self.mode = 'veil-after'
        self.first = len(self.switches)
        pic = self.pictures[self.current]

        def shown():
            v = self.c.veil(OUT)
            return (v.get('state') == 'shown' and v.get('file') == pic and
                    v.get('setting_workspace') is None and not v.get('workspaces'))
        self.c.wait_until(shown, f'{OUT} to show the output\'s wallpaper, no workspace\'s')
        # The frame that shows it (if the screen changed at all) within a few periods.
        time.sleep(max(0.1, 5 * self.recorder.period()))
        f = self.last_frame()
        if f is None or self.state(f) != (self.current, self.current):
            raise vt.Failure(f'workspace {self.current} does not show its window over its '
                             f'picture after the control\'s setup; last frame: {f}')

    def summary(self):
        """
        Counts over the frames from the first switch's send on (the control's first, after
        control()): frames, mixed (a window over
        another workspace's picture), bare (a window over no picture), other (no window
        known), how long the mixed and bare frames stayed on the screen together (mixed_ms,
        bare_ms: until the next frame's commit), and the frames that may have been missed
        (the recorder's blind windows of a period or more), with the times of each switch.
        """
        switches = self.switches[self.first:]
        start = switches[0]['sent'] if switches else 0
        with self.recorder.lock:
            frames = [f for f in self.recorder.frames if f[1] >= start]
        period = self.recorder.period()
        s = {'frames': len(frames), 'mixed': 0, 'bare': 0, 'other': 0, 'examples': [],
             'mixed_ms': 0.0, 'bare_ms': 0.0,
             'blind': sum(1 for f in frames if f[3] >= period - 0.001),
             'longest_blind': max((f[3] for f in frames), default=0.0)}
        ended = getattr(self, 'ended', None) or time.monotonic()
        for i, f in enumerate(frames):
            win, wall = self.state(f)
            # How long the frame stayed on the screen: until the next frame's commit (a
            # compositor draws nothing while nothing changes: one frame may stay for long).
            shown_ms = ((frames[i + 1][1] if i + 1 < len(frames) else ended) - f[1]) * 1000
            if win is None:
                s['other'] += 1
            elif wall is None:
                s['bare'] += 1
                s['bare_ms'] += shown_ms
            elif win != wall:
                s['mixed'] += 1
                s['mixed_ms'] += shown_ms
                if len(s['examples']) < 5:
                    s['examples'].append(f'frame {f[0]} at {f[1]:.6f}: window of {win} over '
                                         f'the picture of {wall} ({hexrgb(f[4][0])}, '
                                         f'{hexrgb(f[4][1])})')
        s['switches'] = len(switches)
        s['unsettled'] = sum(1 for x in switches if x['window'] is None or (
            self.mode != 'none' and x['picture'] is None))
        s['window_ms'] = [x['window'] * 1000 for x in switches if x['window'] is not None]
        s['picture_ms'] = [x['picture'] * 1000 for x in switches if x['picture'] is not None]
        return s


COUNT_RED = 0xa5    # the counting window's red channel (no other colour here has it)


def recorder_sees_every_frame(c, tools, outdir, frames=150):
    """
    The recorder's own check: solid-window --count draws a new frame at each frame callback,
    its counter in the green and blue channels; frame-record at the window's middle must see
    the counter go up by one from each recorded frame to the next. Returns (frames recorded,
    gaps: [(counter before, after, flagged, apart)] where it went up by more than one, flagged
    when the recorder said of that frame that it may have missed one before (its copy was asked
    for a period or more after the frame before: frame-record.c), apart when the two frames were
    committed two periods or more apart (so that a frame in between was missed), repeats: frames
    where it did not change, frames the recorder counted as maybe missed).
    """
    win = Window(tools['solid-window'], c.client_env, (COUNT_RED, 0, 0),
                 os.path.join(outdir, 'count-window.log'), extra=['--count'])
    rec = None
    try:
        shot = c.screenshot(OUT)
        box = vt.bbox(shot[..., 0] == COUNT_RED)
        if box is None:
            raise vt.Failure('the counting window is not on the screen')
        pt = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
        rec = Recorder(tools['frame-record'], c.client_env, [pt],
                       os.path.join(outdir, 'count-record.log'))
        rec.wait_ready()
        if rec.wait_for(lambda f: f[0] >= frames, 0, 60.0) is None:
            raise vt.Failure(f'fewer than {frames} frames recorded in 60 s')
    finally:
        if rec is not None:
            rec.stop()
        win.stop()
    with rec.lock:
        got = [f for f in rec.frames[:frames] if f[4][0][0] == COUNT_RED]
    values = [(f[4][0][1] << 8) | f[4][0][2] for f in got]
    period = rec.period()
    flagged = [f[3] >= period - 0.001 for f in got]
    # A skipped value between two frames committed two periods or more apart is a frame
    # committed in between that the recorder missed; between frames a period apart, a frame
    # the compositor never showed (or showed twice as fast as its refresh).
    gaps = [(a, b, flagged[i + 1], got[i + 1][1] - got[i][1] >= 1.5 * period)
            for i, (a, b) in enumerate(zip(values, values[1:])) if (b - a) % 65536 > 1]
    repeats = sum(1 for a, b in zip(values, values[1:]) if a == b)
    maybe = sum(flagged[1:])
    return len(got), gaps, repeats, maybe


# The checks of the tests (test-ws-atomic.py for veil-tinywl, the sway and labwc suites): one
# set, so that the three compositors pass or fail the same thing.

def check_recorder(t, c, tools, outdir, frames=150):
    """
    The recorder's own check (recorder_sees_every_frame), as a check of t: a window that draws
    at each frame callback is seen at every value, but where the recorder missed a frame
    committed between two it copied (on a loaded machine its next copy can reach the compositor
    too late; it counts those it can tell, a copy asked for a period or more after the frame
    before, as maybe missed, and check_switches allows 2 of those), at most one frame in 30.
    A skipped value between two frames committed a period apart, or a repeated one, fails.
    """
    n, gaps, repeats, maybe = recorder_sees_every_frame(c, tools, outdir, frames)
    wrong = [g for g in gaps if not g[3]]
    missed = (f', but {len(gaps)} frames missed between frames committed two periods apart '
              f'({sum(1 for g in gaps if g[2])} of them counted by the recorder as maybe '
              f'missed; {maybe} counted in all)' if gaps else '')
    return t.check(n == frames and not wrong and not repeats and len(gaps) <= frames // 30,
                   f'{n} frames of a window that draws at every frame callback: each shows the '
                   f'counter one higher{missed}',
                   f'{len(wrong)} skips between frames a period apart ({wrong[:5]}), '
                   f'{len(gaps)} in all (at most {frames // 30}), {repeats} repeats')


def check_switches(t, run, switches):
    """
    run (set up, mode 'veil') switches workspaces switches times: each switch must show the
    new window over its picture, no frame may be mixed or bare, the recorder may have missed at
    most 2 frames. Returns the summary.
    """
    for _ in range(switches):
        run.switch()
    s = run.summary()
    t.check(s['switches'] == switches and s['unsettled'] == 0,
            f'each of {switches} switches showed the new window over its picture',
            f'{s["unsettled"]} of {s["switches"]} never did')
    t.check(s['frames'] >= switches, f'{s["frames"]} frames recorded (at least one a switch)')
    t.check(s['mixed'] == 0, 'no frame shows a window over another workspace\'s picture',
            f'{s["mixed"]} do: ' + '; '.join(s['examples']))
    t.check(s['bare'] == 0, 'no frame shows a window over no picture', f'{s["bare"]} do')
    t.check(s['blind'] <= 2, f'the recorder may have missed {s["blind"]} frames (at most 2; '
            f'longest wait {s["longest_blind"] * 1000:.1f} ms)')
    w = sorted(s['window_ms'])
    if w:
        t.check(True, f'command to the new window\'s frame: median {w[len(w) // 2]:.1f} ms, '
                f'longest {w[-1]:.1f} ms')
    return s


def check_control(t, run, switches):
    """
    The control, in the same compositor (run.control()): the output's wallpaper set after each
    switch, as a client would; the same recording and counting must see mixed frames.
    """
    run.control()
    for _ in range(switches):
        run.switch()
    s = run.summary()
    t.check(s['mixed'] > 0 and s['unsettled'] == 0,
            f'control: with the wallpaper set after each switch, {s["mixed"]} of {s["frames"]} '
            f'frames are seen mixed ({s["mixed_ms"]:.0f} ms on screen in {switches} switches)',
            f'{s["mixed"]} mixed, {s["unsettled"]} switches unsettled')
    return s


def atomicity(t, c, tools, pictures, outdir, switches=20, control=6, driver=None, label=''):
    """
    The whole check in one compositor c (a sway or a labwc of the suites): the recorder's own
    check, the three workspaces set up, switches switches, then control switches of the control
    (none with 0), then frame-record's end (no failed copy). Cases are named with label.
    """
    start = time.monotonic()
    with t.case(f'{label}the recorder sees every frame'):
        check_recorder(t, c, tools, outdir)
    run = Run(c, 'veil', pictures, tools, outdir, driver=driver)
    ready = False
    try:
        with t.case(f'{label}setup'):
            points = run.setup()
            ready = t.check(True, f'three workspaces with their windows; recording at {points}')
        if ready:
            with t.case(f'{label}{switches} switches'):
                check_switches(t, run, switches)
        if ready and control:
            with t.case(f'{label}control'):
                check_control(t, run, control)
    finally:
        end = run.stop()
    t.check(end is not None and end.get('failed', 1) == 0,
            'frame-record ended cleanly with no failed copy', repr(end))
    vt._say(f'# {label}{time.monotonic() - start:.1f} s in all')
