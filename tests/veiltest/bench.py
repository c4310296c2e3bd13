"""
veiltest.bench: what bench.py, compare.py and soak.py add to the package (its Compositor, Ipc
and /proc readers are veiltest's own).

- Processes under test: veil-tinywl and sway 1.12, both on wlroots' headless backend with the
  pixman renderer, each in a private XDG_RUNTIME_DIR; GStreamer clients (gst-launch-1.0).
- sway's IPC (the i3-ipc protocol that swaymsg speaks), on one connection kept open, so a
  status query costs the compositor one request and not a connection.
- Sampling from /proc only: CPU time of every thread of a group of processes (user and system
  apart, /proc/PID/stat), the busiest threads by name (/proc/PID/task/TID/stat), VmRSS and
  RssAnon, threads, descriptors, context switches of one process's main thread
  (/proc/PID/task/PID/status), and the machine's own busy time (/proc/stat) so that what other
  programs used during a run is known and a loaded run is flagged.
- Statistics (median, percentiles, the soaks' bounds test) and the report's machine facts.

Nothing here decides what is good: the scripts print numbers and the targets they were given.
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
import threading
import time

from . import Compositor as _Compositor, Failure, base_env, quote, stop_process  # noqa: F401
from . import wait_until  # noqa: F401
from .base import READY_TIMEOUT, say  # noqa: F401
from .ipc import GET_OUTPUTS, GET_TREE, GET_VERSION, RUN_COMMAND, Ipc  # noqa: F401
# The benches read /proc through these names (bl.proc_stat(), ...): veiltest.proc's.
from .proc import (CLK_TCK, NCPU, count_fds, descendants, loadavg, machine_ticks,  # noqa: F401
                   names_diff, ppid_of, proc_stat, proc_status, pss_by_kind, pss_kib, read_text,
                   self_ticks, smaps, smaps_lines, smaps_mappings, uptime_ticks)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# A run is flagged as loaded when programs other than the ones measured (and this harness)
# used more than this share of one core on average over the sampled window, or more than
# LOADED_PEAK of one core in any one interval.
LOADED_MEAN = 0.25
LOADED_PEAK = 1.0

# Something the run cannot go on without; its message says what.
BenchError = Failure


def need(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise BenchError(f'missing {", ".join(missing)} (run inside tools/devroot)')


# --- statistics ---

def percentile(values, q):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    if len(v) == 1:
        return v[0]
    pos = (len(v) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def median(values):
    return percentile(values, 50)


def mean(values):
    v = [x for x in values if x is not None]
    return sum(v) / len(v) if v else None


def slope(xs, ys):
    """Least-squares slope of ys over xs."""
    pts = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    n = len(pts)
    if n < 2:
        return 0.0
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def bounds_rise(xs, ys):
    """
    The soaks' test of a level that should not rise (the client daemon's method): over the
    window given, the lowest value of the last quarter against the lowest of the first quarter,
    and the highest against the highest; the smaller of the two rises, divided by the distance
    between the quarters' centres (in units of xs). Memory kept for good raises both bounds; a
    level that jumps about moves one, or the two apart (a high sample early and a low one late
    lower the one while they raise the other), and then the smaller is at most zero. Returns
    (rise per x, low rise, high rise).
    """
    pts = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    n = len(pts)
    if n < 8:
        return 0.0, 0, 0
    q = max(1, n // 4)
    first, last = pts[:q], pts[-q:]
    lo = min(y for _, y in last) - min(y for _, y in first)
    hi = max(y for _, y in last) - max(y for _, y in first)
    rise = min(lo, hi)
    span = mean([x for x, _ in last]) - mean([x for x, _ in first])
    return (rise / span if span > 0 else 0.0), lo, hi


def halves_rise(xs, ys):
    """
    bounds_rise() over each half of the window: (first half's rise, second half's). A count that
    leaks keeps rising, so it rises in both halves; a high-water mark (a thread pool that grew
    once to the most jobs it ever ran at once, and keeps its threads for reuse) steps up once,
    which one half at most can show.
    """
    pts = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    h = len(pts) // 2
    first = bounds_rise([x for x, _ in pts[:h]], [y for _, y in pts[:h]])[0]
    second = bounds_rise([x for x, _ in pts[h:]], [y for _, y in pts[h:]])[0]
    return first, second


def halves_pass(xs, ys, limit):
    """
    The soaks' rule for a level a leak keeps raising (heap, threads): it fails when both halves
    of the window rise past limit (halves_rise()). Returns (passed, first half's rise, second's).
    """
    first, second = halves_rise(xs, ys)
    return first <= limit or second <= limit, first, second


def fmt(v, digits=1, unit=''):
    if v is None:
        return 'n/a'
    if isinstance(v, int):
        return f'{v}{unit}'
    return f'{v:.{digits}f}{unit}'


# --- processes ---

class Runtime:
    """A private XDG_RUNTIME_DIR (0700), removed at the end."""

    def __init__(self, prefix='veil-bench'):
        self.dir = tempfile.mkdtemp(prefix=prefix + '.', dir='/tmp')
        os.chmod(self.dir, 0o700)

    def path(self, *p):
        return os.path.join(self.dir, *p)

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def Compositor(kind, binary, outdir, outputs=1, size=(1920, 1080), env=None, debug=False,
               name=None, sway_config_extra=(), args=(), backend='headless',
               parent_display=None):
    """
    The one veiltest.Compositor with a bench's arguments: veil-tinywl (kind 'veil') or sway
    (kind 'sway') with `outputs` outputs of `size`, its log in outdir. After start(): .pid,
    .ipc, .client_env (for clients and grim), .log_path, .output_names; .exit_status after
    stop(). args are more words of veil-tinywl's command line (--renderer import).
    """
    return _Compositor(None, outputs=outputs, name=name or kind, env=env, args=args,
                       binary=binary, outdir=outdir, kind=kind, size=size, debug=debug,
                       sway_config_extra=sway_config_extra, backend=backend,
                       parent_display=parent_display)


def wait_veil_shown(comp, outputs=None, path=None, timeout=READY_TIMEOUT):
    """Until every output shows path (state shown, frames > 0, no error); returns the status."""
    names = outputs or comp.output_names

    def pred():
        st = comp.veil_status()
        for n in names:
            v = st.get(n) or {}
            if v.get('error'):
                raise BenchError(f'{n}: veil reports an error: {v["error"]}')
            if v.get('state') != 'shown' or not v.get('frames'):
                return None
            if path is not None and v.get('file') != path:
                return None
        return st
    return wait_until(pred, f'the wallpaper on {", ".join(names)}', timeout=timeout,
                      alive=comp.require_alive)


class GstClient:
    """
    gst-launch-1.0 -v with a pipeline; remembers the decoders it plugged and, with an
    fpsdisplaysink, the frames its sink rendered and dropped (from last-message).
    """

    FPS_RE = re.compile(r'last-message = rendered: (\d+), dropped: (\d+)')
    DEC_RE = re.compile(r'/(?:GstDecodeBin|GstURIDecodeBin)[^/]*/([A-Za-z0-9_]+):')

    def __init__(self, pipeline, env, log_path, name='client', prefix=()):
        self.prefix = list(prefix)  # e.g. nice -n 10: what runs gst-launch-1.0
        self.pipeline = pipeline
        self.env = env
        self.log_path = log_path
        self.name = name
        self.rendered = 0
        self.dropped = 0
        self.decoders = set()
        self.proc = None
        self.lines = 0

    def start(self):
        argv = self.prefix + ['gst-launch-1.0', '-v'] + shlex.split(self.pipeline)
        self.log = open(self.log_path, 'w')
        self.log.write('$ ' + shlex.join(argv) + '\n')
        self.proc = subprocess.Popen(argv, env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     text=True, errors='replace')
        self.pid = self.proc.pid
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        return self

    def _read(self):
        for line in self.proc.stdout:
            self.lines += 1
            m = self.FPS_RE.search(line)
            if m:
                self.rendered, self.dropped = int(m.group(1)), int(m.group(2))
                continue  # one a second: not worth keeping in the log
            for d in self.DEC_RE.findall(line):
                if 'dec' in d.lower() and not d.startswith('Gst'):
                    self.decoders.add(d)
            self.log.write(line)

    def alive(self):
        if self.proc.poll() is not None:
            raise BenchError(f'{self.name} exited ({self.proc.returncode}); see '
                             f'{self.log_path}')

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)  # gst-launch stops the pipeline
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass
            stop_process(self.proc, timeout=5)
            self.thread.join(2)
            self.log.close()
            self.proc = None


def decoder_names(element_names):
    """'avdec_h264-0' -> 'avdec_h264'."""
    return sorted({re.sub(r'-\d+$', '', n) for n in element_names})


# --- sampling ---

class Group:
    """
    Processes measured together: pids() gives the current members (looked up again at every
    sample: swaybg may be started again). main is the pid whose main thread's context switches
    count as wake-ups.
    """

    def __init__(self, name, pids, main=None):
        self.name = name
        self.pids = pids
        self.main = main
        self.last = {}       # pid -> (starttime, utime, stime)
        self.threads = {}    # (pid, tid) -> (starttime, comm, ticks)
        self.by_thread = {}  # thread name -> ticks over the sampled window
        self.last_main = None

    def baseline(self):
        self.sample(None, record=False)

    def _cpu(self, pid, since):
        """
        (user, system) ticks of pid since the previous sample, with the children it reaped
        meanwhile: sway starts a swaybg per `output bg` and reaps the one it replaces, which a
        sample of the living members alone would miss. (A child seen alive in an earlier sample
        is counted again when reaped: at most what it used before that sample.)
        """
        try:
            comm, ut, st, nthr, start = proc_stat(pid, children=True)
        except (OSError, ValueError):
            return 0, 0, None
        prev = self.last.get(pid)
        if prev is not None and prev[0] == start:
            du, ds = ut - prev[1], st - prev[2]
        elif since is not None and start >= since:
            du, ds = ut, st  # started during the interval: all its time is in it
        else:
            du, ds = 0, 0    # first seen now: a baseline
        self.last[pid] = (start, ut, st)
        return du, ds, nthr

    def _threads(self, pid, since, record):
        """CPU by thread name since the previous sample; returns the names of pid's threads."""
        try:
            tids = os.listdir(f'/proc/{pid}/task')
        except OSError:
            return []
        names = []
        for tid in tids:
            try:
                comm, ut, st, _, start = proc_stat(pid, tid)
            except (OSError, ValueError):
                continue
            names.append(comm)
            key = (pid, int(tid))
            prev = self.threads.get(key)
            if prev is not None and prev[0] == start:
                d = ut + st - prev[2]
            elif since is not None and start >= since:
                d = ut + st
            else:
                d = 0
            self.threads[key] = (start, comm, ut + st)
            if record and d:
                self.by_thread[comm] = self.by_thread.get(comm, 0) + d
        return names

    def sample(self, since, record=True):
        """
        One sample: totals over the current members; CPU since the previous sample;
        thread_names, the names of the members' threads, sorted and joined by ';' (a CSV cell).
        """
        pids = [p for p in self.pids() if p is not None]
        row = {'user_ticks': 0, 'sys_ticks': 0, 'rss_kib': 0, 'rss_anon_kib': 0,
               'threads': 0, 'fds': 0, 'procs': 0}
        names = []
        for pid in pids:
            du, ds, nthr = self._cpu(pid, since)
            if nthr is None:
                continue
            row['user_ticks'] += du
            row['sys_ticks'] += ds
            try:
                st = proc_status(pid)
            except OSError:
                continue
            row['rss_kib'] += int(st.get('VmRSS', 0) or 0)
            row['rss_anon_kib'] += int(st.get('RssAnon', 0) or 0)
            row['threads'] += int(st.get('Threads', 0) or 0)
            row['fds'] += count_fds(pid)
            row['procs'] += 1
            names += self._threads(pid, since, record)
        row['thread_names'] = ';'.join(sorted(names))
        if self.main is not None:
            try:
                st = proc_status(self.main, self.main)
                cur = (int(st['voluntary_ctxt_switches']),
                       int(st['nonvoluntary_ctxt_switches']))
            except (OSError, KeyError, ValueError):
                cur = None
            if cur is not None and self.last_main is not None:
                row['main_vcsw'] = cur[0] - self.last_main[0]
                row['main_nvcsw'] = cur[1] - self.last_main[1]
            self.last_main = cur
        return row

    def top_threads(self, seconds, n=6):
        """[(name, % of a core)] of the busiest thread names over the window."""
        items = sorted(self.by_thread.items(), key=lambda kv: -kv[1])[:n]
        return [(name, 100.0 * ticks / CLK_TCK / seconds) for name, ticks in items]


