#!/usr/bin/env python3
"""
compare.py: veil-tinywl against sway + a client, the same clip and output size, in one run.

    tools/devroot python3 tests/bench/compare.py [--scenarios still,1080p30,...] [--pairs 3]

Three systems, run one after the other in rounds (A B C, A B C, ...: interleaved, so that a
drift of the machine does not land on one system), at least three rounds:

  A  veil-tinywl with veil (headless, pixman): `output * veil FILE fill`.
  B  the anchor: sway 1.12 (headless, pixman). Stills: `output * bg FILE fill`, so sway runs
     swaybg. Videos: a GStreamer client per output, the client approach of veil's old daemon,
        gst-launch-1.0 filesrc location=FILE ! decodebin ! videoconvert !
          fpsdisplaysink text-overlay=false video-sink="waylandsink fullscreen=true"
     (fpsdisplaysink only counts the frames it passes to waylandsink; --anchor-sink plain
     leaves it out, and the anchor's frames are then not counted). sway and everything it
     started and the clients are counted together.
  C  the floor: the same decode to `fakesink sync=true` (counted through fpsdisplaysink too),
     nothing displayed, no compositor.

Scenarios (--scenarios, comma-separated; default all):
  still        still-1080p.png; A and B; CPU ticks and wake-ups of the main thread.
  1080p30      h264-1080p30.mp4; A, B, C.
  1080p60      h264-1080p60.mp4; A, B, C.
  two-outputs  two outputs, one file (1080p30); A decodes once, B runs two clients, C is one
               decode.
  covered      1080p30, then a fullscreen client (a still picture, waylandsink, committed
               once) covers the wallpaper: --covered seconds (20) sampled while covered; A and
               B. The cover's own CPU is sampled apart and not counted. --cover moving makes the
               cover commit the same picture again and again (imagefreeze), which measures
               what compositing such a window costs each compositor.
  switch       --switches (200) wallpaper changes between still-1080p.png and
               still-1080p-b.png (every pixel differs). Per switch: the command's own time,
               and the time from the command's return until the new picture is on the output,
               seen by polling a 64x64 region (regioncopy.py: wlr-screencopy of the region
               into one buffer) until its pixels match the file; for A also until veil's status `frames` of the output moved (the frame is
               on veil's scene nodes; the output shows it at its next commit). A and B.

Videos are played from a copy of the 10 s reference clip repeated without re-encoding (ffmpeg
-stream_loop, -c copy) so that it lasts longer than the run: the same bitstream for all three,
and no system has to loop (gst-launch cannot).

Before the rounds, each system of each scenario runs once with the debug log (-d) to find out
whether wlroots scanned the output out directly or composited it (--no-probe skips that).
Writes <out>/<scenario>/<round>-<system>.csv (every sample), results.json and report.txt
(also printed); <out> is build-bench/bench/compare-<date> unless --out.
"""

import json
import os
import shlex
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import clips
from regioncopy import RegionCopy, RegionCopyError

SCENARIOS = ['still', '1080p30', '1080p60', 'two-outputs', 'covered', 'switch']
FILES = {'still': 'still-1080p.png', '1080p30': 'h264-1080p30.mp4',
         '1080p60': 'h264-1080p60.mp4', 'two-outputs': 'h264-1080p30.mp4',
         'covered': 'h264-1080p30.mp4'}
SYSTEMS = {'still': 'AB', '1080p30': 'ABC', '1080p60': 'ABC', 'two-outputs': 'ABC',
           'covered': 'AB', 'switch': 'AB'}
OUTPUTS = {'two-outputs': 2}
NAMES = {'A': 'veil-tinywl + veil', 'B': 'sway + client', 'C': 'decode to fakesink'}


def parse_size(text):
    w, _, h = text.lower().partition('x')
    return int(w), int(h)


# --- the screen ---

def read_rgb(path):
    """A picture as HxWx3 uint8 through ffmpeg."""
    r = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                        'stream=width,height', '-of', 'csv=p=0:s=x', path],
                       capture_output=True, text=True, check=True)
    w, h = (int(x) for x in r.stdout.strip().split('x')[:2])
    raw = subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-i', path, '-frames:v', '1',
                          '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


class Screen:
    """A region of the layout, copied by the compositor into one buffer (regioncopy.py).

    Not grim: grim grabs the whole output and crops it, and each grab makes the compositor
    fault in a new 8 MiB buffer, which the timings here would count as the compositor's.
    """

    def __init__(self, comp, region):
        self.comp = comp
        self.x, self.y, self.w, self.h = region
        self.grabs = 0
        self.copy = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.copy is not None:
            self.copy.close()
            self.copy = None

    def grab(self):
        try:
            if self.copy is None:
                self.copy = RegionCopy(self.comp.client_env, (self.x, self.y, self.w, self.h))
            img = self.copy.grab()
        except (OSError, RegionCopyError) as e:
            self.close()
            raise bl.BenchError(f'copying the region {self.x},{self.y} {self.w}x{self.h}: {e}')
        self.grabs += 1
        return img

    def expected(self, pixels):
        return pixels[self.y:self.y + self.h, self.x:self.x + self.w]

    def matches(self, img, expected):
        if img.shape != expected.shape:
            return False
        d = np.abs(img.astype(np.int16) - expected.astype(np.int16))
        return float(d.mean()) < 4.0 and int(d.max()) < 48

    def wait_for(self, expected, timeout=30.0):
        """Grabs until the region matches; returns (start of that grab, end of it)."""
        deadline = time.monotonic() + timeout
        while True:
            t0 = time.monotonic()
            img = self.grab()
            t1 = time.monotonic()
            if self.matches(img, expected):
                return t0, t1
            if t1 > deadline:
                d = np.abs(img.astype(np.int16) - expected.astype(np.int16))
                raise bl.BenchError(f'the picture did not show within {timeout:.0f} s '
                                    f'(mean difference {d.mean():.1f})')
            self.comp.require_alive()


