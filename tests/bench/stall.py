#!/usr/bin/env python3
"""
stall.py: does setting a wallpaper stall the compositor? veil-tinywl against sway + swaybg.

    tools/devroot python3 tests/bench/stall.py --build build-t [--rounds 3] [--scenarios ...]
        [--workers-busy]

Two systems, run one after the other in rounds (A B, A B, ...: interleaved, so that a drift of
the machine lands on neither), each on one headless 1920x1080 output with pixman:

  A  veil-tinywl: `output * veil FILE fill`.
  B  sway 1.12 (the devroot's Debian sway) with swaybg: `output * bg FILE fill`.

Each run starts the compositor with a solid colour (`veil #203040 solid_color`, `bg #203040
solid_color`), then, while it is measured, sets the scenario's file(s):

  png-6000     noise-6000x4000.png: a noisy 6000x4000 PNG (30 MB).
  jpeg-6000    noise-6000x4000.jpg: a noisy 6000x4000 JPEG.
  jpeg-2160    noise-3840x2160.jpg.
  png-1080     noise-1920x1080.png, --repeats times (10) back and forth with the solid colour:
               the p95 of its time on screen.
  hevc         hevc-1080p30.mp4, a video's start (A only: swaybg shows no videos).
  burst        --burst commands (100) sent back to back, each after the previous reply: A
               alternates video, PNG, video, JPEG (the big ones), B the two big photos; the
               last one is a JPEG for both.
  svg          GNOME's blobs-l.svg (4096x4096), A only (on screen: veil's status shows it).
  jxl          GNOME's adwaita-l.jxl (4096x4096 JPEG XL container), A only.
  package      desktop-base's emerald KDE Plasma wallpaper package (SVGs of ten sizes), A only
               (on screen: the status shows one of its pictures).
               These three are files others made, from Debian's packages (fetched by apt,
               tests/integration/debfiles.py); they are not run unless named.

The media are made by clips.py (--set stall) in --media (BUILD/bench/stall-media), once.

What is measured, per switch (the window: from the command's send until the picture is on the
screen, plus --tail seconds, 0.3):
  - the probe: a client of the compositor's IPC socket sends GET_VERSION (i3-ipc type 7) every
    5 ms (the next one 5 ms after the previous was sent, or at once when the reply came later)
    and records each round trip. "Longest stall" is the longest round trip of a request sent
    in the window: how long the compositor left a client without an answer. Also the p99.
  - the command's own round trip (RUN_COMMAND on another connection).
  - on screen: regioncopy.py has the compositor copy a 64x64 region at the output's centre
    into one buffer again and again from the command's reply until the region's mean colour
    is the file's (each photo is noise around a colour of its own, so no scaler's arithmetic
    has to be matched; the video (A) is on screen when veil's status shows it with frames >
    0). Times from the command's send. Both systems pay the copies alike; they are small
    (grim was used before 2026-12-02: it grabs the whole output, and each grab's new 8 MiB
    buffer cost the compositor 20 to 40 ms of page faults, which showed here as stalls).
  - late output frames: framecb.py, a tiny Wayland client (wl_shm + xdg-shell, a 64x64 window
    at the top-left corner, floating on sway), commits a frame at every frame callback; the
    compositor's callback times (ms) of the window are the output's frames. A gap of more
    than 1.5 refresh periods (the period: the median gap before the command) is a late frame,
    unless the client itself asked late (more than half a period after the callback before).
  - the machine: what other programs used during the run (busy time from /proc/stat less the
    compositor's tree and this harness, in % of one core), and the load average. A run whose
    others used more than --loaded % of a core on average is marked LOADED.

--workers-busy: the same while --hogs processes (default: one per CPU) spin at normal priority
from before each command until the window ends: the compositor, veil's decoding threads and
the hogs then share every core, which shows whether the compositor's thread is starved.

--xray: veil-tinywl runs with --xray, `output * veil xray on`, and a translucent window of
solid-window (BUILD/tests/tools/solid-window --alpha 80, 640x400 at 200,150, clear of the region
at the centre) over the wallpaper: each switch then also blurs a copy of the new picture on a
worker, and the window shows it (issue 41). B is run as without it.

The decode time of each big photo, for the target "on screen within its decode time + one
frame", is measured apart: `ffmpeg -threads 1 -i FILE -f null -` less the same on a 16x16 file
of the same format (the median of --decode-reps runs, 3): ffmpeg's decoders, not veil's (libpng
for PNG, GStreamer's jpegdec for JPEG), so only a reference. Before the asynchronous change
veil's command round trip was its decode and upload on the compositor's thread
(docs/measurements.md).

Writes <out>/results.json and report.txt (also printed); <out> is BUILD/bench/stall-<date>.
Medians are over the rounds. Targets (printed, not enforced): longest stall <= 16 ms, p99
<= 2 ms, command round trip <= 2 ms, png-1080 on screen <= 50 ms at p95 after the command,
a 6000x4000 photo on screen within its decode time + one frame.
"""

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import clips
import compare