class Sampler:
    """
    Samples groups once per interval. extra() is called at each sample and its dict merged
    into the row (veil's status, a client's frame counts). Each row has t_s, per group
    <g>_cpu_pct, <g>_user_pct, <g>_sys_pct, <g>_rss_kib, <g>_rss_anon_kib, <g>_threads,
    <g>_fds, <g>_thread_names, and <g>_wakeups_per_s / <g>_nvcsw_per_s when the group has a main
    thread, plus others_pct (what other programs used, % of one core), harness_pct and load1.
    """

    def __init__(self, groups, interval=1.0, extra=None, alive=None):
        self.groups = groups
        self.interval = interval
        self.extra = extra
        self.alive = alive
        self.rows = []

    def run(self, duration, on_row=None):
        for g in self.groups:
            g.baseline()
        self.t0 = time.monotonic()
        prev_t = self.t0
        prev_up = uptime_ticks()
        prev_busy, prev_total = machine_ticks()
        prev_self = self_ticks()
        n = int(round(duration / self.interval))
        for i in range(1, n + 1):
            target = self.t0 + i * self.interval
            while True:
                now = time.monotonic()
                if now >= target:
                    break
                time.sleep(min(0.25, target - now))
            if self.alive is not None:
                self.alive()
            now = time.monotonic()
            dt = now - prev_t
            row = {'t_s': round(now - self.t0, 3)}
            ours = 0
            for g in self.groups:
                r = g.sample(prev_up)
                cpu = r['user_ticks'] + r['sys_ticks']
                ours += cpu
                p = g.name + '_'
                row[p + 'cpu_pct'] = 100.0 * cpu / CLK_TCK / dt
                row[p + 'user_pct'] = 100.0 * r['user_ticks'] / CLK_TCK / dt
                row[p + 'sys_pct'] = 100.0 * r['sys_ticks'] / CLK_TCK / dt
                row[p + 'ticks'] = cpu
                for k in ('rss_kib', 'rss_anon_kib', 'threads', 'fds', 'procs', 'thread_names'):
                    row[p + k] = r[k]
                if 'main_vcsw' in r:
                    row[p + 'wakeups_per_s'] = r['main_vcsw'] / dt
                    row[p + 'nvcsw_per_s'] = r['main_nvcsw'] / dt
            busy, total = machine_ticks()
            me = self_ticks()
            harness = me - prev_self
            row['harness_pct'] = 100.0 * harness / CLK_TCK / dt
            others = (busy - prev_busy) - ours - harness
            row['others_pct'] = max(0.0, 100.0 * others / CLK_TCK / dt)
            row['machine_busy_pct'] = 100.0 * (busy - prev_busy) / CLK_TCK / dt
            row['load1'] = loadavg()[0]
            if self.extra is not None:
                row.update(self.extra(dt))
            self.rows.append(row)
            if on_row is not None:
                on_row(row)
            prev_t, prev_up = now, uptime_ticks()
            prev_busy, prev_total, prev_self = busy, total, me
        self.seconds = time.monotonic() - self.t0
        return self.rows