def pick_region(a, b, size=64):
    """A size x size block where the two pictures differ most, away from the edges."""
    d = np.abs(a.astype(np.int16) - b.astype(np.int16)).sum(axis=2)
    h, w = d.shape
    best, where = -1, (w // 2, h // 2)
    for y in range(size, h - 2 * size, size):
        for x in range(size, w - 2 * size, size):
            v = int(d[y:y + size, x:x + size].min())
            if v > best:
                best, where = v, (x, y)
    return where[0], where[1], size, size


# --- the systems ---

class Run:
    """One system in one scenario: what is started, how it is measured, what is stopped."""

    def __init__(self, cfg, scenario, system, rnd, debug=False):
        self.cfg = cfg
        self.scenario = scenario
        self.system = system
        self.rnd = rnd
        self.debug = debug
        self.dir = os.path.join(cfg.out, scenario, 'probe' if debug else f'round{rnd}')
        os.makedirs(self.dir, exist_ok=True)
        self.comp = None
        self.clients = []
        self.cover = None
        self.n_outputs = OUTPUTS.get(scenario, 1)
        self.file = cfg.media.get(scenario)
        self.ready_rss = None

    # -- start --

    def start(self):
        s = self.system
        if s == 'A':
            self.comp = bl.Compositor('veil', self.cfg.binary, self.dir, self.n_outputs,
                                      self.cfg.size, env=self.cfg.env, debug=self.debug,
                                      name=f'{s}-veil-tinywl')
            self.comp.start()
            g = bl.Group('tmp', lambda: [self.comp.pid])
            self.ready_rss = g.sample(None, record=False)
            if self.scenario != 'switch':
                self.comp.ipc.must(f'output * veil {bl.quote(self.file)} fill')
                bl.wait_veil_shown(self.comp, path=self.file)
        elif s == 'B':
            extra = []
            if self.scenario == 'still':
                extra.append(f'output * bg {bl.quote(self.file)} fill')
            if self.scenario == 'switch':
                extra.append(f'output * bg {bl.quote(self.cfg.media["switch"][1])} fill')
            self.comp = bl.Compositor('sway', self.cfg.sway, self.dir, self.n_outputs,
                                      self.cfg.size, env=self.cfg.env, debug=self.debug,
                                      name=f'{s}-sway', sway_config_extra=extra)
            self.comp.start()
            g = bl.Group('tmp', lambda: [self.comp.pid])
            self.ready_rss = g.sample(None, record=False)
            if self.scenario == 'still':
                with Screen(self.comp, self.cfg.region) as screen:
                    screen.wait_for(screen.expected(self.cfg.pixels[self.file]))
            elif self.scenario != 'switch':
                for i, out in enumerate(self.comp.output_names):
                    self.comp.ipc.must(f'focus output {out}')
                    self.start_client(self.video_pipeline(), f'client{i + 1}')
                    self.wait_fullscreen(self.clients[-1], out)
        else:
            self.start_client(self.floor_pipeline(), 'floor')
        for c in self.clients:
            bl.wait_until(lambda: c.rendered > 0 or self.cfg.anchor_sink == 'plain',
                          f'{c.name} to render', alive=c.alive)

    def video_pipeline(self):
        sink = f'waylandsink fullscreen=true'
        if self.cfg.anchor_sink == 'fps':
            sink = (f'fpsdisplaysink text-overlay=false fps-update-interval=1000 '
                    f'video-sink="{sink}"')
        return f'filesrc location={shlex.quote(self.file)} ! decodebin ! videoconvert ! {sink}'

    def floor_pipeline(self):
        return (f'filesrc location={shlex.quote(self.file)} ! decodebin ! fpsdisplaysink '
                f'text-overlay=false fps-update-interval=1000 video-sink="fakesink sync=true"')

    def start_client(self, pipeline, name):
        env = self.comp.client_env if self.comp else bl.base_env()
        c = bl.GstClient(pipeline, env, os.path.join(self.dir, f'{self.system}-{name}.log'),
                         name=name).start()
        self.clients.append(c)
        return c

    def sway_views(self):
        """[(pid, output, fullscreen, visible)] of sway's windows."""
        tree = self.comp.ipc.request(bl.GET_TREE)
        out = []

        def walk(node, output):
            if node.get('type') == 'output':
                output = node.get('name')
            if node.get('pid') and node.get('type') in ('con', 'floating_con'):
                out.append((node['pid'], output, node.get('fullscreen_mode') == 1,
                            node.get('visible')))
            for k in ('nodes', 'floating_nodes'):
                for n in node.get(k, []):
                    walk(n, output)
        walk(tree, None)
        return out

    def wait_fullscreen(self, client, output):
        def pred():
            client.alive()
            return any(p == client.pid and o == output and fs and vis
                       for p, o, fs, vis in self.sway_views())
        bl.wait_until(pred, f'{client.name} fullscreen on {output}', alive=self.comp.require_alive)

    # -- measure --

    def groups(self):
        gs = []
        if self.comp is not None:
            gs.append(bl.Group('server', self.comp.tree_pids, main=self.comp.pid))
        if self.clients:
            clients = list(self.clients)
            gs.append(bl.Group('client', lambda: [p for c in clients if c.proc
                                                  for p in [c.pid] + bl.descendants(c.pid)]))
        return gs

    def extra(self, dt):
        row = {}
        if self.system == 'A':
            row.update(self.counters(dt))
        elif self.comp is not None:
            self.comp.ipc.outputs()  # the same status query as A's, for the same cost
        if self.clients:
            rendered = sum(c.rendered for c in self.clients)
            if self.prev_rendered is not None:
                row['frames_per_s'] = (rendered - self.prev_rendered) / dt
            row['rendered'] = rendered
            self.prev_rendered = rendered
        return row

    def alive(self):
        if self.comp is not None:
            self.comp.require_alive()
        for c in self.clients:
            c.alive()

    def sample(self, seconds, groups=None, tag=''):
        self.prev_rendered = None
        if self.system == 'A':
            self.counters = bl.VeilCounters(self.comp)
            self.counters.prev = self.counters.read()
        self.extra(1.0)
        gs = groups or self.groups()
        sampler = bl.Sampler(gs, self.cfg.interval, extra=self.extra, alive=self.alive)
        rows = sampler.run(seconds)
        # Totals: the system is the server and its clients.
        for r in rows:
            r['total_cpu_pct'] = r.get('server_cpu_pct', 0) + r.get('client_cpu_pct', 0)
            r['total_user_pct'] = r.get('server_user_pct', 0) + r.get('client_user_pct', 0)
            r['total_sys_pct'] = r.get('server_sys_pct', 0) + r.get('client_sys_pct', 0)
            r['total_ticks'] = r.get('server_ticks', 0) + r.get('client_ticks', 0)
        bl.write_csv(os.path.join(self.dir, f'{self.system}{tag}.csv'), rows)
        return rows, sampler.seconds, gs

    def metrics(self, rows, seconds, gs):
        m = {'system': self.system, 'round': self.rnd, 'seconds': seconds}
        tot = bl.column(rows, 'total_cpu_pct')
        m['cpu_mean'] = bl.mean(tot)
        m['cpu_median'] = bl.median(tot)
        m['user_mean'] = bl.mean(bl.column(rows, 'total_user_pct'))
        m['sys_mean'] = bl.mean(bl.column(rows, 'total_sys_pct'))
        m['ticks'] = sum(bl.column(rows, 'total_ticks'))
        for g in gs:
            s = bl.summarize(rows, g.name, seconds)
            m[g.name] = {k: s[k] for k in ('cpu_mean', 'cpu_median', 'user_mean', 'sys_mean',
                                           'ticks', 'rss_median', 'rss_max', 'anon_median',
                                           'threads_min', 'threads_max', 'fds_min', 'fds_max')}
            if 'wakeups_mean' in s:
                m[g.name]['wakeups_mean'] = s['wakeups_mean']
                m[g.name]['wakeups_median'] = s['wakeups_median']
                m[g.name]['nvcsw_mean'] = s['nvcsw_mean']
            m[g.name]['top'] = g.top_threads(seconds)
        fr = bl.column(rows, 'frames_per_s')
        m['frames_per_s'] = bl.mean(fr) if fr else None
        dec = bl.column(rows, 'decoded_per_s')
        m['decoded_per_s'] = bl.mean(dec) if dec else None
        if m['decoded_per_s'] and 'server' in m and 'wakeups_mean' in m['server']:
            m['wakeups_per_decoded'] = m['server']['wakeups_mean'] / m['decoded_per_s']
        if m['frames_per_s'] and 'server' in m and 'wakeups_mean' in m['server']:
            m['wakeups_per_frame'] = m['server']['wakeups_mean'] / m['frames_per_s']
        if self.ready_rss is not None and 'server' in m:
            m['server_rss_ready'] = self.ready_rss['rss_kib']
            m['server_rss_growth'] = m['server']['rss_median'] - self.ready_rss['rss_kib']
        m['status_queries_per_s'] = 1.0 / self.cfg.interval if self.comp else 0
        flagged, om, op = bl.loaded(rows)
        m['loaded'] = flagged
        m['others_mean'] = om
        m['others_peak'] = op
        m['load1'] = bl.mean(bl.column(rows, 'load1'))
        if self.system == 'A' and self.comp is not None:
            st = self.counters.last_status or {}
            v = next(iter(st.values()), {}) if st else {}
            src = v.get('source') or {}
            m['decoder'] = src.get('decoder')
            m['format'] = src.get('format')
            m['dropped'] = sum(bl.column(rows, 'dropped'))
        else:
            decs = set()
            for c in self.clients:
                decs |= set(bl.decoder_names(c.decoders))
            m['decoder'] = ', '.join(sorted(decs)) or None
            m['dropped'] = sum(c.dropped for c in self.clients) if self.clients else None
        return m

    # -- covered --

    def start_cover(self):
        w, h = self.cfg.size
        if self.cfg.cover == 'still':
            # One frame, committed once; the second branch only keeps gst-launch from ending.
            pipeline = (f'videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,width={w},'
                        f'height={h} ! videoconvert ! waylandsink fullscreen=true '
                        f'videotestsrc is-live=true ! video/x-raw,width=16,height=16,'
                        f'framerate=1/1 ! fakesink')
        else:
            # The same picture pushed again and again (imagefreeze at framerate 0/1): a window
            # that keeps committing, whose compositing lands on the compositor.
            pipeline = (f'videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,width={w},'
                        f'height={h},framerate=0/1 ! imagefreeze ! videoconvert ! '
                        f'waylandsink fullscreen=true')
        self.cover = bl.GstClient(pipeline, self.comp.client_env,
                                  os.path.join(self.dir, f'{self.system}-cover.log'),
                                  name='cover').start()
        if self.system == 'A':
            def pred():
                self.cover.alive()
                st = self.comp.veil_status()
                return all((st.get(n) or {}).get('state') == 'hidden'
                           for n in self.comp.output_names)
            bl.wait_until(pred, 'veil to report the wallpaper hidden',
                          alive=self.comp.require_alive)
        else:
            self.wait_fullscreen(self.cover, self.comp.output_names[0])

    # -- switch --

    def switch(self, n):
        with Screen(self.comp, self.cfg.region) as screen:
            return self.switches(screen, n)

    def switches(self, screen, n):
        a, b = self.cfg.media['switch']
        out = self.comp.output_names[0]
        if self.system == 'A':
            self.comp.ipc.must(f'output {out} veil {bl.quote(b)} fill')
            bl.wait_veil_shown(self.comp, path=b)
        screen.wait_for(screen.expected(self.cfg.pixels[b]))
        g = bl.Group('server', self.comp.tree_pids, main=self.comp.pid)
        g.baseline()
        prev_up = bl.uptime_ticks()
        t_begin = time.monotonic()
        busy0, _ = bl.machine_ticks()
        self0 = bl.self_ticks()
        rows = []
        for i in range(n):
            f = a if i % 2 == 0 else b
            exp = screen.expected(self.cfg.pixels[f])
            if self.system == 'A':
                before = int(self.comp.veil_status()[out].get('frames') or 0)
                cmd = f'output {out} veil {bl.quote(f)} fill'
            else:
                cmd = f'output {out} bg {bl.quote(f)} fill'
            t0 = time.monotonic()
            ok, err = self.comp.ipc.command(cmd)
            t1 = time.monotonic()
            if not ok:
                raise bl.BenchError(f'{cmd!r} failed: {err}')
            row = {'i': i + 1, 'file': os.path.basename(f), 'command_ms': (t1 - t0) * 1000}
            if self.system == 'A':
                while True:
                    v = self.comp.veil_status()[out]
                    if v.get('file') == f and int(v.get('frames') or 0) > before:
                        break
                    if time.monotonic() - t1 > 30:
                        raise bl.BenchError(f'switch {i + 1}: veil never put the frame up')
                    time.sleep(0.002)
                row['status_ms'] = (time.monotonic() - t1) * 1000
            g0, g1 = screen.wait_for(exp)
            row['screen_ms'] = (g1 - t1) * 1000
            row['grab_ms'] = (g1 - g0) * 1000
            row['send_to_screen_ms'] = (g1 - t0) * 1000
            rows.append(row)
            time.sleep(self.cfg.switch_pause)
        seconds = time.monotonic() - t_begin
        r = g.sample(prev_up)
        busy1, _ = bl.machine_ticks()
        harness = bl.self_ticks() - self0
        others = (busy1 - busy0) - (r['user_ticks'] + r['sys_ticks']) - harness
        bl.write_csv(os.path.join(self.dir, f'{self.system}-switches.csv'), rows)
        m = {'system': self.system, 'round': self.rnd, 'switches': n, 'seconds': seconds}
        for k in ('command_ms', 'status_ms', 'screen_ms', 'grab_ms', 'send_to_screen_ms'):
            vals = bl.column(rows, k)
            if vals:
                m[k + '_p50'] = bl.percentile(vals, 50)
                m[k + '_p95'] = bl.percentile(vals, 95)
                m[k + '_max'] = max(vals)
        m['ticks'] = r['user_ticks'] + r['sys_ticks']
        m['cpu_ms_per_switch'] = 1000.0 * m['ticks'] / bl.CLK_TCK / n
        m['threads_end'] = r['threads']
        m['fds_end'] = r['fds']
        m['others_mean'] = max(0.0, 100.0 * others / bl.CLK_TCK / seconds)
        m['loaded'] = m['others_mean'] > 100 * bl.LOADED_MEAN
        m['grabs'] = screen.grabs
        return m

    # -- stop --

    def stop(self):
        if self.cover is not None:
            self.cover.stop()
        for c in self.clients:
            c.stop()
        if self.comp is not None:
            self.comp.stop()
            self.exit_status = getattr(self.comp, 'exit_status', None)


def run_once(cfg, scenario, system, rnd):
    r = Run(cfg, scenario, system, rnd)
    try:
        r.start()
        if scenario == 'switch':
            return r.switch(cfg.switches)
        time.sleep(cfg.warmup)
        if scenario == 'covered':
            rows, sec, gs = r.sample(cfg.before, tag='-before')
            before = r.metrics(rows, sec, gs)
            r.start_cover()
            time.sleep(cfg.settle)
            gs = r.groups()
            cover = r.cover
            gs.append(bl.Group('cover', lambda: [cover.pid] + bl.descendants(cover.pid)))
            rows, sec, gs = r.sample(cfg.covered, groups=gs, tag='-covered')
            m = r.metrics(rows, sec, gs)
            m['before'] = {k: before[k] for k in ('cpu_mean', 'frames_per_s', 'loaded')}
            m['before']['server_wakeups'] = before.get('server', {}).get('wakeups_mean')
            return m
        rows, sec, gs = r.sample(cfg.duration)
        return r.metrics(rows, sec, gs)
    finally:
        r.stop()


def probe(cfg, scenario, system):
    """A short run with -d: did wlroots scan out directly?"""
    if system == 'C':
        return 'none (no compositor)'
    r = Run(cfg, scenario, system, 0, debug=True)
    try:
        r.start()
        if scenario == 'switch' and system == 'A':
            r.comp.ipc.must(f'output * veil {bl.quote(cfg.media["switch"][0])} fill')
            bl.wait_veil_shown(r.comp)
        if scenario == 'covered':
            r.start_cover()
        time.sleep(2)
        # What was logged while the scene was up (not what its teardown logs).
        st = bl.scanout_probe(r.comp.log_path)
    finally:
        r.stop()
    if cfg.env.get('WLR_SCENE_DISABLE_DIRECT_SCANOUT'):
        return 'composited (WLR_SCENE_DISABLE_DIRECT_SCANOUT=1)'
    return {'enabled': 'direct scan-out', 'disabled': 'composited'}.get(
        st, 'composited (no direct scan-out logged)')


# --- the report ---

def med(runs, key, sub=None):
    vals = []
    for m in runs:
        v = m.get(sub, {}).get(key) if sub else m.get(key)
        if v is not None:
            vals.append(v)
    return bl.median(vals)


def report_scenario(name, res, cfg):
    lines = [f'== {name}' + (f' ({os.path.basename(cfg.media[name])})'
                             if name in FILES else '')]
    runs = res['runs']
    probe_text = ', '.join(f'{s}: {p}' for s, p in res.get('path', {}).items())
    if probe_text:
        lines.append(f'path: {probe_text}')
    by = {s: [m for m in runs if m['system'] == s] for s in SYSTEMS[name]}
    if name == 'switch':
        lines.append('round system  command p50/p95 ms  status p50/p95 ms  on screen (copy) '
                     'p50/p95 ms  grab p50 ms  CPU ms/switch  others %')
        for m in runs:
            lines.append(f'{m["round"]:5} {m["system"]:6}  '
                         f'{bl.fmt(m.get("command_ms_p50"))}/{bl.fmt(m.get("command_ms_p95"))}'
                         f'  {bl.fmt(m.get("status_ms_p50"))}/{bl.fmt(m.get("status_ms_p95"))}'
                         f'  {bl.fmt(m.get("screen_ms_p50"))}/{bl.fmt(m.get("screen_ms_p95"))}'
                         f'  {bl.fmt(m.get("grab_ms_p50"))}'
                         f'  {bl.fmt(m.get("cpu_ms_per_switch"))}'
                         f'  {bl.fmt(m.get("others_mean"))}{" LOADED" if m["loaded"] else ""}')
        for s, ms in by.items():
            lines.append(f'median of rounds, {s}: command p95 {bl.fmt(med(ms, "command_ms_p95"))}'
                         f' ms, status p50 {bl.fmt(med(ms, "status_ms_p50"))} p95 '
                         f'{bl.fmt(med(ms, "status_ms_p95"))} ms, on screen p50 '
                         f'{bl.fmt(med(ms, "screen_ms_p50"))} p95 {bl.fmt(med(ms, "screen_ms_p95"))}'
                         f' ms, CPU {bl.fmt(med(ms, "cpu_ms_per_switch"))} ms per switch')
        return lines
    lines.append('round system  CPU mean (server+client)  user/sys  main wake/s  frames/s '
                 'wake/frame  server RSS MiB  client RSS MiB  threads  fds  others %')
    for m in runs:
        srv = m.get('server', {})
        cli = m.get('client', {})
        threads = '+'.join(bl.range_text(g.get('threads_min'), g.get('threads_max'))
                           for g in (srv, cli) if g)
        lines.append(
            f'{m["round"]:5} {m["system"]:6}  {bl.fmt(m["cpu_mean"], 2):>6} '
            f'(med {bl.fmt(m["cpu_median"], 1)}, {m["ticks"]} ticks)  '
            f'{bl.fmt(m["user_mean"], 1)}/{bl.fmt(m["sys_mean"], 1)}  '
            f'{bl.fmt(srv.get("wakeups_mean"), 1)}  {bl.fmt(m.get("frames_per_s"), 2)}  '
            f'{bl.fmt(m.get("wakeups_per_frame"), 2)}  '
            f'{bl.fmt(bl.mib(srv.get("rss_median")))}  {bl.fmt(bl.mib(cli.get("rss_median")))}  '
            f'{threads}  {bl.range_text(srv.get("fds_min"), srv.get("fds_max"))}  '
            f'{bl.fmt(m["others_mean"])}{" LOADED" if m["loaded"] else ""}')
        if name == 'covered' and 'before' in m:
            b = m['before']
            lines.append(f'      before the cover: CPU {bl.fmt(b["cpu_mean"], 2)}, frames/s '
                         f'{bl.fmt(b["frames_per_s"], 2)}, main wake/s '
                         f'{bl.fmt(b["server_wakeups"], 1)}; cover client '
                         f'{bl.fmt(m.get("cover", {}).get("cpu_mean"), 2)} % (not counted)')
    for s, ms in by.items():
        if not ms:
            continue
        tops = {}
        for m in ms:
            for g in ('server', 'client'):
                for n, p in m.get(g, {}).get('top', []):
                    tops[n] = tops.get(n, 0) + p / len(ms)
        top = sorted(tops.items(), key=lambda kv: -kv[1])[:5]
        lines.append(f'median of {len(ms)} rounds, {s} ({NAMES[s]}): CPU '
                     f'{bl.fmt(med(ms, "cpu_mean"), 2)} %, main thread '
                     f'{bl.fmt(med(ms, "wakeups_mean", "server"), 1)} wake-ups/s, frames/s '
                     f'{bl.fmt(med(ms, "frames_per_s"), 2)}, decoder '
                     f'{ms[0].get("decoder")}; busiest threads (mean): '
                     + ', '.join(f'{n} {p:.1f} %' for n, p in top))
    a = {m['round']: m for m in by.get('A', [])}
    for s in 'BC':
        other = {m['round']: m for m in by.get(s, [])}
        pairs = [(r, a[r], other[r]) for r in sorted(a) if r in other]
        if not pairs:
            continue
        ratios = [x['cpu_mean'] / y['cpu_mean'] if y['cpu_mean'] else None for _, x, y in pairs]
        diffs = [x['cpu_mean'] - y['cpu_mean'] for _, x, y in pairs]
        lines.append(f'A/{s} per round: ' + ', '.join(bl.fmt(v, 3) for v in ratios) +
                     f' (median {bl.fmt(bl.median(ratios), 3)}); A-{s} in points: ' +
                     ', '.join(f'{v:+.2f}' for v in diffs) +
                     f' (median {bl.median(diffs):+.2f})')
    return lines


def kept(results, s):
    r = results['scenarios'].get(s)
    if not r:
        return []
    return [m for m in r['runs'] if 'failed' not in m and 'discarded' not in m]


def rounds(runs, system):
    return {m['round']: m for m in runs if m['system'] == system}


def targets(results, cfg):
    """The issue's targets for veil on the software path, against this run's numbers."""
    lines = ['== targets (veil on the software path; medians over the rounds kept)']

    def verdict(ok, text):
        lines.append(('n/a: ' if ok is None else 'met: ' if ok else 'MISSED: ') + text)

    runs = kept(results, 'still')
    if runs:
        a = rounds(runs, 'A')
        ticks = [m['ticks'] for m in a.values()]
        verdict(all(t == 0 for t in ticks),
                f'still: 0 CPU ticks in {cfg.duration:g} s: veil-tinywl had '
                f'{", ".join(str(t) for t in ticks)} ticks (rounds 1..{len(ticks)})')
        extra = [m['server']['wakeups_mean'] - m['status_queries_per_s'] for m in a.values()]
        verdict(all(e <= 0.05 for e in extra),
                'still: no wake-ups besides the status query: main thread '
                + ', '.join(f'{m["server"]["wakeups_mean"]:.2f}' for m in a.values())
                + f' wake-ups/s with {1 / cfg.interval:g} status queries/s')
    for s in ('1080p30', '1080p60'):
        runs = kept(results, s)
        a, b, c = rounds(runs, 'A'), rounds(runs, 'B'), rounds(runs, 'C')
        pairs = [r for r in a if r in b]
        if pairs:
            ma = bl.median([a[r]['cpu_mean'] for r in pairs])
            mb = bl.median([b[r]['cpu_mean'] for r in pairs])
            per = ', '.join(f'{a[r]["cpu_mean"]:.2f} vs {b[r]["cpu_mean"]:.2f}' for r in pairs)
            verdict(ma <= mb, f'{s}: total CPU <= the anchor\'s: A {ma:.2f} % against B '
                              f'{mb:.2f} % (by round: {per}); A-B {ma - mb:+.2f} points')
        pairs = [r for r in a if r in c]
        if pairs:
            d = bl.median([a[r]['cpu_mean'] - c[r]['cpu_mean'] for r in pairs])
            verdict(d <= 1.5, f'{s}: within 1.5 points of the floor: A-C {d:+.2f} points '
                              f'(by round: ' + ', '.join(
                                  f'{a[r]["cpu_mean"] - c[r]["cpu_mean"]:+.2f}' for r in pairs)
                    + ')' + (f'; missed by {d - 1.5:.2f} points' if d > 1.5 else ''))
    runs = kept(results, 'two-outputs')
    a, b = rounds(runs, 'A'), rounds(runs, 'B')
    pairs = [r for r in a if r in b]
    if pairs:
        ratios = [a[r]['cpu_mean'] / b[r]['cpu_mean'] for r in pairs if b[r]['cpu_mean']]
        q = bl.median(ratios)
        verdict(q <= 0.55, f'two outputs, one file: A/B {q:.3f} (<= 0.55; by round '
                           + ', '.join(f'{x:.3f}' for x in ratios) + ')'
                + (f'; missed by {q - 0.55:.3f}' if q > 0.55 else ''))
    runs = kept(results, 'covered')
    a = rounds(runs, 'A')
    if a:
        v = bl.median([m['cpu_mean'] for m in a.values()])
        verdict(v <= 1.0, f'covered: <= 1 % of a core while covered: A {v:.2f} % (by round '
                          + ', '.join(f'{m["cpu_mean"]:.2f}' for m in a.values()) + ')')
    for s in ('1080p30', '1080p60', 'two-outputs'):
        a = rounds(kept(results, s), 'A')
        wf = [m.get('wakeups_per_frame') for m in a.values() if m.get('wakeups_per_frame')]
        wd = [m.get('wakeups_per_decoded') for m in a.values() if m.get('wakeups_per_decoded')]
        if wf:
            v = bl.median(wf)
            verdict(v <= 1.1, f'{s}: main thread <= 1.1 wake-ups per frame shown: '
                              f'{v:.2f} (by round ' + ', '.join(f'{x:.2f}' for x in wf) + ')'
                    + (f'; missed by {v - 1.1:.2f}' if v > 1.1 else '')
                    + (f'; {bl.median(wd):.2f} per frame decoded' if wd else ''))
    runs = kept(results, '1080p30')
    a, b = rounds(runs, 'A'), rounds(runs, 'B')
    if a and b:
        growth = bl.median([m['server_rss_growth'] for m in a.values()])
        client = bl.median([m['client']['rss_median'] for m in b.values()])
        verdict(growth <= client / 2,
                f'1080p30: compositor RSS growth <= half the anchor client\'s RSS: '
                f'{growth / 1024:.1f} MiB against {client / 1024:.1f} / 2 = '
                f'{client / 2048:.1f} MiB' + (f'; missed by {(growth - client / 2) / 1024:.1f}'
                                              f' MiB' if growth > client / 2 else ''))
    runs = kept(results, 'switch')
    a = rounds(runs, 'A')
    if a:
        v = bl.median([m['screen_ms_p95'] for m in a.values()])
        verdict(v <= 50, f'switch: a 1080p PNG on screen <= 50 ms at p95 after the command '
                         f'returns: {v:.1f} ms (region copy; by round '
                         + ', '.join(f'{m["screen_ms_p95"]:.1f}' for m in a.values()) + ')'
                + (f'; missed by {v - 50:.1f} ms' if v > 50 else ''))
    lines.append('(the soaks are judged by soak.py)')
    return lines


def main():
    p = bl.tool_parser(__doc__, SCENARIOS)
    p.add_argument('--pairs', type=int, default=3, help='rounds of A B (C) (default 3)')
    p.add_argument('--size', default='1920x1080')
    p.add_argument('--warmup', type=float, default=5.0)
    p.add_argument('--duration', type=float, default=60.0)
    p.add_argument('--before', type=float, default=10.0,
                   help='covered: seconds sampled before the cover')
    p.add_argument('--covered', type=float, default=20.0)
    p.add_argument('--settle', type=float, default=2.0,
                   help='covered: seconds between the cover and the samples')
    p.add_argument('--cover', choices=['still', 'moving'], default='still',
                   help='covered: a window that commits once (still) or keeps committing '
                        '(moving: imagefreeze)')
    p.add_argument('--switches', type=int, default=200)
    p.add_argument('--switch-pause', type=float, default=0.1,
                   help='seconds between a switch seen and the next command')
    p.add_argument('--interval', type=float, default=1.0)
    p.add_argument('--anchor-sink', choices=['fps', 'plain'], default='fps')
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--compositor')
    p.add_argument('--sway', default='sway')
    p.add_argument('--clips', help='reference clips (default BUILD/bench/clips)')
    p.add_argument('--out')
    p.add_argument('--env', action='append', default=[], metavar='K=V',
                   help='environment of both compositors (repeatable)')
    p.add_argument('--no-scanout', action='store_true',
                   help='WLR_SCENE_DISABLE_DIRECT_SCANOUT=1 for both compositors')
    p.add_argument('--no-probe', action='store_true')
    p.add_argument('--retries', type=int, default=2,
                   help='times a round with a LOADED run is run again (2)')
    p.add_argument('--quiet-wait', type=float, default=120.0,
                   help='before each run, wait up to this many s for a quiet machine')
    return bl.run_tool('compare', compare, p.parse_args())


def compare(cfg):
    bl.side_by_side_setup(cfg, SCENARIOS)
    cfg.size = parse_size(cfg.size)
    cfg.env = dict(kv.split('=', 1) for kv in cfg.env)
    if cfg.no_scanout:
        cfg.env['WLR_SCENE_DISABLE_DIRECT_SCANOUT'] = '1'
    cfg.out = os.path.abspath(cfg.out or os.path.join(cfg.build, 'bench',
                                                      f'compare-{bl.stamp()}'))
    os.makedirs(cfg.out, exist_ok=True)
    clipdir = os.path.abspath(cfg.clips or os.path.join(cfg.build, 'bench', 'clips'))
    need = sorted({FILES[s] for s in cfg.scenarios if s in FILES} |
                  ({'still-1080p.png', 'still-1080p-b.png'} if 'switch' in cfg.scenarios
                   else set()))
    have = clips.ensure(clipdir, need, quiet=True)
    missing = [n for n in need if n not in have]
    if missing:
        raise bl.BenchError(f'cannot make {", ".join(missing)}')
    # Long copies of the videos: the same bitstream, repeated, longer than any run.
    longest = cfg.warmup + max(cfg.duration, cfg.before + cfg.settle + cfg.covered) + 40
    cfg.media = {}
    for s in cfg.scenarios:
        if s == 'switch':
            cfg.media[s] = (have['still-1080p.png'], have['still-1080p-b.png'])
            continue
        src = have[FILES[s]]
        if src.endswith('.png'):
            cfg.media[s] = src
            continue
        cfg.media[s] = bl.long_copy(src, longest, clipdir)
    # Pictures for the screen's region: the still and the two switch pictures.
    cfg.pixels = {}
    for f in [have[n] for n in have if n.endswith('.png')]:
        cfg.pixels[f] = read_rgb(f)
    a = cfg.pixels.get(have.get('still-1080p.png'))
    b = cfg.pixels.get(have.get('still-1080p-b.png'))
    cfg.region = pick_region(a, b) if a is not None and b is not None else (896, 476, 64, 64)

    results = {'started': time.strftime('%Y-%m-%d %H:%M:%S'), 'size': cfg.size,
               'pairs': cfg.pairs, 'duration': cfg.duration, 'warmup': cfg.warmup,
               'env': cfg.env, 'anchor_sink': cfg.anchor_sink, 'cover': cfg.cover,
               'load_before': bl.loadavg(), 'scenarios': {}}
    results['machine'] = bl.machine_lines()
    results['build'] = bl.build_lines(cfg.build)
    results['media'] = {s: (bl.clip_line(v) if isinstance(v, str) else
                            [bl.clip_line(x) for x in v]) for s, v in cfg.media.items()}
    path_json = os.path.join(cfg.out, 'results.json')

    def save():
        with open(path_json, 'w') as f:
            json.dump(results, f, indent=1)

    for s in cfg.scenarios:
        res = results['scenarios'][s] = {'runs': [], 'path': {}}
        if not cfg.no_probe:
            for system in SYSTEMS[s]:
                try:
                    res['path'][system] = probe(cfg, s, system)
                except bl.BenchError as e:
                    res['path'][system] = f'probe failed: {e}'
                bl.say(f'compare: {s}: {system} path: {res["path"][system]}')
        for rnd in range(1, cfg.pairs + 1):
            for attempt in range(cfg.retries + 1):
                round_runs = []
                for system in SYSTEMS[s]:
                    waited = bl.run_start('compare', s, rnd, system, NAMES[system],
                                          cfg.quiet_wait)
                    try:
                        m = run_once(cfg, s, system, rnd)
                    except bl.BenchError as e:
                        bl.say(f'compare: {s}: round {rnd}: {system} FAILED: {e}')
                        m = {'system': system, 'round': rnd, 'failed': str(e)}
                    m['attempt'] = attempt + 1
                    m['quiet_wait_s'] = waited
                    round_runs.append(m)
                    res['runs'].append(m)
                    if 'failed' not in m:
                        if s == 'switch':
                            bl.say(f'   on screen p50 {bl.fmt(m.get("screen_ms_p50"))} ms, p95 '
                                   f'{bl.fmt(m.get("screen_ms_p95"))} ms, others '
                                   f'{bl.fmt(m["others_mean"])} %'
                                   + (' LOADED' if m['loaded'] else ''))
                        else:
                            bl.say(f'   CPU {bl.fmt(m["cpu_mean"], 2)} %, frames/s '
                                   f'{bl.fmt(m.get("frames_per_s"), 2)}, others '
                                   f'{bl.fmt(m["others_mean"])} %'
                                   + (' LOADED' if m['loaded'] else ''))
                    save()
                loaded = [m for m in round_runs if m.get('loaded')]
                if not loaded or attempt == cfg.retries:
                    break
                # A round with a loaded run is run again, whole, to keep A and B side by side;
                # the loaded attempt stays in results.json, marked, and out of the medians.
                for m in round_runs:
                    m['discarded'] = 'the round had a run on a loaded machine'
                bl.say(f'compare: {s}: round {rnd} again: {len(loaded)} run(s) LOADED')
                save()
    results['load_after'] = bl.loadavg()
    results['finished'] = time.strftime('%Y-%m-%d %H:%M:%S')
    save()

    lines = [f'veil compare: {", ".join(cfg.scenarios)}; {cfg.pairs} rounds; outputs '
             f'{cfg.size[0]}x{cfg.size[1]}; {cfg.duration:g} s of samples after '
             f'{cfg.warmup:g} s ({results["started"]} to {results["finished"]})']
    lines += results['build'] + results['machine']
    lines.append(f'Load average before: {results["load_before"]}; after: '
                 f'{results["load_after"]}')
    if cfg.env:
        lines.append('Environment: ' + ' '.join(f'{k}={v}' for k, v in cfg.env.items()))
    for s in cfg.scenarios:
        res = results['scenarios'][s]
        ok = {**res, 'runs': [m for m in res['runs']
                              if 'failed' not in m and 'discarded' not in m]}
        lines += report_scenario(s, ok, cfg)
        for m in res['runs']:
            if 'failed' in m:
                lines.append(f'round {m["round"]} {m["system"]} FAILED: {m["failed"]}')
            elif 'discarded' in m:
                lines.append(f'round {m["round"]} {m["system"]} attempt {m["attempt"]} '
                             f'discarded ({m["discarded"]}): CPU {bl.fmt(m.get("cpu_mean"), 2)}'
                             f', others {bl.fmt(m.get("others_mean"))} %'
                             + (' LOADED' if m.get('loaded') else ''))
    lines += targets(results, cfg)
    return bl.side_by_side_end('compare', cfg, lines, results)


if __name__ == '__main__':
    sys.exit(main())