from veiltest import debfiles  # noqa: E402

SCENARIOS = ['png-6000', 'jpeg-6000', 'jpeg-2160', 'png-1080', 'hevc', 'burst']
FILES = {'png-6000': 'noise-6000x4000.png', 'jpeg-6000': 'noise-6000x4000.jpg',
         'jpeg-2160': 'noise-3840x2160.jpg', 'png-1080': 'noise-1920x1080.png',
         'hevc': 'hevc-1080p30.mp4'}
# Files others made (package, member), shown by veil alone: --scenarios names them.
OTHERS = {'svg': ('gnome-backgrounds', 'usr/share/backgrounds/gnome/blobs-l.svg'),
          'jxl': ('gnome-backgrounds', 'usr/share/backgrounds/gnome/adwaita-l.jxl'),
          'package': ('desktop-base', 'usr/share/desktop-base/emerald-theme/wallpaper')}
SYSTEMS = {'hevc': 'A', 'svg': 'A', 'jxl': 'A', 'package': 'A'}
NAMES = {'A': 'veil-tinywl', 'B': 'sway + swaybg'}
BASE = (0x20, 0x30, 0x40)
BASE_TEXT = '#203040'
REGION = 64
PROBE_INTERVAL = 0.005
COLOUR_TOLERANCE = 12.0


# --- the probe ---

class Probe:
    """GET_VERSION every PROBE_INTERVAL on its own connection; (sent, answered) per request."""

    def __init__(self, path):
        self.ipc = bl.Ipc(path, timeout=30)
        self.times = []
        self.stopping = False
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _run(self):
        nxt = time.monotonic()
        try:
            while not self.stopping:
                t0 = time.monotonic()
                self.ipc.request(bl.GET_VERSION)
                self.times.append((t0, time.monotonic()))
                nxt = max(nxt + PROBE_INTERVAL, time.monotonic())
                time.sleep(max(0.0, nxt - time.monotonic()))
        except Exception as e:  # reported by stop()
            self.error = e

    def stop(self):
        self.stopping = True
        self.thread.join(35)
        self.ipc.close()
        if self.error is not None:
            raise bl.BenchError(f'the probe failed: {self.error}')

    def window(self, t0, t1):
        """Round trips (ms) of the requests sent in [t0, t1]."""
        return [1000.0 * (b - a) for a, b in self.times if t0 <= a <= t1]


# --- the frame callbacks ---