def loaded(rows):
    """(flagged, mean others %, peak others %) of a run's rows."""
    others = [r['others_pct'] for r in rows]
    m, p = mean(others) or 0.0, max(others) if others else 0.0
    return (m > 100 * LOADED_MEAN or p > 100 * LOADED_PEAK), m, p


def write_csv(path, rows, columns=None):
    if not rows:
        open(path, 'w').close()
        return
    if columns is None:
        columns = []
        for r in rows:
            for k in r:
                if k not in columns:
                    columns.append(k)
    with open(path, 'w') as f:
        f.write(','.join(columns) + '\n')
        for r in rows:
            vals = []
            for c in columns:
                v = r.get(c)
                if v is None:
                    vals.append('')
                elif isinstance(v, float):
                    vals.append(f'{v:.3f}')
                else:
                    vals.append(str(v).replace(',', ';'))
            f.write(','.join(vals) + '\n')


def read_csv(path):
    rows = []
    with open(path) as f:
        head = f.readline().strip().split(',')
        for line in f:
            vals = line.rstrip('\n').split(',')
            row = {}
            for k, v in zip(head, vals):
                if v == '':
                    row[k] = None
                    continue
                try:
                    row[k] = int(v)
                except ValueError:
                    try:
                        row[k] = float(v)
                    except ValueError:
                        row[k] = v
            rows.append(row)
    return rows


