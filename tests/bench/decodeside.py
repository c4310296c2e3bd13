"""
The decode side of veil-tinywl and the frames it keeps in dmabufs, sampled; and
`bench.py --decode-side FILE...`: that decode side on the importing renderer against the same
decode to fakesink (the floor), interleaved, in one run.

The decode side is the CPU of every thread of the compositor but its main thread: veil's
streaming threads (demuxer, decoder, the copy into the pool when there is one), its workers, the
decoder's own threads. The main thread is left out because that is where the renderer runs: the
importing test renderer converts YUV to RGB there on the CPU, which is the GPU's work on a real
machine. What veil costs the compositor's thread itself is bench.py's and wakes.py's business.
"""

import json
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402


class DecodeSide:
    """
    A Sampler extra for a compositor pid: per interval, the main thread's CPU and the rest's
    (decode_side_pct, main_pct, % of one core), and the dmabufs the process holds (pool
    buffers: memfds named veil-dmabuf here, udmabufs or a driver's dmabufs on a GPU machine).
    """

    def __init__(self, pid):
        self.pid = pid
        self.prev = None
        self.max_dmabufs = 0
        self.max_dmabuf_kib = 0

    def ticks(self):
        _, ut, st, _, _ = bl.proc_stat(self.pid)
        _, mut, mst, _, _ = bl.proc_stat(self.pid, self.pid)
        return ut + st, mut + mst

    def __call__(self, dt):
        cur = self.ticks()
        row = {}
        if self.prev is not None:
            total, main = cur[0] - self.prev[0], cur[1] - self.prev[1]
            row['main_pct'] = 100.0 * main / bl.CLK_TCK / dt
            row['decode_side_pct'] = 100.0 * (total - main) / bl.CLK_TCK / dt
            row['decode_side_ticks'] = total - main
        self.prev = cur
        n, kib = dmabufs(self.pid)
        row['dmabufs'], row['dmabuf_kib'] = n, kib
        self.max_dmabufs = max(self.max_dmabufs, n)
        self.max_dmabuf_kib = max(self.max_dmabuf_kib, kib)
        return row


def dmabufs(pid):
    """(count, KiB) of the distinct dmabuf-like files pid has open."""
    seen = {}
    try:
        fds = os.listdir(f'/proc/{pid}/fd')
    except OSError:
        return 0, 0
    for fd in fds:
        path = f'/proc/{pid}/fd/{fd}'
        try:
            target = os.readlink(path)
            if not ('veil-dmabuf' in target or 'dmabuf' in target or 'udmabuf' in target):
                continue
            st = os.stat(path)
        except OSError:
            continue
        seen[(st.st_dev, st.st_ino)] = st.st_size
    return len(seen), sum(seen.values()) // 1024


def run_veil(args, binary, path, out, tag):
    """One run of veil-tinywl on the importing renderer; returns its figures."""
    comp = bl.Compositor('veil', binary, out, 1, args.size, args=['--renderer', 'import'],
                         name=f'{tag}-veil-tinywl')
    try:
        comp.start()
        comp.ipc.must(f'output * veil {bl.quote(path)} {args.mode}')
        bl.wait_veil_shown(comp, path=path)
        time.sleep(args.warmup)
        group = bl.Group('comp', lambda: [comp.pid], main=comp.pid)
        counters = bl.VeilCounters(comp)
        counters.prev = counters.read()
        side = DecodeSide(comp.pid)
        side(1.0)

        def extra(dt):
            row = counters(dt)
            row.update(side(dt))
            return row
        sampler = bl.Sampler([group], args.interval, extra=extra, alive=comp.require_alive)
        rows = sampler.run(args.duration)
        status = counters.last_status
    finally:
        comp.stop()
    src = (next(iter(status.values())) if status else {}).get('source') or {}
    ticks = sum(r.get('decode_side_ticks', 0) for r in rows)
    flagged, others, _ = bl.loaded(rows)
    return {
        'decode_side_pct': 100.0 * ticks / bl.CLK_TCK / sampler.seconds,
        'decode_side_median': bl.median(bl.column(rows, 'decode_side_pct')),
        'main_pct': bl.mean(bl.column(rows, 'main_pct')),
        'total_pct': bl.mean(bl.column(rows, 'comp_cpu_pct')),
        # Decoded: taken by the compositor, or replaced in the mailbox before it took them.
        'frames_per_s': (sum(bl.column(rows, 'decoded_per_s')) * args.interval +
                         sum(bl.column(rows, 'dropped'))) / sampler.seconds,
        'shown_per_s': bl.mean(bl.column(rows, 'frames_per_s')),
        'dropped': sum(bl.column(rows, 'dropped')),
        'dmabufs_max': side.max_dmabufs, 'dmabuf_mib_max': side.max_dmabuf_kib / 1024.0,
        'rss_mib': bl.mib(bl.median(bl.column(rows, 'comp_rss_kib'))),
        'threads': group.top_threads(sampler.seconds, n=8),
        'decoder': src.get('decoder'), 'format': src.get('format'),
        'copies': src.get('copies'), 'elements': src.get('elements'),
        'others_pct': others, 'loaded': flagged, 'seconds': sampler.seconds,
    }


