#!/usr/bin/env python3
"""
memory.py: what a video costs in memory, the compositor and every process it started counted
together, variants of veil and the anchor side by side in one run.

    tools/devroot python3 tests/bench/memory.py --build build-rel --rounds 3 --anchor \\
        [--build-variant before=build-before] [--clip h264-1080p60.mp4] [--outputs 2]

Each run is a fresh compositor (1920x1080 outputs, pixman, headless); the rounds interleave the
systems. A variant of veil is veil-tinywl (BUILD's, or another build's: --build-variant) with an
environment of its own (--variant), showing the clip with
`output * veil CLIP fill`; the anchor (--anchor) is sway 1.12 with, per output, the client
`gst-launch-1.0 filesrc location=CLIP ! decodebin ! videoconvert ! waylandsink fullscreen=true`.
Both play a copy of the clip repeated without re-encoding (no loop in a run, which gst-launch
cannot do).

For each run, /proc/PID/smaps of every process of the tree (the compositor and all its
descendants: veil-decoder's monitor, its decoding process and the spare; sway, and the
clients), before the wallpaper and --seconds after it showed (plus --warmup): PSS by process and
by kind of mapping (memfds by name: GStreamer's `gst-shm` pool, wlroots' shm buffers; anonymous,
heap, libraries, other files). PSS splits a page that two processes map between them, so the
sum over the tree counts the frames the compositor and the helper share once. Also the tree's
CPU over the window (a share of one core), veil's frames shown per second and frames dropped.

The growth is the tree's PSS after less before; the anonymous part is anonymous, heap and
stacks. The report ends with the medians of the rounds and each variant's ratio to the anchor.
"""
import argparse
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import clips  # noqa: E402

ANCHOR = 'anchor'
ANON_KINDS = ('anon', 'heap', 'stack')


def cpu_ticks(pids):
    total = 0
    for pid in pids:
        try:
            _, ut, st, _, _ = bl.proc_stat(pid)
        except (OSError, ValueError):
            continue
        total += ut + st
    return total


def comm(pid):
    try:
        return bl.read_text(f'/proc/{pid}/comm').strip()
    except OSError:
        return '?'


def tree(comp, clients=()):
    """[(role, pid)]: the compositor, its descendants, then the clients and theirs."""
    out = [(comm(comp.pid), comp.pid)]
    for pid in bl.descendants(comp.pid):
        name = comm(pid)
        if name == 'veil-decoder':
            parent = bl.ppid_of(pid)
            if parent != comp.pid:
                name += ' (decoding)'
            elif bl.descendants(pid):
                name += ' (monitor)'
            else:
                name += ' (spare)'
        out.append((name, pid))
    for c in clients:
        for pid in [c.pid] + bl.descendants(c.pid):
            out.append((comm(pid) + ' (client)', pid))
    return out


def reading(procs):
    """{role: pss_by_kind} of the processes (roles made unique), and their sum as 'tree'."""
    out = {}
    total = {}
    for role, pid in procs:
        kinds = bl.pss_by_kind(pid)
        if not kinds:
            continue
        name, n = role, 2
        while name in out:
            name, n = f'{role} #{n}', n + 1
        out[name] = kinds
        for k, v in kinds.items():
            total[k] = total.get(k, 0) + v
    out['tree'] = total
    return out


def anon(kinds):
    return sum(kinds.get(k, 0) for k in ANON_KINDS)


def wait_visible(comp, client, output):
    """Until sway shows the client fullscreen and visible on output."""
    def pred():
        client.alive()
        found = []

        def walk(node, out):
            if node.get('type') == 'output':
                out = node.get('name')
            if node.get('pid') == client.pid and out == output and \
                    node.get('fullscreen_mode') == 1 and node.get('visible'):
                found.append(node)
            for k in ('nodes', 'floating_nodes'):
                for n in node.get(k, []):
                    walk(n, out)
        walk(comp.ipc.request(bl.GET_TREE), None)
        return found
    bl.wait_until(pred, f'{client.name} fullscreen on {output}', alive=comp.require_alive)