# --- veil's status ---

class VeilCounters:
    """
    Frames shown (the outputs' `frames`: frames put on the output's nodes, summed over the
    outputs), and per source (shared by outputs: counted once, by pipeline name) the decoded
    frames, the frames dropped and the loops, as deltas per sample.
    """

    def __init__(self, comp, outputs=None):
        self.comp = comp
        self.outputs = outputs or comp.output_names
        self.prev = None
        self.last_status = None

    def read(self):
        st = self.comp.veil_status()
        self.last_status = st
        shown = sum(int((st.get(n) or {}).get('frames') or 0) for n in self.outputs)
        sources = {}
        states = []
        for n in self.outputs:
            v = st.get(n) or {}
            states.append(v.get('state') or 'none')
            s = v.get('source') or {}
            key = s.get('pipeline') or v.get('file')
            if key and 'frames' in s:
                sources[key] = (int(s.get('frames') or 0), int(s.get('dropped') or 0),
                                int(s.get('loops') or 0))
        dec = sum(x[0] for x in sources.values())
        drop = sum(x[1] for x in sources.values())
        loops = sum(x[2] for x in sources.values())
        return shown, dec, drop, loops, '/'.join(states)

    def __call__(self, dt):
        cur = self.read()
        row = {'veil_state': cur[4], 'loops': cur[3]}
        if self.prev is not None:
            row['frames_per_s'] = (cur[0] - self.prev[0]) / dt
            row['decoded_per_s'] = (cur[1] - self.prev[1]) / dt
            row['dropped'] = cur[2] - self.prev[2]
        self.prev = cur
        return row