class Frames:
    """framecb.py on the compositor; (callback ms, read ns, commit ns) per callback."""

    def __init__(self, comp, log_path):
        here = os.path.dirname(os.path.abspath(__file__))
        argv = [sys.executable, os.path.join(here, 'framecb.py')]
        self.log = open(log_path, 'w')
        self.proc = subprocess.Popen(argv, env=comp.client_env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.rows = []
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            f = line.split()
            if f and f[0] == 'done':
                self.rows.append((int(f[1]), int(f[2]), int(f[3])))
            elif f == ['ready']:
                self.ready.set()

    def wait_ready(self, comp):
        bl.wait_until(lambda: self.ready.is_set() or self.proc.poll() is not None,
                      'the frame client', alive=comp.require_alive)
        if not self.ready.is_set():
            raise bl.BenchError(f'framecb exited ({self.proc.returncode}); see {self.log.name}')

    def stop(self):
        bl.stop_process(self.proc, timeout=5)
        self.thread.join(2)
        self.log.close()

    def late(self, t0, t1):
        """
        (late frames, longest gap ms, period ms, callbacks) in [t0, t1] (monotonic s). The
        compositor's callback times are put on this clock by their median lag behind reading.
        """
        rows = list(self.rows)
        if len(rows) < 10:
            return None, None, None, len(rows)
        offset = float(np.median([r[1] / 1e6 - r[0] for r in rows]))
        ms = [r[0] + offset for r in rows]
        before = [b - a for a, b in zip(ms, ms[1:]) if b < t0 * 1000]
        period = float(np.median(before[-120:])) if len(before) >= 5 else 1000 / 60
        late, longest, n = 0, 0.0, 0
        for i in range(1, len(rows)):
            if not (t0 * 1000 <= ms[i] <= t1 * 1000):
                continue
            n += 1
            gap = rows[i][0] - rows[i - 1][0]
            longest = max(longest, gap)
            # The client asked for callback i at rows[i][2]; it was late when that came more
            # than half a period after the compositor sent callback i - 1.
            asked_late = rows[i][2] / 1e6 - ms[i - 1] > period / 2
            if gap > 1.5 * period and not asked_late:
                late += 1
        return late, longest, period, n


# --- the screen ---

def region_of(size):
    w, h = size
    return (w // 2 - REGION // 2, h // 2 - REGION // 2, REGION, REGION)


def on_screen(screen, colour, timeout=60.0, alive=None):
    """Grabs until the region's mean colour is near colour; returns the end of that grab."""
    deadline = time.monotonic() + timeout
    want = np.array(colour, dtype=np.float64)
    while True:
        img = screen.grab()
        t = time.monotonic()
        mean = img.reshape(-1, 3).mean(axis=0)
        if float(np.abs(mean - want).max()) < COLOUR_TOLERANCE:
            return t
        if t > deadline:
            raise bl.BenchError(f'the colour {colour} did not show within {timeout:.0f} s '
                                f'(mean {mean.round(1).tolist()})')
        if alive is not None:
            alive()


class Hogs:
    """n processes spinning at normal priority (the --workers-busy load)."""

    def __init__(self, n):
        self.procs = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
                      for _ in range(n)]

    def stop(self):
        for p in self.procs:
            bl.stop_process(p, timeout=2)


# --- one run ---

def command(system, target):
    verb = 'veil' if system == 'A' else 'bg'
    if target is None:
        return f'output * {verb} {BASE_TEXT} solid_color'
    return f'output * {verb} {bl.quote(target)} fill'


def steps_of(cfg, scenario, system):
    """[(file or None for the solid colour, what shows it: a colour, or 'video')]."""
    m = cfg.media
    if scenario == 'png-1080':
        f = m[FILES[scenario]]
        return [(f, cfg.colours[f]) if i % 2 == 0 else (None, BASE)
                for i in range(2 * cfg.repeats)]
    if scenario == 'burst':
        if system == 'A':
            cycle = [m['hevc-1080p30.mp4'], m['noise-6000x4000.png'], m['hevc-1080p30.mp4'],
                     m['noise-6000x4000.jpg']]
        else:
            cycle = [m['noise-6000x4000.png'], m['noise-6000x4000.jpg']]
        files = [cycle[(i - cfg.burst) % len(cycle)] for i in range(cfg.burst)]
        return [(f, None) for f in files[:-1]] + [(files[-1], cfg.colours[files[-1]])]
    if scenario in OTHERS:
        f = debfiles.path(*OTHERS[scenario])
        return [(f, 'status')]
    f = m[FILES[scenario]]
    return [(f, 'video' if f.endswith('.mp4') else cfg.colours[f])]


def run_once(cfg, scenario, system, rnd):
    d = os.path.join(cfg.out, scenario, f'round{rnd}')
    os.makedirs(d, exist_ok=True)
    extra = ['for_window [app_id="veil-framecb"] floating enable, move position 0 0',
             command('B', None)]
    kind, binary = ('veil', cfg.binary) if system == 'A' else ('sway', cfg.sway)
    xray = cfg.xray and system == 'A'
    comp = bl.Compositor(kind, binary, d, 1, cfg.size, name=f'{system}-{kind}',
                         sway_config_extra=extra if system == 'B' else (),
                         args=['--xray'] if xray else ())
    frames = probe = hogs = screen = window = None
    m = {'system': system, 'round': rnd, 'switches': []}
    try:
        comp.start()
        if system == 'A':
            comp.ipc.must(command('A', None))
        if xray:
            window = subprocess.Popen([os.path.join(cfg.build, 'tests', 'tools', 'solid-window'),
                                       '--color', '2040e0', '--alpha', '80', '--size',
                                       '640x400'], env=comp.client_env, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL)
            window.stdout.readline()
            comp.ipc.must('move position 200 150')
            comp.ipc.must('output * veil xray on')
        screen = compare.Screen(comp, region_of(cfg.size))
        on_screen(screen, BASE, alive=comp.require_alive)
        frames = Frames(comp, os.path.join(d, f'{system}-framecb.log'))
        frames.wait_ready(comp)
        probe = Probe(comp.ipc.path).start()
        group = bl.Group('server', comp.tree_pids, main=comp.pid)
        group.baseline()
        since = bl.uptime_ticks()  # a swaybg started after this counts whole
        busy0, _ = bl.machine_ticks()
        self0 = bl.self_ticks()
        t_run = time.monotonic()
        time.sleep(0.5)  # the frame period and the probe's quiet round trips
        m['quiet_p99_ms'] = bl.percentile(probe.window(t_run, time.monotonic()), 99)
        steps = steps_of(cfg, scenario, system)
        if scenario == 'burst':
            m['switches'].append(switch(cfg, comp, screen, probe, frames, steps, system))
        else:
            for step in steps:
                m['switches'].append(switch(cfg, comp, screen, probe, frames, [step], system))
        probe.stop()
        probe = None
        seconds = time.monotonic() - t_run
        ticks = group.sample(since)
        busy1, _ = bl.machine_ticks()
        ours = ticks['user_ticks'] + ticks['sys_ticks']
        harness = bl.self_ticks() - self0
        m['others_pct'] = max(0.0, 100.0 * ((busy1 - busy0) - ours - harness)
                              / bl.CLK_TCK / seconds)
        m['server_cpu_pct'] = 100.0 * ours / bl.CLK_TCK / seconds
        m['load1'] = bl.loadavg()[0]
        m['seconds'] = seconds
        m['loaded'] = m['others_pct'] > cfg.loaded
    finally:
        if probe is not None:
            try:
                probe.stop()
            except bl.BenchError:
                pass
        if frames is not None:
            frames.stop()
        if window is not None:
            window.terminate()
            window.wait()
        if screen is not None:
            screen.close()
        comp.stop()
    return m


def switch(cfg, comp, screen, probe, frames, steps, system):
    """One switch, or a burst of them (steps); its figures."""
    hogs = Hogs(cfg.hogs) if cfg.workers_busy else None
    try:
        if hogs is not None:
            time.sleep(0.2)  # let them take the cores
        rtts = []
        t0 = time.monotonic()
        for target, _ in steps:
            a = time.monotonic()
            ok, err = comp.ipc.command(command(system, target))
            rtts.append(1000.0 * (time.monotonic() - a))
            if not ok:
                raise bl.BenchError(f'{command(system, target)!r} failed: {err}')
        t_reply = time.monotonic()
        target, shows = steps[-1]
        if shows == 'video':
            bl.wait_veil_shown(comp, path=target)
            t_screen = time.monotonic()
        elif shows == 'status':
            # target, or for a package one of its pictures, shown on every output.
            bl.wait_until(lambda: all(
                v.get('state') == 'shown' and v.get('frames') and
                (v.get('file') or '').startswith(target)
                for v in comp.veil_status().values()), f'{target} shown',
                timeout=bl.READY_TIMEOUT, alive=comp.require_alive)
            t_screen = time.monotonic()
        else:
            t_screen = on_screen(screen, shows, alive=comp.require_alive)
        time.sleep(cfg.tail)
        t1 = time.monotonic()
    finally:
        if hogs is not None:
            hogs.stop()
    rt = probe.window(t0, t1)
    late, longest_gap, period, callbacks = frames.late(t0, t1)
    return {'file': os.path.basename(target) if target else BASE_TEXT,
            'commands': len(steps), 'cmd_ms': max(rtts), 'cmd_ms_median': bl.median(rtts),
            'screen_ms': 1000.0 * (t_screen - t0),
            'screen_after_reply_ms': 1000.0 * (t_screen - t_reply),
            'stall_ms': max(rt) if rt else None, 'p99_ms': bl.percentile(rt, 99),
            'probes': len(rt), 'late_frames': late, 'longest_frame_gap_ms': longest_gap,
            'frame_period_ms': period, 'callbacks': callbacks,
            'window_ms': 1000.0 * (t1 - t0), 'grabs': screen.grabs}


# --- decode reference ---

def decode_ms(path, reps):
    """ffmpeg's decode of path (one thread), less that of a 16x16 file of its format (ms)."""
    ext = os.path.splitext(path)[1]
    tiny = os.path.join(os.path.dirname(path), f'tiny-16x16{ext}')
    if not os.path.exists(tiny):
        subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i',
                        'color=c=gray:s=16x16', '-frames:v', '1', tiny], check=True)

    def wall(p):
        t = time.monotonic()
        subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-threads', '1', '-i', p,
                        '-f', 'null', '-'], check=True, capture_output=True)
        return time.monotonic() - t
    big = bl.median([wall(path) for _ in range(reps)])
    small = bl.median([wall(tiny) for _ in range(reps)])
    return 1000.0 * (big - small)


