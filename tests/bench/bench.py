#!/usr/bin/env python3
"""
bench.py FILE: what veil-tinywl costs while veil shows FILE.

    tools/devroot python3 tests/bench/bench.py build-bench/bench/clips/h264-1080p30.mp4

Starts veil-tinywl headless (pixman renderer; --outputs N outputs of --size, 1 x 1920x1080 by
default), sets `output * veil FILE MODE`, waits until every output shows it, warms up
(--warmup, 5 s), then samples once per --interval (1 s) for --duration (60 s):

  CPU of the compositor process (every thread, user and system apart, /proc/PID/stat), the
  busiest threads by name, VmRSS and RssAnon, threads, descriptors, wake-ups of the main thread
  (voluntary context switches, /proc/PID/task/PID/status; involuntary ones apart), and from
  veil's status (get_outputs, one query a sample on one IPC connection; --no-status: only
  before and after the samples): frames put on the outputs, frames decoded, dropped, loops.

Writes <out>/samples.csv, <out>/report.txt (also printed) and the compositor's log; <out> is
build-bench/bench/<date>-<file>/ unless --out. The report names the clip (ffprobe), the decoder
(veil's status), the build, the CPU, the load average before and after, and what other programs
used meanwhile: a run on a loaded machine is flagged LOADED in the report and the exit status
is 3 (--allow-loaded: 0). Before the measured run, a short run with wlroots' debug log (-d)
finds out whether the output was scanned out directly or composited (--no-probe skips it;
--no-scanout sets WLR_SCENE_DISABLE_DIRECT_SCANOUT=1 so that the renderer composites every
frame).

bench.py --decode-side FILE...: veil's decode side on the importing renderer (veil-tinywl
--renderer import: frames go to the renderer as dmabufs) against the floor, the same decode to
fakesink, interleaved A C / C A for --rounds rounds (3) of --duration each; the CPU of every
thread but the compositor's main one (where that renderer converts on the CPU what a GPU would),
the dmabufs held (frames in flight) and their memory. See decodeside.py.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import decodeside


def parse_size(text):
    w, _, h = text.lower().partition('x')
    return int(w), int(h)


def probe_path(binary, outdir, n_outputs, size, env, command_words, path, seconds=3.0):
    """A short run with -d: what wlroots said about direct scan-out."""
    probe_dir = os.path.join(outdir, 'path-probe')
    os.makedirs(probe_dir, exist_ok=True)
    comp = bl.Compositor('veil', binary, probe_dir, n_outputs, size, env=env, debug=True,
                         name='veil-tinywl-debug')
    try:
        comp.start()
        comp.ipc.must(command_words)
        bl.wait_veil_shown(comp, path=path)
        time.sleep(seconds)
        # What was logged while the wallpaper was up (not what the teardown logs).
        return bl.scanout_probe(comp.log_path)
    finally:
        comp.stop()


def run(args):
    if args.decode_side:
        args.size = parse_size(args.size)
        return decodeside.run(args)
    if len(args.file) != 1:
        raise bl.BenchError('one FILE, unless --decode-side')
    args.file = args.file[0]
    bl.need('ffprobe', 'gst-launch-1.0')
    build = os.path.abspath(args.build)
    binary = os.path.abspath(args.compositor) if args.compositor else bl.compositor_path(build)
    path = os.path.abspath(args.file)
    if not os.path.isfile(path):
        raise bl.BenchError(f'{path} does not exist (tests/bench/clips.py makes the clips)')
    size = parse_size(args.size)
    name = os.path.basename(path)
    out = os.path.abspath(args.out or os.path.join(build, 'bench',
                                                   f'{bl.stamp()}-{name}'))
    os.makedirs(out, exist_ok=True)
    env = {}
    for kv in args.env:
        k, _, v = kv.partition('=')
        env[k] = v
    if args.no_scanout:
        env['WLR_SCENE_DISABLE_DIRECT_SCANOUT'] = '1'
    cmd = f'output * veil {bl.quote(path)} {args.mode}'

    scanout = None
    if not args.no_probe:
        bl.say('bench: probing the render path (a short run with -d)')
        scanout = probe_path(binary, out, args.outputs, size, env, cmd, path)

    if args.quiet_wait > 0:
        waited, busy = bl.wait_quiet(args.quiet_wait)
        if waited > 3.5:
            bl.say(f'bench: waited {waited:.0f} s for a quiet machine (others {busy:.0f} %)')
    load_before = bl.loadavg()
    comp = bl.Compositor('veil', binary, out, args.outputs, size, env=env,
                         name='veil-tinywl')
    lines = []
    try:
        comp.start()
        group = bl.Group('comp', lambda: [comp.pid], main=comp.pid)
        ready = group.sample(None, record=False)
        smaps_before = bl.smaps(comp.pid)
        t0 = time.monotonic()
        comp.ipc.must(cmd)
        t_cmd = time.monotonic() - t0
        status = bl.wait_veil_shown(comp, path=path)
        t_shown = time.monotonic() - t0
        bl.say(f'bench: {name} shown on {args.outputs} x {size[0]}x{size[1]} after '
               f'{t_shown * 1000:.0f} ms; warming up {args.warmup:g} s')
        time.sleep(args.warmup)
        counters = bl.VeilCounters(comp)
        start = counters.prev = counters.read()
        sampler = bl.Sampler([group], args.interval,
                             extra=None if args.no_status else counters, alive=comp.require_alive)
        progress = max(1, int(10 / args.interval))

        def on_row(r):
            if len(sampler.rows) % progress == 0:
                bl.say(f'  t={r["t_s"]:5.0f} s  cpu {r["comp_cpu_pct"]:5.1f} %  '
                       f'frames/s {bl.fmt(r.get("frames_per_s"))}  '
                       f'others {r["others_pct"]:.0f} %')
        rows = sampler.run(args.duration, on_row)
        smaps_after = bl.smaps(comp.pid)
        last = counters.read()
        status = counters.last_status
        load_after = bl.loadavg()
    finally:
        comp.stop()
    exit_status = getattr(comp, 'exit_status', None)

    # samples.csv: the group's columns without their prefix.
    plain = []
    for r in rows:
        plain.append({(k[5:] if k.startswith('comp_') else k): v for k, v in r.items()})
    bl.write_csv(os.path.join(out, 'samples.csv'), plain,
                 ['t_s', 'cpu_pct', 'user_pct', 'sys_pct', 'ticks', 'rss_kib', 'rss_anon_kib',
                  'threads', 'fds', 'wakeups_per_s', 'nvcsw_per_s', 'frames_per_s',
                  'decoded_per_s', 'dropped', 'loops', 'veil_state', 'others_pct',
                  'harness_pct', 'machine_busy_pct', 'load1'])

    s = bl.summarize(rows, 'comp', sampler.seconds)
    flagged, others_mean, others_peak = bl.loaded(rows)
    first = next(iter(status.values())) if status else {}
    src = first.get('source') or {}
    kind = first.get('kind')
    # Totals over the window, from veil's counters read just before and just after it.
    fps = (last[0] - start[0]) / sampler.seconds
    dec = (last[1] - start[1]) / sampler.seconds
    dropped = last[2] - start[2]
    loops = [start[3], last[3]]
    rate = bl.clip_rate(path) if kind == 'video' else None

    lines.append(f'veil bench: {name} on {args.outputs} x {size[0]}x{size[1]}, mode '
                 f'{args.mode}, {s["seconds"]:.0f} s of samples every {args.interval:g} s '
                 f'after {args.warmup:g} s of warm-up ({time.strftime("%Y-%m-%d %H:%M")})')
    lines.append('Clip: ' + bl.clip_line(path))
    if kind == 'video':
        lines.append(f'Decoder: {src.get("decoder")} (hardware: {src.get("hardware")}), '
                     f'frames handed over as {src.get("format")}')
    else:
        lines.append(f'Decoder: {src.get("decoder")} ({kind}), kept at '
                     f'{(first.get("source_size") or {}).get("width")}x'
                     f'{(first.get("source_size") or {}).get("height")}')
    if args.no_scanout:
        path_text = 'composited (WLR_SCENE_DISABLE_DIRECT_SCANOUT=1)'
    else:
        path_text = {'enabled': 'direct scan-out of veil\'s buffer (wlroots: "Direct scan-out '
                                'enabled" in the -d probe run)',
                     'disabled': 'composited by the pixman renderer (wlroots: "Direct '
                                 'scan-out disabled" in the -d probe run)',
                     None: 'not probed' if args.no_probe else
                           'composited: the -d probe run never logged direct scan-out'}[
                         scanout]
    lines.append(f'Path: {path_text}')
    lines += bl.build_lines(build)
    lines += bl.machine_lines()
    if env:
        lines.append('Environment: ' + ' '.join(f'{k}={v}' for k, v in env.items()))
    lines.append(f'Load average before: {" ".join(f"{x:.2f}" for x in load_before)}; after: '
                 f'{" ".join(f"{x:.2f}" for x in load_after)}')
    lines.append(f'Other programs during the samples: {others_mean:.1f} % of a core on '
                 f'average, {others_peak:.0f} % at most -> '
                 + ('LOADED (over ' f'{bl.LOADED_MEAN * 100:.0f} % on average or '
                    f'{bl.LOADED_PEAK * 100:.0f} % in one interval): do not use these '
                    'numbers as a clean run' if flagged else 'quiet enough'))
    lines.append(f'Command: returned after {t_cmd * 1000:.0f} ms, shown after '
                 f'{t_shown * 1000:.0f} ms')
    lines.append(f'CPU (% of one core, whole process): mean {bl.fmt(s["cpu_mean"], 2)}, '
                 f'median {bl.fmt(s["cpu_median"], 1)}, p10 to p90 {bl.fmt(s["cpu_p10"])} to '
                 f'{bl.fmt(s["cpu_p90"])}; user {bl.fmt(s["user_mean"], 2)}, system '
                 f'{bl.fmt(s["sys_mean"], 2)}; {s["ticks"]} ticks of 1/{bl.CLK_TCK} s in '
                 f'{s["seconds"]:.0f} s')
    top = group.top_threads(s['seconds'])
    lines.append('Busiest threads: ' + (', '.join(f'{n} {p:.1f} %' for n, p in top)
                                          if top else 'none used a tick'))
    per_frame = (s['wakeups_mean'] / fps) if fps else None
    lines.append(f'Main thread: {bl.fmt(s.get("wakeups_mean"), 1)} wake-ups per s (median '
                 f'{bl.fmt(s.get("wakeups_median"), 1)}; '
                 + ('no status query while sampling' if args.no_status else
                    f'the status query is {1 / args.interval:g} a second') + '), '
                 + f'{bl.fmt(s.get("nvcsw_mean"), 2)} involuntary switches per s'
                 + (f'; {per_frame:.2f} wake-ups per frame shown' if per_frame else ''))
    lines.append(f'RSS: {bl.fmt(bl.mib(ready["rss_kib"]))} MiB before the wallpaper, '
                 f'{bl.fmt(bl.mib(s["rss_first"]))} at the first sample, '
                 f'{bl.fmt(bl.mib(s["rss_last"]))} at the last (min '
                 f'{bl.fmt(bl.mib(s["rss_min"]))}, max {bl.fmt(bl.mib(s["rss_max"]))}); growth '
                 f'over the wallpaper-less compositor '
                 f'{bl.fmt(bl.mib(s["rss_median"] - ready["rss_kib"]))} MiB (median)')
    lines.append(f'RssAnon (heap): {bl.fmt(bl.mib(ready["rss_anon_kib"]))} MiB before, '
                 f'{bl.fmt(bl.mib(s["anon_first"]))} first, {bl.fmt(bl.mib(s["anon_last"]))} '
                 f'last')
    lines += bl.smaps_lines(smaps_before, smaps_after)
    lines.append(f'Threads: {bl.range_text(s["threads_min"], s["threads_max"])} '
                 f'({ready["threads"]} before); descriptors: '
                 f'{bl.range_text(s["fds_min"], s["fds_max"])} ({ready["fds"]} before)')
    if kind == 'video':
        lines.append(f'Frames put on the outputs: {bl.fmt(fps, 2)} per s (all outputs; clip '
                     f'{bl.fmt(rate, 3)} fps); decoded {bl.fmt(dec, 2)} per s; dropped '
                     f'{dropped}; loops {loops[0] if loops else "?"} to '
                     f'{loops[-1] if loops else "?"}')
        if rate:
            shown_frac = fps / (rate * args.outputs) if fps is not None else 0
            lines.append(f'Shown: {shown_frac * 100:.1f} % of the clip\'s frames')
    else:
        lines.append(f'Frames put on the outputs during the samples: '
                     f'{bl.fmt(fps * s["seconds"] if fps is not None else None, 0)}')
    lines.append(f'Compositor exit status: {exit_status}')
    report = '\n'.join(lines) + '\n'
    with open(os.path.join(out, 'report.txt'), 'w') as f:
        f.write(report)
    print(report, end='')
    print(f'bench: results in {out}')
    if flagged and not args.allow_loaded:
        return 3
    return 0 if exit_status == 0 else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__)
    p.add_argument('file', nargs='+')
    p.add_argument('--outputs', type=int, default=1)
    p.add_argument('--size', default='1920x1080', help='each output (default 1920x1080)')
    p.add_argument('--mode', default='fill')
    p.add_argument('--warmup', type=float, default=5.0)
    p.add_argument('--duration', type=float, default=60.0)
    p.add_argument('--interval', type=float, default=1.0)
    p.add_argument('--build', default=bl.default_build(), help='meson build dir (build-bench)')
    p.add_argument('--compositor', help='veil-tinywl to run (default: BUILD/examples/...)')
    p.add_argument('--out')
    p.add_argument('--env', action='append', default=[], metavar='K=V',
                   help='environment of the compositor (repeatable)')
    p.add_argument('--no-scanout', action='store_true',
                   help='WLR_SCENE_DISABLE_DIRECT_SCANOUT=1: composite every frame')
    p.add_argument('--no-probe', action='store_true', help='skip the -d run')
    p.add_argument('--no-status', action='store_true',
                   help='no status query while sampling (frames from before and after only)')
    p.add_argument('--quiet-wait', type=float, default=120.0,
                   help='wait up to this many s for a quiet machine first (0: do not)')
    p.add_argument('--allow-loaded', action='store_true',
                   help='exit 0 even when the run is flagged LOADED')
    p.add_argument('--decode-side', action='store_true',
                   help='veil\'s decode side on the importing renderer against the floor')
    p.add_argument('--rounds', type=int, default=3, help='--decode-side: rounds (3)')
    p.add_argument('--floor-priority', choices=('veil', 'normal'), default='veil',
                   help='--decode-side: the floor at the priority of veil\'s streaming threads '
                        '(nice +10, SCHED_BATCH; default) or at the normal one')
    args = p.parse_args()
    bl.exit_on_signals()
    try:
        return run(args)
    except bl.BenchError as e:
        print(f'bench: FAILED: {e}', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