# --- the machine and the build ---

def cpu_model():
    for line in read_text('/proc/cpuinfo').splitlines():
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return 'unknown'


def clip_seconds(path):
    out = subprocess.run(['ffprobe', '-v', 'error', '-show_entries', 'format=duration', '-of',
                          'default=nw=1:nk=1', path], capture_output=True, text=True)
    try:
        return float(out.stdout.strip())
    except ValueError:
        raise BenchError(f'ffprobe cannot tell how long {path} is')


def long_copy(src, seconds, outdir):
    """The clip repeated without re-encoding, at least seconds long: nobody loops in a run."""
    reps = int(seconds // max(1.0, clip_seconds(src))) + 1
    base, ext = os.path.splitext(os.path.basename(src))
    dst = os.path.join(outdir, f'{base}-x{reps}{ext}')
    if not os.path.exists(dst):
        part = dst + '.part' + ext
        subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y', '-stream_loop',
                        str(reps - 1), '-i', src, '-c', 'copy', part], check=True)
        os.replace(part, dst)
    return dst


def run_text(argv, cwd=None):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=cwd)
        return r.stdout.strip() if r.returncode == 0 else ''
    except (OSError, subprocess.TimeoutExpired):
        return ''


def build_info(build_dir):
    """The veil build: version, commit, dirty files, buildtype, wlroots."""
    info = {}
    git = ['git', '-c', 'safe.directory=*', '-C', ROOT]
    info['commit'] = run_text(git + ['rev-parse', '--short', 'HEAD']) or 'unknown'
    try:
        dirty = subprocess.run(git + ['status', '--porcelain', '--untracked-files=no'],
                               capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        dirty = ''
    files = [line[3:] for line in dirty.splitlines() if len(line) > 3]
    info['dirty'] = ', '.join(files)
    opts = os.path.join(build_dir, 'meson-info', 'intro-buildoptions.json')
    try:
        for o in json.load(open(opts)):
            if o['name'] in ('buildtype', 'wlroots', 'b_sanitize', 'optimization'):
                info[o['name']] = o['value']
    except (OSError, ValueError):
        pass
    proj = os.path.join(build_dir, 'meson-info', 'intro-projectinfo.json')
    try:
        info['version'] = json.load(open(proj)).get('version')
    except (OSError, ValueError):
        pass
    binary = os.path.join(build_dir, 'examples', 'veil-tinywl')
    try:
        info['binary_mtime'] = time.strftime('%Y-%m-%d %H:%M:%S',
                                             time.localtime(os.path.getmtime(binary)))
    except OSError:
        pass
    return info


def mem_total_mib():
    for line in read_text('/proc/meminfo').splitlines():
        if line.startswith('MemTotal:'):
            return int(line.split()[1]) // 1024
    return 0


def machine_lines():
    gst = run_text(['gst-launch-1.0', '--version']).splitlines()
    return [
        f'CPU: {cpu_model()}, {NCPU} CPUs online, {mem_total_mib()} MiB memory',
        f'Kernel: {os.uname().release}',
        f'GStreamer: {gst[1] if len(gst) > 1 else "unknown"}; '
        f'{run_text(["sway", "--version"]) or "sway unknown"}; '
        f'{(run_text(["ffmpeg", "-version"]).splitlines() or ["ffmpeg unknown"])[0]}',
    ]


def build_lines(build_dir):
    b = build_info(build_dir)
    dirty = (f' (the working tree at run time also has uncommitted changes in '
             f'{b["dirty"]})' if b.get('dirty') else '')
    return [f'veil {b.get("version", "?")}, commit {b["commit"]}{dirty}',
            f'build: {build_dir} (buildtype {b.get("buildtype", "?")}, wlroots option '
            f'{b.get("wlroots", "?")}, veil-tinywl built {b.get("binary_mtime", "?")})']


def clip_line(path):
    if path.lower().endswith('.png'):
        r = run_text(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                      'stream=width,height,pix_fmt', '-of', 'default=nw=1', path])
        i = dict(line.split('=', 1) for line in r.splitlines() if '=' in line)
        return (f'{os.path.basename(path)}: PNG {i.get("width")}x{i.get("height")} '
                f'{i.get("pix_fmt")}, {os.path.getsize(path)} bytes')
    r = run_text(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                  'stream=codec_name,profile,width,height,avg_frame_rate,pix_fmt,nb_frames:'
                  'format=duration,bit_rate', '-of', 'default=nw=1', path])
    i = dict(line.split('=', 1) for line in r.splitlines() if '=' in line)
    try:
        num, den = i.get('avg_frame_rate', '0/1').split('/')
        rate = f'{int(num) / int(den):.4g}'
    except (ValueError, ZeroDivisionError):
        rate = '?'
    try:
        br = f'{int(i.get("bit_rate")) / 1e6:.1f} Mbit/s'
    except (TypeError, ValueError):
        br = '? Mbit/s'
    return (f'{os.path.basename(path)}: {i.get("codec_name")} {i.get("profile")} '
            f'{i.get("width")}x{i.get("height")} {i.get("pix_fmt")}, {rate} fps, '
            f'{float(i.get("duration", 0)):.2f} s, {br}')