# --- the report ---

def med(runs, key, agg=max):
    """The median over rounds of each run's agg over its switches."""
    vals = []
    for m in runs:
        v = [s[key] for s in m['switches'] if s.get(key) is not None]
        if v:
            vals.append(agg(v))
    return bl.median(vals), vals


def p95(v):
    return bl.percentile(v, 95)


def report(results, cfg):
    lines = []
    rows = [('longest stall, ms (max over the switches)', 'stall_ms', max),
            ('probe round trip p99, ms', 'p99_ms', max),
            ('command round trip, ms (the longest)', 'cmd_ms', max),
            ('on screen from the command sent, ms (p95 of the switches)', 'screen_ms', p95),
            ('late output frames (sum)', 'late_frames', sum),
            ('longest gap between frames, ms', 'longest_frame_gap_ms', max)]
    for s in cfg.scenarios:
        res = results['scenarios'][s]
        runs = {x: [m for m in res['runs'] if m['system'] == x and 'failed' not in m]
                for x in 'AB'}
        files = sorted({sw['file'] for m in res['runs'] for sw in m.get('switches', [])
                        if sw['file'] != BASE_TEXT})
        n = max(len(m.get('switches', [])) for m in res['runs']) if res['runs'] else 0
        lines.append('')
        lines.append(f'== {s}: {", ".join(files)}; {n} switch(es) a run, '
                     + (f'{res["runs"][0]["switches"][0]["commands"]} commands back to back'
                        if s == 'burst' and res['runs'] and res['runs'][0].get('switches')
                        else 'one command each'))
        lines.append(f'{"":58s} {"veil-tinywl":>14s} {"sway+swaybg":>14s}')
        for label, key, agg in rows:
            cells = []
            for x in 'AB':
                if not runs[x]:
                    cells.append('n/a' if x not in SYSTEMS.get(s, 'AB') else 'failed')
                    continue
                v, by = med(runs[x], key, agg)
                cells.append(bl.fmt(v, 1 if key != 'late_frames' else 0))
            lines.append(f'{label:58s} {cells[0]:>14s} {cells[1]:>14s}')
        for x in 'AB':
            for m in runs[x]:
                sw = m['switches']
                lines.append(
                    f'  round {m["round"]} {NAMES[x]}: stall '
                    f'{bl.fmt(max(q["stall_ms"] for q in sw))} ms, p99 '
                    f'{bl.fmt(max(q["p99_ms"] for q in sw))} ms (quiet p99 '
                    f'{bl.fmt(m.get("quiet_p99_ms"), 2)}), command '
                    f'{bl.fmt(max(q["cmd_ms"] for q in sw))} ms, on screen '
                    f'{bl.fmt(p95([q["screen_ms"] for q in sw]))} ms, late frames '
                    f'{sum(q["late_frames"] or 0 for q in sw)} (period '
                    f'{bl.fmt(sw[0]["frame_period_ms"])} ms), probes '
                    f'{sum(q["probes"] for q in sw)}; compositor CPU '
                    f'{bl.fmt(m["server_cpu_pct"])} %, others {bl.fmt(m["others_pct"])} %, '
                    f'load1 {m["load1"]:.2f}' + (' LOADED' if m['loaded'] else ''))
        for m in res['runs']:
            if 'failed' in m:
                lines.append(f'  round {m["round"]} {NAMES[m["system"]]} FAILED: {m["failed"]}')
    lines.append('')
    lines += targets(results, cfg)
    return lines