def run_floor(args, path, out, tag):
    """The same decode to fakesink sync=true, nothing displayed: gst-launch-1.0, whole."""
    pipeline = (f'filesrc location={shlex.quote(path)} ! decodebin ! fpsdisplaysink '
                f'text-overlay=false fps-update-interval=1000 video-sink="fakesink sync=true"')
    # At the priority of veil's streaming threads (util/worker.c: nice +10, SCHED_BATCH), so
    # that a busy machine starves both alike.
    prefix = [] if args.floor_priority == 'normal' else ['nice', '-n', '10', 'chrt', '-b', '0']
    client = bl.GstClient(pipeline, bl.base_env(), os.path.join(out, f'{tag}-floor.log'),
                          name='floor', prefix=prefix).start()
    try:
        bl.wait_until(lambda: client.rendered > 0, 'the floor to render', alive=client.alive)
        time.sleep(args.warmup)
        pid = gst_pid(client)
        group = bl.Group('floor', lambda: [pid], main=pid)
        side = DecodeSide(pid)
        side(1.0)
        sampler = bl.Sampler([group], args.interval, extra=side, alive=client.alive)
        r0 = client.rendered
        rows = sampler.run(args.duration)
        rendered = client.rendered - r0
    finally:
        client.stop()
    flagged, others, _ = bl.loaded(rows)
    return {
        'total_pct': bl.mean(bl.column(rows, 'floor_cpu_pct')),
        'total_median': bl.median(bl.column(rows, 'floor_cpu_pct')),
        'decode_side_pct': bl.mean(bl.column(rows, 'decode_side_pct')),
        'frames_per_s': rendered / sampler.seconds,
        'decoders': sorted(client.decoders),
        'rss_mib': bl.mib(bl.median(bl.column(rows, 'floor_rss_kib'))),
        'threads': group.top_threads(sampler.seconds, n=8),
        'others_pct': others, 'loaded': flagged, 'seconds': sampler.seconds,
    }


def gst_pid(client):
    """gst-launch-1.0's pid: nice and chrt exec it, so the client's own."""
    return client.pid


def ms_per_frame(pct, fps):
    return 10.0 * pct / fps if fps else float('nan')


def joined(runs, key, digits):
    """'1.23, 4.56': one figure a run."""
    return ', '.join(f'{r[key]:.{digits}f}' for r in runs)


def fmt_threads(threads):
    return ', '.join(f'{n} {p:.1f}' for n, p in threads) or 'none'