def clip_rate(path):
    r = run_text(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                  'stream=avg_frame_rate', '-of', 'csv=p=0', path])
    try:
        num, den = r.split('/')
        return int(num) / int(den)
    except (ValueError, ZeroDivisionError):
        return None


def stamp():
    return time.strftime('%Y%m%d-%H%M%S')


def default_build():
    return os.path.join(ROOT, 'build-bench')


def compositor_path(build_dir):
    p = os.path.join(build_dir, 'examples', 'veil-tinywl')
    if not os.access(p, os.X_OK):
        raise BenchError(f'{p} is not built (tools/devroot meson compile -C {build_dir})')
    return p


def scanout_probe(log_path):
    """What a debug log says about direct scan-out: 'enabled', 'disabled', or None."""
    state = None
    try:
        for line in open(log_path, errors='replace'):
            m = re.search(r'Direct scan-out (enabled|disabled)', line)
            if m:
                state = m.group(1)
    except OSError:
        pass
    return state


def column(rows, key):
    return [r.get(key) for r in rows if r.get(key) is not None]


def summarize(rows, g, seconds):
    """The numbers of one group over a run's rows (g is the group's column prefix)."""
    p = g + '_'
    cpu = column(rows, p + 'cpu_pct')
    s = {
        'cpu_mean': mean(cpu), 'cpu_median': median(cpu),
        'cpu_p10': percentile(cpu, 10), 'cpu_p90': percentile(cpu, 90),
        'user_mean': mean(column(rows, p + 'user_pct')),
        'sys_mean': mean(column(rows, p + 'sys_pct')),
        'ticks': sum(column(rows, p + 'ticks')),
        'rss_first': (column(rows, p + 'rss_kib') or [None])[0],
        'rss_last': (column(rows, p + 'rss_kib') or [None])[-1],
        'rss_median': median(column(rows, p + 'rss_kib')),
        'rss_min': min(column(rows, p + 'rss_kib'), default=None),
        'rss_max': max(column(rows, p + 'rss_kib'), default=None),
        'anon_first': (column(rows, p + 'rss_anon_kib') or [None])[0],
        'anon_last': (column(rows, p + 'rss_anon_kib') or [None])[-1],
        'anon_median': median(column(rows, p + 'rss_anon_kib')),
        'threads_min': min(column(rows, p + 'threads'), default=None),
        'threads_max': max(column(rows, p + 'threads'), default=None),
        'fds_min': min(column(rows, p + 'fds'), default=None),
        'fds_max': max(column(rows, p + 'fds'), default=None),
        'seconds': seconds,
    }
    wk = column(rows, p + 'wakeups_per_s')
    if wk:
        s['wakeups_median'] = median(wk)
        s['wakeups_mean'] = mean(wk)
        s['nvcsw_mean'] = mean(column(rows, p + 'nvcsw_per_s'))
    return s


