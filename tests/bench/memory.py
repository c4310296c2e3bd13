#!/usr/bin/env python3
"""
memory.py: where a video's anonymous memory goes in veil-tinywl, variants side by side in one
run. Each variant is a fresh veil-tinywl (1920x1080, pixman, headless) with its own environment;
the rounds interleave the variants. For each: /proc/PID/smaps before the wallpaper and after
--seconds of playing (main heap + other anonymous, RssAnon), the anonymous mappings of 1 MiB
or more, the CPU of the process over the same time (as a share of one core) and frames/s.

    tools/devroot python3 tests/bench/memory.py --build build --rounds 2 \\
        --variant helper= --variant inprocess=VEIL_DECODER_VIDEO=inprocess

(VEIL_AVDEC_MAX_THREADS, the variant of the runs in docs/measurements.md that chose libav's
thread count, left the library with the other measurement knobs.)
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import clips  # noqa: E402


def cpu_ticks(pid):
    _, ut, st, _, _ = bl.proc_stat(pid)
    return ut + st


def one(binary, out, path, name, env, seconds, warmup):
    comp = bl.Compositor('veil', binary, out, 1, (1920, 1080), env=env, name=f'veil-{name}')
    comp.start()
    try:
        before = bl.smaps(comp.pid)
        comp.ipc.must(f'output * veil {bl.quote(path)} fill')
        bl.wait_veil_shown(comp, path=path)
        time.sleep(warmup)
        f0 = comp.veil_status()['HEADLESS-1']['frames']
        c0, t0 = cpu_ticks(comp.pid), time.monotonic()
        time.sleep(seconds)
        c1, t1 = cpu_ticks(comp.pid), time.monotonic()
        f1 = comp.veil_status()['HEADLESS-1']['frames']
        after = bl.smaps(comp.pid)
        status = bl.proc_status(comp.pid)
    finally:
        comp.stop()
    anon = (after['heap'] + after['anon'] - before['heap'] - before['anon']) / 1024.0
    sizes = {}
    for size, rss in after['big']:
        n, total = sizes.get(size, (0, 0))
        sizes[size] = (n + 1, total + rss)
    big = ', '.join(f'{n} x {size / 1024:.1f}: {total / 1024:.1f}' for size, (n, total) in
                    sorted(sizes.items(), key=lambda kv: -kv[1][1])[:6])
    return {
        'anon': anon,
        'files': (after['files'] - before['files']) / 1024.0,
        'cpu': (c1 - c0) * 100.0 / bl.CLK_TCK / (t1 - t0),
        'fps': (f1 - f0) / (t1 - t0),
        'threads': status.get('Threads'),
        'big': big,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--media', default=None)
    p.add_argument('--clip', default='h264-1080p30.mp4')
    p.add_argument('--rounds', type=int, default=2)
    p.add_argument('--seconds', type=float, default=10.0)
    p.add_argument('--warmup', type=float, default=3.0)
    p.add_argument('--variant', action='append', default=[], metavar='NAME=K=V,K=V',
                   help='a variant and its environment (repeat)')
    args = p.parse_args()
    build = os.path.abspath(args.build)
    media = os.path.abspath(args.media or os.path.join(build, 'tests', 'bench', 'media'))
    path = clips.ensure(media, names=[args.clip], quiet=True)[args.clip]
    binary = bl.compositor_path(build)
    out = os.path.join(build, 'bench', f'{bl.stamp()}-memory')
    os.makedirs(out, exist_ok=True)
    variants = []
    for spec in args.variant or ['default=']:
        name, _, rest = spec.partition('=')
        env = {}
        for kv in filter(None, rest.split(',')):
            k, _, v = kv.partition('=')
            env[k] = v
        variants.append((name, env))
    bl.say(f'memory.py: {path}; {args.rounds} rounds; load {bl.loadavg()}')
    results = {name: [] for name, _ in variants}
    for rnd in range(args.rounds):
        for name, env in variants:
            try:
                r = one(binary, out, path, name, env, args.seconds, args.warmup)
            except bl.BenchError as e:
                # A loaded machine can miss the 5 s preroll bound: once more.
                bl.say(f'  round {rnd + 1} {name}: {e}; again')
                r = one(binary, out, path, name, env, args.seconds, args.warmup)
            results[name].append(r)
            bl.say(f'  round {rnd + 1} {name:10s}: anonymous +{r["anon"]:.1f} MiB, files '
                   f'+{r["files"]:.1f} MiB, cpu {r["cpu"]:.1f} %, frames/s {r["fps"]:.1f}, '
                   f'threads {r["threads"]}; big: {r["big"]}; load {bl.loadavg()}')
    bl.say('variant     median anonymous MiB  median cpu %  median frames/s')
    for name, rows in results.items():
        bl.say(f'{name:10s}  {bl.median([r["anon"] for r in rows]):20.1f}  '
               f'{bl.median([r["cpu"] for r in rows]):12.1f}  '
               f'{bl.median([r["fps"] for r in rows]):15.1f}')


if __name__ == '__main__':
    bl.exit_on_signals()
    main()