def run(args):
    """bench.py --decode-side: A (veil, importing renderer) and C (floor) per file, rounds."""
    bl.need('ffmpeg', 'ffprobe', 'gst-launch-1.0')
    build = os.path.abspath(args.build)
    binary = os.path.abspath(args.compositor) if args.compositor else bl.compositor_path(build)
    out = os.path.abspath(args.out or os.path.join(build, 'bench',
                                                   f'{bl.stamp()}-decode-side'))
    os.makedirs(out, exist_ok=True)
    files = [os.path.abspath(f) for f in args.file]
    longest = args.warmup + args.duration + 15
    media = {f: bl.long_copy(f, longest, out) for f in files}
    load_before = bl.loadavg()
    results = {f: {'A': [], 'C': []} for f in files}
    for rnd in range(1, args.rounds + 1):
        for f in files:
            order = ('A', 'C') if rnd % 2 else ('C', 'A')
            for system in order:
                if args.quiet_wait > 0:
                    bl.wait_quiet(args.quiet_wait)
                tag = f'r{rnd}-{os.path.splitext(os.path.basename(f))[0]}-{system}'
                bl.say(f'decode side: round {rnd}, {os.path.basename(f)}, '
                       f'{"veil (import)" if system == "A" else "floor"}')
                r = (run_veil(args, binary, media[f], out, tag) if system == 'A'
                     else run_floor(args, media[f], out, tag))
                results[f][system].append(r)
                bl.say(f'  {"decode side" if system == "A" else "whole"} '
                       f'{r["decode_side_pct"] if system == "A" else r["total_pct"]:.1f} % '
                       f'(others {r["others_pct"]:.1f} %)')
    load_after = bl.loadavg()

    lines = [f'veil decode side on the importing renderer against the floor, {args.rounds} '
             f'rounds interleaved, {args.duration:g} s sampled after {args.warmup:g} s each, '
             f'one {args.size[0]}x{args.size[1]} output, mode {args.mode} '
             f'({time.strftime("%Y-%m-%d %H:%M")})']
    lines += bl.build_lines(build)
    lines += bl.machine_lines()
    lines.append(f'Load average before: {" ".join(f"{x:.2f}" for x in load_before)}; after: '
                 f'{" ".join(f"{x:.2f}" for x in load_after)}')
    lines.append('A: veil-tinywl --renderer import, CPU of every thread but the main one '
                 '(where the renderer converts); C: gst-launch-1.0 filesrc ! decodebin ! '
                 'fakesink sync=true, the whole process'
                 + (', at nice +10 and SCHED_BATCH as veil\'s streaming threads'
                    if args.floor_priority != 'normal' else '')
                 + '. % of one core; per round the mean over the window, then the median of '
                 'the rounds.')
    any_loaded = False
    for f in files:
        a, c = results[f]['A'], results[f]['C']
        am = bl.median([r['decode_side_pct'] for r in a])
        cm = bl.median([r['total_pct'] for r in c])
        loaded_runs = sum(r['loaded'] for r in a + c)
        any_loaded = any_loaded or loaded_runs > 0
        lines.append('')
        lines.append(bl.clip_line(f))
        lines.append(f'  A decode side: median {am:.2f} % (rounds '
                     + ', '.join(f'{r["decode_side_pct"]:.2f}' for r in a) + '); main thread '
                     + ', '.join(f'{r["main_pct"]:.1f}' for r in a) + ' %; whole process '
                     + ', '.join(f'{r["total_pct"]:.1f}' for r in a) + ' %')
        lines.append(f'  C floor: median {cm:.2f} % (rounds '
                     + ', '.join(f'{r["total_pct"]:.2f}' for r in c) + ')')
        a_fps = bl.median([r['frames_per_s'] for r in a])
        c_fps = bl.median([r['frames_per_s'] for r in c])
        a_ms = bl.median([ms_per_frame(r['decode_side_pct'], r['frames_per_s']) for r in a])
        c_ms = bl.median([ms_per_frame(r['total_pct'], r['frames_per_s']) for r in c])
        # Points of a core at C's rate that A's cost per frame adds.
        at_rate = (a_ms - c_ms) * c_fps / 10.0
        verdict = 'met' if at_rate <= 1.0 else f'missed by {at_rate - 1.0:.2f}'
        if a_fps >= 0.9 * c_fps:
            lines.append(f'  A - C: {am - cm:+.2f} points')
        else:
            lines.append(f'  A - C: {am - cm:+.2f} points, not comparable: A decoded '
                         f'{a_fps:.1f} frames a second, C {c_fps:.1f} (the renderer on A\'s '
                         f'main thread did not keep up, and the pool held the decoder back)')
        lines.append(f'  per frame decoded: A {a_ms:.2f} ms, C {c_ms:.2f} ms of CPU (medians); '
                     f'at C\'s {c_fps:.1f} frames a second A adds {at_rate:+.2f} points '
                     f'(target <= +1: {verdict})')
        last = a[-1]
        lines.append(f'  A: decoder {last["decoder"]}, format handed to the renderer '
                     f'{last["format"]}, copies {last["copies"]}, elements '
                     f'{" ".join(last["elements"] or [])}')
        lines.append(f'  A: frames decoded {joined(a, "frames_per_s", 2)} '
                     f'per s, shown {joined(a, "shown_per_s", 2)}, dropped '
                     f'{", ".join(str(r["dropped"]) for r in a)}; C rendered '
                     f'{joined(c, "frames_per_s", 2)} per s')
        lines.append(f'  A: dmabufs held at most {", ".join(str(r["dmabufs_max"]) for r in a)} '
                     f'({joined(a, "dmabuf_mib_max", 1)} MiB); RSS '
                     f'{joined(a, "rss_mib", 1)} MiB; C RSS '
                     f'{joined(c, "rss_mib", 1)} MiB')
        lines.append(f'  A threads (last round, %): {fmt_threads(last["threads"])}')
        lines.append(f'  C threads (last round, %): {fmt_threads(c[-1]["threads"])}')
        lines.append(f'  other programs: A {joined(a, "others_pct", 1)}, '
                     f'C {joined(c, "others_pct", 1)} % on average'
                     + (f'; {loaded_runs} runs LOADED' if loaded_runs else ''))
    report = '\n'.join(lines) + '\n'
    with open(os.path.join(out, 'results.json'), 'w') as fh:
        json.dump({os.path.basename(f): results[f] for f in files}, fh, indent=1)
    with open(os.path.join(out, 'report.txt'), 'w') as fh:
        fh.write(report)
    print(report, end='')
    print(f'bench: results in {out}')
    return 3 if any_loaded and not args.allow_loaded else 0