def mib(kib):
    return None if kib is None else kib / 1024.0


def range_text(lo, hi):
    if lo is None:
        return 'n/a'
    return f'{lo}' if lo == hi else f'{lo} to {hi}'


def wait_quiet(max_wait=120.0, window=3.0, threshold=LOADED_MEAN):
    """
    Waits (at most max_wait s) until the machine's busy time over `window` s, less this
    harness's own, is under `threshold` of one core. Returns (seconds waited, last busy share in
    % of a core).
    """
    t0 = time.monotonic()
    while True:
        b0, _ = machine_ticks()
        s0 = self_ticks()
        time.sleep(window)
        b1, _ = machine_ticks()
        busy = 100.0 * ((b1 - b0) - (self_ticks() - s0)) / CLK_TCK / window
        waited = time.monotonic() - t0
        if busy < 100 * threshold or waited >= max_wait:
            return waited, busy


def tool_parser(doc, scenarios):
    """A side-by-side tool's argument parser: its docstring as help, --scenarios (all)."""
    p = argparse.ArgumentParser(description=doc.split('\n\n')[0].strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=doc)
    p.add_argument('--scenarios', default=','.join(scenarios))
    return p


def run_tool(name, fn, cfg):
    """A tool's main(): fn(cfg) with exit_on_signals(); a BenchError ends it in one line."""
    exit_on_signals()
    try:
        return fn(cfg)
    except BenchError as e:
        print(f'{name}: FAILED: {e}', file=sys.stderr)
        return 1


def side_by_side_setup(cfg, known):
    """
    What compare.py and stall.py check first: the programs both systems need, the build and its
    veil-tinywl (cfg.build, cfg.binary), and the scenarios asked for (cfg.scenarios, a list).
    """
    need('sway', 'swaybg', 'grim', 'gst-launch-1.0', 'ffmpeg', 'ffprobe')
    cfg.build = os.path.abspath(cfg.build)
    cfg.binary = (os.path.abspath(cfg.compositor) if cfg.compositor
                  else compositor_path(cfg.build))
    cfg.scenarios = [s.strip() for s in cfg.scenarios.split(',') if s.strip()]
    for s in cfg.scenarios:
        if s not in known:
            raise BenchError(f'unknown scenario {s} (known: {", ".join(known)})')


def side_by_side_end(name, cfg, lines, results):
    """Writes and prints the report; the exit status: 1 when a run failed."""
    report = '\n'.join(lines) + '\n'
    with open(os.path.join(cfg.out, 'report.txt'), 'w') as f:
        f.write(report)
    print(report, end='')
    print(f'{name}: results in {cfg.out}')
    failed = any('failed' in m for r in results['scenarios'].values() for m in r['runs'])
    return 1 if failed else 0


def run_start(tool, scenario, rnd, system, name, quiet_wait):
    """Waits for a quiet machine (wait_quiet) and says which run starts; returns the wait (s)."""
    waited, busy = wait_quiet(quiet_wait)
    say(f'{tool}: {scenario}: round {rnd}: {system} ({name})'
        + (f' after waiting {waited:.0f} s for the machine (others {busy:.0f} %)'
           if waited > 3.5 else ''))
    return waited


def exit_on_signals():
    """SIGTERM and SIGHUP end the run like Ctrl-C: the compositors and clients are stopped."""
    def handler(signum, frame):
        raise SystemExit(128 + signum)
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, handler)
    # A job started in the background of a shell ignores SIGINT; take it back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