def targets(results, cfg):
    lines = ['Targets (veil-tinywl, medians over the rounds):']

    def verdict(ok, text):
        lines.append(('  met:    ' if ok else '  MISSED: ') + text)
    for s in cfg.scenarios:
        runs = [m for m in results['scenarios'][s]['runs']
                if m['system'] == 'A' and 'failed' not in m]
        if not runs:
            lines.append(f'  {s}: no veil-tinywl run')
            continue
        stall, _ = med(runs, 'stall_ms')
        p99, _ = med(runs, 'p99_ms')
        cmd, _ = med(runs, 'cmd_ms')
        verdict(stall <= 16, f'{s}: longest stall <= 16 ms: {stall:.1f} ms')
        verdict(p99 <= 2, f'{s}: probe p99 <= 2 ms: {p99:.2f} ms')
        verdict(cmd <= 2, f'{s}: command round trip <= 2 ms: {cmd:.1f} ms')
        if s == 'png-1080':
            v, _ = med(runs, 'screen_ms', p95)
            verdict(v <= 50, f'{s}: on screen <= 50 ms at p95 from the command sent: {v:.1f} ms')
        ref = results.get('decode_ms', {}).get(FILES.get(s))
        if s in ('png-6000', 'jpeg-6000') and ref is not None:
            v, _ = med(runs, 'screen_ms', p95)
            period = bl.median([m['switches'][0]['frame_period_ms'] for m in runs]) or 16.7
            verdict(v <= ref + period,
                    f'{s}: on screen within decode time + one frame: {v:.0f} ms against '
                    f'{ref:.0f} + {period:.1f} ms (decode: ffmpeg, see --help)')
    return lines


