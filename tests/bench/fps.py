#!/usr/bin/env python3
"""
fps.py: what `veil fps 15` saves on a 30 fps 1080p H.264 clip (h264-1080p30.mp4 of clips.py),
where videos play by default (veil-decoder, pixman's default) and in the compositor's process,
interleaved in one run.

Two veil-tinywl processes at 1920x1080 (pixman, headless) show the clip; only one plays at a
time, the other paused (a paused video costs nothing). Each round measures, for --seconds
after --warmup seconds of settling:
  helper-off   compositor A (as shipped: the video plays in veil-decoder), no cap
  helper-15    compositor A, `veil fps 15`
  process-off  compositor B (`--decoding inprocess`: the video plays in its process), no cap
  process-15   compositor B, `veil fps 15`
CPU is the whole process tree's: the compositor and every veil-decoder below it, every thread
(/proc/PID/task/*/stat), as a share of one core, split by thread name (a helper's threads are
named "decoder:NAME"); frames/s is the output's frame counter. Prints each window, then the
medians per variant, with /proc/loadavg before and after.

    tools/devroot python3 tests/bench/fps.py --build build --rounds 3
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import clips  # noqa: E402

OUT = 'HEADLESS-1'


def thread_ticks(pid):
    """
    {(tid, thread name): utime + stime ticks} of every thread alive now in pid and the processes
    below it (its veil-decoder helpers, whose threads are named "decoder:NAME").
    """
    ticks = {}
    for proc in [pid] + bl.descendants(pid):
        prefix = '' if proc == pid else 'decoder:'
        try:
            tids = os.listdir(f'/proc/{proc}/task')
        except OSError:
            continue
        for tid in tids:
            try:
                comm, ut, st, _, _ = bl.proc_stat(proc, tid)
            except (OSError, ValueError):
                continue
            ticks[(tid, prefix + comm)] = ut + st
    return ticks


def frames(comp):
    return (comp.veil_status().get(OUT) or {}).get('frames', 0)


def window(comp, seconds):
    before = thread_ticks(comp.pid)
    f0, t0 = frames(comp), time.monotonic()
    time.sleep(seconds)
    after = thread_ticks(comp.pid)
    f1, t1 = frames(comp), time.monotonic()
    dt = t1 - t0
    by_name = {}
    for key, ticks in after.items():
        used = ticks - before.get(key, 0)
        name = key[1]
        by_name[name] = by_name.get(name, 0) + used
    total = sum(by_name.values())
    to_pct = 100.0 / bl.CLK_TCK / dt
    return {
        'cpu': total * to_pct,
        'fps': (f1 - f0) / dt,
        'threads': {n: v * to_pct for n, v in by_name.items()},
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--media', default=None, help='where the clip is (made there if missing)')
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--seconds', type=float, default=10.0)
    p.add_argument('--warmup', type=float, default=3.0)
    p.add_argument('--fps', type=int, default=15)
    p.add_argument('--env', action='append', default=[], metavar='VAR=VALUE',
                   help='more environment for both compositors (a build before veil-decoder '
                        'was found by itself: VEIL_DECODER_HELPER=PATH)')
    p.add_argument('--inprocess-env', action='store_true',
                   help='B by VEIL_DECODER=inprocess, not --decoding inprocess (a build before '
                        'veil-tinywl had the option)')
    args = p.parse_args()
    env = dict(e.split('=', 1) for e in args.env)
    build = os.path.abspath(args.build)
    media = os.path.abspath(args.media or os.path.join(build, 'tests', 'bench', 'media'))
    path = clips.ensure(media, names=['h264-1080p30.mp4'], quiet=True)['h264-1080p30.mp4']
    binary = bl.compositor_path(build)
    out = os.path.join(build, 'bench', f'{bl.stamp()}-fps')
    os.makedirs(out, exist_ok=True)
    cmd = f'output * veil {bl.quote(path)} fill'
    bl.say(f'fps.py: {path}; {args.rounds} rounds of {args.seconds:g} s per variant')
    load_before = bl.loadavg()
    a = bl.Compositor('veil', binary, out, 1, (1920, 1080), name='veil-helper', env=env)
    if args.inprocess_env:
        b = bl.Compositor('veil', binary, out, 1, (1920, 1080), name='veil-process',
                          env=dict(env, VEIL_DECODER='inprocess'))
    else:
        b = bl.Compositor('veil', binary, out, 1, (1920, 1080), name='veil-process', env=env,
                          args=['--decoding', 'inprocess'])
    results = {'helper-off': [], 'helper-15': [], 'process-off': [], 'process-15': []}
    try:
        a.start()
        b.start()
        for comp in (a, b):
            comp.ipc.must(cmd)
            bl.wait_veil_shown(comp, path=path)
            comp.ipc.must('output * veil pause')
        variants = [('helper-off', a, 'off'), ('helper-15', a, str(args.fps)),
                    ('process-off', b, 'off'), ('process-15', b, str(args.fps))]
        for rnd in range(args.rounds):
            for name, comp, fps in variants:
                comp.ipc.must(f'output * veil fps {fps}')
                comp.ipc.must('output * veil resume')
                time.sleep(args.warmup)
                r = window(comp, args.seconds)
                comp.ipc.must('output * veil pause')
                results[name].append(r)
                top = sorted(r['threads'].items(), key=lambda kv: -kv[1])[:4]
                bl.say(f'  round {rnd + 1} {name:11s}: cpu {r["cpu"]:5.1f} %  frames/s '
                       f'{r["fps"]:5.1f}  ' + ', '.join(f'{n} {v:.1f}' for n, v in top) +
                       f'  load {bl.loadavg()}')
    finally:
        a.stop()
        b.stop()
    load_after = bl.loadavg()
    bl.say(f'loadavg before: {load_before}; after: {load_after}')
    bl.say('variant      median cpu %  median frames/s  (per round)')
    for name, rows in results.items():
        cpus = [r['cpu'] for r in rows]
        fpss = [r['fps'] for r in rows]
        bl.say(f'{name:11s}  {bl.median(cpus):11.1f}  {bl.median(fpss):15.1f}  '
               f'({", ".join(f"{c:.1f}" for c in cpus)})')


if __name__ == '__main__':
    bl.exit_on_signals()
    main()
