#!/usr/bin/env python3
"""
video-isolate.py: a video played in the compositor's process against the same video played in
veil-decoder (VEIL_DECODER_VIDEO=process), interleaved in one run.

    tools/devroot \\
        python3 tests/bench/video-isolate.py [--clips h264-1080p30.mp4,h264-1080p60.mp4]
        [--rounds 3] [--duration 20] [--renderer pixman|import]

For each clip and round, both modes (A in process, B in veil-decoder; A B in odd rounds, B A in
even ones) run veil-tinywl headless (pixman, one 1920x1080 output) with `output * veil CLIP
fill`, wait for the first frame (the time from the command's reply to the status's first
frame is recorded), warm up 3 s, then sample once a second for --duration. With --renderer
import (a build with the tests) the renderer is the importing test renderer: both modes then
hand it the decoder's YUV as dmabufs (veil-decoder decodes into the compositor's), and it
converts each frame on the CPU in the compositor's thread, as a GPU would in its shaders: the
compositor's figure is then mostly that conversion, the same in both modes.

  CPU of the compositor and everything it started (veil-decoder's processes), and of each
  apart; wake-ups of the compositor's main thread (voluntary context switches) per frame
  shown; frames shown a second; memory: the proportional set size (Pss, /proc/PID/smaps_rollup)
  of the compositor and of its helpers, at the end (shared pages, the frames both map, are
  split between them and counted once); wake-ups (voluntary context switches) of each thread of
  the compositor and of the helpers over the sampled time, per frame shown, summed by thread
  name (a second table: which threads wake, and how often a frame).

Prints a table of medians and writes <out>/results.json (<out>: build-bench/bench/
video-isolate-<date> unless --out). The machine's load (others_pct: what other programs used)
is in every row; a loaded run says so.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import clips

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODES = {'in process': {'VEIL_DECODER_VIDEO': 'inprocess'},
         'veil-decoder': {'VEIL_DECODER_VIDEO': 'process'}}


def first_frame(comp, path, timeout=30.0):
    """Seconds from the command's reply until the status shows a frame of path."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = comp.veil_status().get(comp.output_names[0]) or {}
        if v.get('file') == path and (v.get('source') or {}).get('frames'):
            return time.monotonic() - t0
        time.sleep(0.005)
    raise bl.BenchError(f'{path}: no first frame in {timeout} s')


def thread_switches(comp):
    """{(role, pid, tid): (thread name, voluntary context switches)}: every thread of the
    compositor (role 'compositor') and of its descendants ('helper')."""
    out = {}
    for role, pids in (('compositor', [comp.pid]), ('helper', bl.descendants(comp.pid))):
        for pid in pids:
            try:
                tids = os.listdir(f'/proc/{pid}/task')
            except OSError:
                continue
            for tid in tids:
                try:
                    st = bl.proc_status(pid, tid)
                    out[(role, pid, tid)] = (st['Name'], int(st['voluntary_ctxt_switches']))
                except (OSError, KeyError, ValueError):
                    continue
    return out


def wakeups_by_thread(before, after, frames):
    """Wake-ups a frame, summed by (role, thread name), over the threads alive at both ends."""
    sums = {}
    for key, (name, n) in after.items():
        if key in before and frames:
            label = f'{key[0]}: {name}'
            sums[label] = sums.get(label, 0) + (n - before[key][1]) / frames
    return sums