def main():
    p = bl.tool_parser(__doc__, SCENARIOS)
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--repeats', type=int, default=10, help='png-1080: switches there (10)')
    p.add_argument('--burst', type=int, default=100)
    p.add_argument('--tail', type=float, default=0.3)
    p.add_argument('--size', default='1920x1080')
    p.add_argument('--workers-busy', action='store_true')
    p.add_argument('--xray', action='store_true', help='A with a translucent xray window')
    p.add_argument('--hogs', type=int, default=bl.NCPU)
    p.add_argument('--loaded', type=float, default=100 * bl.LOADED_MEAN,
                   help='a run is LOADED when others used more than this %% of a core (25)')
    p.add_argument('--decode-reps', type=int, default=3)
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--compositor')
    p.add_argument('--sway', default='sway')
    p.add_argument('--media')
    p.add_argument('--out')
    p.add_argument('--quiet-wait', type=float, default=30.0,
                   help='before each run, wait up to this many s for a quiet machine')
    return bl.run_tool('stall', stall, p.parse_args())


def stall(cfg):
    bl.side_by_side_setup(cfg, SCENARIOS + list(OTHERS))
    cfg.size = compare.parse_size(cfg.size)
    tag = 'stall-busy' if cfg.workers_busy else 'stall'
    tag += '-xray' if cfg.xray else ''
    cfg.out = os.path.abspath(cfg.out or os.path.join(cfg.build, 'bench',
                                                      f'{tag}-{bl.stamp()}'))
    os.makedirs(cfg.out, exist_ok=True)
    media = os.path.abspath(cfg.media or os.path.join(cfg.build, 'bench', 'stall-media'))
    cfg.media = clips.ensure(media, which='stall', quiet=True)
    if set(cfg.media) != set(clips.STALL):
        raise bl.BenchError(f'cannot make {", ".join(set(clips.STALL) - set(cfg.media))}')
    cfg.colours = {cfg.media[n]: c for n, c in clips.NOISE_BASE.items()}
    results = {'started': time.strftime('%Y-%m-%d %H:%M:%S'), 'size': cfg.size,
               'rounds': cfg.rounds, 'workers_busy': cfg.workers_busy,
               'hogs': cfg.hogs if cfg.workers_busy else 0,
               'load_before': bl.loadavg(), 'scenarios': {}}
    results['machine'] = bl.machine_lines()
    results['build'] = bl.build_lines(cfg.build)
    results['media'] = [bl.clip_line(cfg.media[n]) for n in sorted(cfg.media)]
    results['decode_ms'] = {}
    for n in ('noise-6000x4000.png', 'noise-6000x4000.jpg'):
        if any(FILES.get(s) == n for s in cfg.scenarios):
            results['decode_ms'][n] = decode_ms(cfg.media[n], cfg.decode_reps)
            bl.say(f'stall: decode reference {n}: {results["decode_ms"][n]:.0f} ms')
    path_json = os.path.join(cfg.out, 'results.json')

    def save():
        with open(path_json, 'w') as f:
            json.dump(results, f, indent=1)

    for s in cfg.scenarios:
        res = results['scenarios'][s] = {'runs': []}
        for rnd in range(1, cfg.rounds + 1):
            for system in SYSTEMS.get(s, 'AB'):
                waited = bl.run_start('stall', s, rnd, system, NAMES[system], cfg.quiet_wait)
                try:
                    m = run_once(cfg, s, system, rnd)
                    sw = m['switches']
                    bl.say(f'   stall {bl.fmt(max(q["stall_ms"] for q in sw))} ms, p99 '
                           f'{bl.fmt(max(q["p99_ms"] for q in sw))} ms, command '
                           f'{bl.fmt(max(q["cmd_ms"] for q in sw))} ms, on screen '
                           f'{bl.fmt(p95([q["screen_ms"] for q in sw]))} ms, late frames '
                           f'{sum(q["late_frames"] or 0 for q in sw)}, others '
                           f'{bl.fmt(m["others_pct"])} %' + (' LOADED' if m['loaded'] else ''))
                except bl.BenchError as e:
                    bl.say(f'stall: {s}: round {rnd}: {system} FAILED: {e}')
                    m = {'system': system, 'round': rnd, 'failed': str(e)}
                m['quiet_wait_s'] = waited
                res['runs'].append(m)
                save()
    results['load_after'] = bl.loadavg()
    results['finished'] = time.strftime('%Y-%m-%d %H:%M:%S')
    save()
    lines = [f'veil stall: {", ".join(cfg.scenarios)}; {cfg.rounds} rounds; one output '
             f'{cfg.size[0]}x{cfg.size[1]}' + (f'; --workers-busy: {cfg.hogs} spinning '
                                               f'processes during each switch'
                                               if cfg.workers_busy else '')
             + ('; --xray: A with a translucent window over the blurred wallpaper'
                if cfg.xray else '')
             + f' ({results["started"]} to {results["finished"]})']
    lines += results['build'] + results['machine']
    lines.append(f'Load average before: {results["load_before"]}; after: '
                 f'{results["load_after"]}')
    lines.append('Media: ' + '; '.join(results['media']))
    for n, v in results['decode_ms'].items():
        lines.append(f'Decode reference (ffmpeg -threads 1, less a 16x16 file): {n} '
                     f'{v:.0f} ms')
    lines += report(results, cfg)
    return bl.side_by_side_end('stall', cfg, lines, results)


if __name__ == '__main__':
    sys.exit(main())