def one(cfg, name, env, binary):
    """One run of a system: its readings, CPU and frames."""
    size = (1920, 1080)
    clients = []
    if name == ANCHOR:
        comp = bl.Compositor('sway', cfg.sway, cfg.out, cfg.outputs, size, name='anchor-sway')
    else:
        comp = bl.Compositor('veil', binary, cfg.out, cfg.outputs, size, env=env,
                             name=f'veil-{name}')
    comp.start()
    try:
        time.sleep(1.0)  # the spare helper starts after the compositor is ready
        before = reading(tree(comp))
        if name == ANCHOR:
            pipeline = (f'filesrc location={shlex.quote(cfg.clip)} ! decodebin ! videoconvert ! '
                        f'waylandsink fullscreen=true')
            for i, out in enumerate(comp.output_names):
                comp.ipc.must(f'focus output {out}')
                c = bl.GstClient(pipeline, comp.client_env,
                                 os.path.join(cfg.out, f'anchor-client{i + 1}.log'),
                                 name=f'client{i + 1}').start()
                clients.append(c)
                wait_visible(comp, c, out)
        else:
            comp.ipc.must(f'output * veil {bl.quote(cfg.clip)} fill')
            bl.wait_veil_shown(comp, path=cfg.clip)
        time.sleep(cfg.warmup)
        counters = bl.VeilCounters(comp) if name != ANCHOR else None
        f0 = counters.read() if counters else None
        pids = [p for _, p in tree(comp, clients)]
        c0, t0 = cpu_ticks(pids), time.monotonic()
        time.sleep(cfg.seconds)
        c1, t1 = cpu_ticks(pids), time.monotonic()
        f1 = counters.read() if counters else None
        procs = tree(comp, clients)
        after = reading(procs)
        threads = {role: bl.proc_status(pid).get('Threads') for role, pid in procs}
        top = {role: top_mappings(pid, cfg.top) for role, pid in procs} if cfg.top else {}
        for c in clients:
            c.alive()
    finally:
        for c in clients:
            c.stop()
        comp.stop()
    r = {
        'before': before, 'after': after, 'threads': threads, 'top': top,
        'growth': (after['tree']['total'] - before['tree']['total']) / 1024.0,
        'anon': (anon(after['tree']) - anon(before['tree'])) / 1024.0,
        'cpu': (c1 - c0) * 100.0 / bl.CLK_TCK / (t1 - t0),
        'load': bl.loadavg(),
    }
    if f1 is not None:
        r['fps'] = (f1[0] - f0[0]) / (t1 - t0) / cfg.outputs
        r['decoded'] = (f1[1] - f0[1]) / (t1 - t0)
        r['dropped'] = f1[2] - f0[2]
    return r


def top_mappings(pid, n):
    """The n mappings (by name; anonymous ones by size) of most PSS: [(name, KiB)]."""
    by = {}
    try:
        maps = bl.smaps_mappings(pid)
    except OSError:
        return []
    for name, size, fields in maps:
        key = name or f'anonymous {size // 1024} MiB' if size >= 1024 else name or 'anonymous'
        by[key] = by.get(key, 0) + fields.get('Pss', 0)
    return sorted(by.items(), key=lambda kv: -kv[1])[:n]


def mib(kib):
    return f'{kib / 1024.0:.1f}'