def run_one(args, outdir, clip, mode):
    env = dict(MODES[mode], VEIL_DECODER='process')
    name = f'{os.path.basename(clip)}-{mode.replace(" ", "-")}'
    extra = ['--renderer', args.renderer] if args.renderer != 'pixman' else []
    comp = bl.Compositor('veil', args.compositor, outdir, 1, (1920, 1080), env=env, name=name,
                         args=extra)
    with comp:
        comp.ipc.must(f'output * veil {bl.quote(clip)} fill')
        ttf = first_frame(comp, clip)
        time.sleep(args.warmup)
        whole = bl.Group('tree', comp.tree_pids, main=comp.pid)
        own = bl.Group('compositor', lambda: [comp.pid])
        helpers = bl.Group('helpers', lambda: bl.descendants(comp.pid))
        counters = bl.VeilCounters(comp)
        sampler = bl.Sampler([whole, own, helpers], extra=counters, alive=comp.require_alive)
        switches = thread_switches(comp)
        rows = sampler.run(args.duration)
        switches_after = thread_switches(comp)
        pss_comp = bl.pss_kib(comp.pid)
        pss_help = sum(bl.pss_kib(p) for p in bl.descendants(comp.pid))
        src = (comp.veil_status().get(comp.output_names[0]) or {}).get('source') or {}
    rows = rows[1:]  # the first sample has no frame rate
    fps = bl.median([r.get('frames_per_s', 0) for r in rows])
    wakes = bl.median([r.get('tree_wakeups_per_s', 0) for r in rows])
    shown = sum(r.get('frames_per_s', 0) for r in rows) * args.duration / max(1, len(rows))
    return {
        'threads': wakeups_by_thread(switches, switches_after, shown),
        'clip': os.path.basename(clip), 'mode': mode,
        'first_frame_ms': 1000 * ttf,
        'cpu_pct': bl.median([r['tree_cpu_pct'] for r in rows]),
        'compositor_pct': bl.median([r['compositor_cpu_pct'] for r in rows]),
        'helpers_pct': bl.median([r['helpers_cpu_pct'] for r in rows]),
        'frames_per_s': fps,
        'wakeups_per_frame': wakes / fps if fps else None,
        'pss_compositor_kib': pss_comp, 'pss_helpers_kib': pss_help,
        'others_pct': bl.median([r['others_pct'] for r in rows]),
        'load1': rows[-1]['load1'] if rows else None,
        'decoder': src.get('decoder'), 'pipeline': src.get('pipeline'),
        'format': src.get('format'),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--clips', default='h264-1080p30.mp4,h264-1080p60.mp4')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--duration', type=float, default=20.0)
    ap.add_argument('--warmup', type=float, default=3.0)
    ap.add_argument('--compositor',
                    default=os.path.join(ROOT, 'build-bench', 'examples', 'veil-tinywl'))
    ap.add_argument('--renderer', choices=('pixman', 'import'), default='pixman')
    ap.add_argument('--out')
    args = ap.parse_args()
    clip_dir = os.path.join(ROOT, 'build-bench', 'bench', 'clips')
    names = args.clips.split(',')
    clips.ensure(clip_dir, names, quiet=True)
    outdir = args.out or os.path.join(ROOT, 'build-bench', 'bench',
                                      time.strftime('video-isolate-%Y%m%d-%H%M%S'))
    os.makedirs(outdir, exist_ok=True)
    bl.say(f'# {bl.cpu_model()}; load before {bl.loadavg()}; renderer {args.renderer}; '
           f'out {outdir}')
    results = []
    for name in names:
        clip = os.path.join(clip_dir, name)
        for r in range(args.rounds):
            order = list(MODES) if r % 2 == 0 else list(MODES)[::-1]
            for mode in order:
                res = run_one(args, outdir, clip, mode)
                res['round'] = r + 1
                results.append(res)
                bl.say(f'{name} round {r + 1} {mode:12}: {res["cpu_pct"]:.1f} % '
                       f'(compositor {res["compositor_pct"]:.1f}, helpers '
                       f'{res["helpers_pct"]:.1f}), {res["frames_per_s"]:.1f} fps, '
                       f'{res["wakeups_per_frame"] or 0:.2f} wake-ups/frame, first frame '
                       f'{res["first_frame_ms"]:.0f} ms, Pss {res["pss_compositor_kib"]} + '
                       f'{res["pss_helpers_kib"]} KiB, others {res["others_pct"]:.1f} %')
    with open(os.path.join(outdir, 'results.json'), 'w') as f:
        json.dump(results, f, indent=1)
    bl.say('')
    bl.say('| clip | mode | CPU, % of a core (compositor + helpers) | wake-ups / frame | '
           'frames/s | first frame, ms | Pss, MiB (compositor + helpers) | others, % |')
    bl.say('|---|---|---|---|---|---|---|---|')
    for name in names:
        for mode in MODES:
            rs = [x for x in results if x['clip'] == name and x['mode'] == mode]
            med = lambda k: bl.median([x[k] for x in rs if x[k] is not None])  # noqa: E731
            bl.say(f'| {name} | {mode} | {med("cpu_pct"):.1f} ({med("compositor_pct"):.1f} + '
                   f'{med("helpers_pct"):.1f}) | {med("wakeups_per_frame"):.2f} | '
                   f'{med("frames_per_s"):.1f} | {med("first_frame_ms"):.0f} | '
                   f'{med("pss_compositor_kib") / 1024:.1f} + '
                   f'{med("pss_helpers_kib") / 1024:.1f} | {med("others_pct"):.1f} |')
    bl.say('')
    bl.say('| clip | mode | thread | wake-ups / frame |')
    bl.say('|---|---|---|---|')
    for name in names:
        for mode in MODES:
            rs = [x for x in results if x['clip'] == name and x['mode'] == mode]
            labels = sorted({k for x in rs for k in x['threads']})
            meds = {k: bl.median([x['threads'].get(k, 0) for x in rs]) for k in labels}
            for k in sorted(labels, key=lambda k: (-meds[k], k)):
                if meds[k] >= 0.05:
                    bl.say(f'| {name} | {mode} | {k} | {meds[k]:.2f} |')
    bl.say(f'# load after {bl.loadavg()}; medians of {args.rounds} rounds of '
           f'{args.duration:.0f} s; decoders: '
           + ', '.join(sorted({f'{x["mode"]}: {x["decoder"]} ({x["format"]})' for x in results})))


if __name__ == '__main__':
    try:
        main()
    except bl.BenchError as e:
        sys.exit(f'video-isolate.py: {e}')