def table(r):
    """The lines of one run's table: PSS by process and kind, MiB, after (before)."""
    after, before = r['after'], r['before']
    kinds = {}
    for role, k in after.items():
        if role == 'tree':
            continue
        for kind, v in k.items():
            if kind != 'total':
                kinds[kind] = max(kinds.get(kind, 0), v)
    order = ('anon', 'heap', 'stack', 'memfd', 'shm', 'libraries', 'files')
    cols = sorted((k for k, v in kinds.items() if v >= 512),
                  key=lambda k: (order.index(k.split()[0]), k))
    lines = ['| process | PSS (before) | ' + ' | '.join(cols) + ' | the rest | threads |',
             '|---' * (len(cols) + 4) + '|']
    for role, k in after.items():
        b = before.get(role, {}).get('total') if role != 'tree' else before['tree']['total']
        rest = k.get('total', 0) - sum(k.get(c, 0) for c in cols)
        lines.append(f'| {role} | {mib(k.get("total", 0))}'
                     + (f' ({mib(b)})' if b is not None else ' (–)') + ' | '
                     + ' | '.join(mib(k.get(c, 0)) for c in cols)
                     + f' | {mib(rest)} | {r["threads"].get(role, "")} |')
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__)
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--clips', help='reference clips (default BUILD/bench/clips)')
    p.add_argument('--clip', default='h264-1080p30.mp4')
    p.add_argument('--outputs', type=int, default=1)
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--seconds', type=float, default=10.0)
    p.add_argument('--warmup', type=float, default=0.0,
                   help='seconds after the first frame before the window starts')
    p.add_argument('--anchor', action='store_true', help='sway + gst-launch-1.0 in each round')
    p.add_argument('--sway', default='sway')
    p.add_argument('--top', type=int, default=0,
                   help='list each process\'s N mappings of most PSS (by name)')
    p.add_argument('--variant', action='append', default=[], metavar='NAME=K=V,K=V',
                   help='a variant of veil and its environment (repeat; default: one, as is)')
    p.add_argument('--build-variant', action='append', default=[], metavar='NAME=BUILD,K=V',
                   help='a variant: the veil-tinywl (and veil-decoder) of another build, and '
                        'its environment')
    cfg = p.parse_args()
    cfg.build = os.path.abspath(cfg.build)
    cfg.binary = bl.compositor_path(cfg.build)
    clipdir = os.path.abspath(cfg.clips or os.path.join(cfg.build, 'bench', 'clips'))
    have = clips.ensure(clipdir, names=[cfg.clip], quiet=True)
    if cfg.clip not in have:
        raise bl.BenchError(f'cannot make {cfg.clip}')
    cfg.clip = bl.long_copy(have[cfg.clip], cfg.warmup + cfg.seconds + 40, clipdir)
    cfg.out = os.path.join(cfg.build, 'bench', f'{bl.stamp()}-memory')
    os.makedirs(cfg.out, exist_ok=True)
    systems = []
    for spec in cfg.build_variant:
        name, _, rest = spec.partition('=')
        build, *kvs = rest.split(',')
        env = dict(kv.partition('=')[::2] for kv in kvs)
        systems.append((name, env, bl.compositor_path(os.path.abspath(build))))
        bl.say(f'{name}: ' + '; '.join(bl.build_lines(os.path.abspath(build))))
    for spec in cfg.variant or ([] if cfg.build_variant else ['veil=']):
        name, _, rest = spec.partition('=')
        env = dict(kv.partition('=')[::2] for kv in filter(None, rest.split(',')))
        systems.append((name, env, cfg.binary))
    if cfg.anchor:
        systems.append((ANCHOR, {}, None))
    bl.say(f'memory.py: {bl.clip_line(cfg.clip)}; {cfg.outputs} output(s) 1920x1080; '
           f'{cfg.rounds} rounds; read {cfg.seconds:g} s after {cfg.warmup:g} s; '
           f'load {bl.loadavg()}')
    for line in bl.build_lines(cfg.build):
        bl.say(line)
    results = {name: [] for name, _, _ in systems}
    for rnd in range(cfg.rounds):
        for name, env, binary in systems:
            try:
                r = one(cfg, name, env, binary)
            except bl.BenchError as e:
                # A loaded machine can miss a bound: once more.
                bl.say(f'round {rnd + 1} {name}: {e}; again')
                r = one(cfg, name, env, binary)
            results[name].append(r)
            frames = (f'; frames shown/s {r["fps"]:.2f}, decoded/s {r["decoded"]:.2f}, '
                      f'dropped {r["dropped"]}' if 'fps' in r else '')
            bl.say(f'\nround {rnd + 1} {name}: PSS growth {r["growth"]:+.1f} MiB, anonymous '
                   f'{r["anon"]:+.1f} MiB; CPU {r["cpu"]:.1f} % of a core{frames}; '
                   f'load {r["load"]}')
            for line in table(r):
                bl.say(line)
            for role, maps in r['top'].items():
                bl.say(f'{role}: ' + ', '.join(f'{os.path.basename(k)} {mib(v)}'
                                               for k, v in maps))
    bl.say(f'\nmedians of {cfg.rounds} rounds; load {bl.loadavg()}')
    bl.say('| system | PSS growth MiB (rounds) | anonymous MiB | CPU % | frames/s | CPU ms a frame '
           '| dropped |' + (' ratio to the anchor |' if cfg.anchor else ''))
    bl.say('|---|---|---|---|---|---|---|' + ('---|' if cfg.anchor else ''))
    ref = bl.median([r['growth'] for r in results[ANCHOR]]) if cfg.anchor else None
    for name, rows in results.items():
        g = bl.median([r['growth'] for r in rows])
        fps = [r['fps'] for r in rows if 'fps' in r]
        bl.say(f'| {name} | {g:.1f} (' + ', '.join(f'{r["growth"]:.1f}' for r in rows)
               + f') | {bl.median([r["anon"] for r in rows]):.1f} | '
               f'{bl.median([r["cpu"] for r in rows]):.1f} | '
               + (f'{bl.median(fps):.2f} | ' if fps else '– | ')
               + (f'{bl.median([r["cpu"] * 10 / r["fps"] for r in rows if r.get("fps")]):.2f}'
                  if fps else '–') + ' | '
               + (str(sum(r['dropped'] for r in rows)) if fps else '–') + ' |'
               + (f' {g / ref:.2f} |' if ref else ''))


if __name__ == '__main__':
    bl.exit_on_signals()
    try:
        main()
    except bl.BenchError as e:
        print(f'memory: FAILED: {e}', file=sys.stderr)
        sys.exit(1)
