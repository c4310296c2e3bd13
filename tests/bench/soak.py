#!/usr/bin/env python3
"""
soak.py loop|switch|slideshow: does veil-tinywl keep memory, threads or descriptors over a long
run?

    tools/devroot python3 tests/bench/soak.py loop     # a 1 s clip, so it loops once a second,
                                                       # 10 min, sampled every second
    tools/devroot python3 tests/bench/soak.py switch   # 500 set commands: video A, image B,
                                                       # video B, image A, ...; sampled after each
    tools/devroot python3 tests/bench/soak.py slideshow  # a directory of 100 1920x1080 PNGs,
                                                       # a step every second with a 300 ms
                                                       # fade, 10 min, sampled every second
    --short: the versions CI runs (loop 180 s, switch 400 commands, slideshow 240 s)

veil-tinywl runs headless (pixman), one 1920x1080 output. The media are made once by clips.py
(its soak set) in BUILD/bench/clips: loop-1s-1080p30.mp4 (H.264, 1 s at 30 fps), video A H.264
1280x960 and video B VP9 2560x1080 (3 s each, 30 fps), images A and B (two 1920x1080 PNGs).

What fails (the method of veil's client-daemon soaks):
  heap     RssAnon over each half of the stable window (the run without its first fifth,
           --settle; in switch without its first half): the lowest sample of the half's last
           quarter against the lowest of its first quarter, and the highest against the
           highest; the smaller of the two rises, per minute (loop) or per switch (switch),
           between the quarters' centres. Memory kept for good raises both bounds; a level that
           jumps about raises one. It fails when both halves rise past the limit: a leak keeps
           rising, while the allocator taking a few pages once (the slideshow soak: 16 and
           32 KiB at one step, flat before and after, in two CI runs) shows in one half at most.
           Limits: 8 KiB a minute (loop), 2 KiB a switch (switch) (--max-rise). The rise over
           the whole window is printed beside.
           In switch only the samples taken with an image on screen count: no pipeline exists
           then, so what is left is what was kept. The switch heap settles slowly: with
           MALLOC_ARENA_MAX=1 the lowest image sample rose 500 KiB in the first 50 switches,
           250 KiB more by switch 300, then 0.09 KiB a switch from 500 to 1400 (1500
           switches, 2026-12-01): the first half of the run is left out.
  descriptors
           the same bounds test over the same window: at most 0.05 a minute (loop), 0.01 a
           switch (switch) (--max-slope). (The client daemon's soaks used a least-squares
           slope here; a count that flickers by one tilts that line over a short window, while
           a leak raises both bounds. The slope is still printed.)
  threads  the bounds test over each half of the window, with the same limits: fails when both
           halves rise. GStreamer's threads come from GLib's thread pools, which start a thread
           when more jobs run at once than ever before and keep it for the next job (GLib keeps
           up to 8 idle ones, each for 15 s), so the count is a high-water mark that can step
           up once at any time; a leak keeps rising. The names of the threads that appeared
           and went between the window's first and last samples are printed.
  frames   loop: fewer than 90 % of the clip's frames put on the output over the run
           (--min-shown), or fewer loops than 90 % of the run's seconds / the clip's length.
  commands switch: a set command that fails, or a wallpaper not shown within 30 s.
  steps    slideshow: fewer pictures shown than 80 % of the run's seconds (one a second), or
           a status error; the heap, descriptor and thread rules are loop's, per minute.

Writes samples.csv, report.txt (also printed) and the compositor's log to <out>
(BUILD/bench/soak-<test>-<date> unless --out). Exit status 0 pass, 1 fail, 77 skipped (no
veil-tinywl, or no ffmpeg to make the media).
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import clips

SKIP = 77
FILES = {'loop': 'loop-1s-1080p30.mp4', 'video-a': 'soak-a-1280x960.mp4',
         'video-b': 'soak-b-2560x1080.webm', 'image-a': 'soak-a.png', 'image-b': 'soak-b.png'}


class Checks:
    def __init__(self):
        self.lines = []
        self.failed = 0
        self.passed = 0

    def check(self, ok, text):
        self.lines.append(('ok: ' if ok else 'FAIL: ') + text)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def window(rows, settle):
    n = len(rows)
    return rows[int(n * settle):]


# Limits per unit of the window's x: (heap KiB, threads and descriptors), unless given.
LIMITS = {'minute': (8.0, 0.05), 'switch': (2.0, 0.01)}


def check_levels(checks, args, xs, rows, keys, unit, where, span):
    """
    The heap, descriptor and thread rules over the window's rows; keys names their columns
    (heap, fds, threads, thread names), xs is minutes (loop) or switches (switch), span(rows)
    says where the window is.
    """
    if len(rows) < 16:
        # Both halves of the thread rule need 8 samples for their quarters.
        checks.check(False, f'{len(rows)} samples{where} in the window: too few to tell a rise '
                            f'(--duration, --switches)')
        return
    heap_key, fds_key, threads_key, names_key = keys
    heap = [r[heap_key] for r in rows]
    limit = args.max_rise if args.max_rise is not None else LIMITS[unit][0]
    passed, first, second = bl.halves_pass(xs, heap, limit)
    rise, lo, hi = bl.bounds_rise(xs, heap)
    checks.check(passed,
                 f'heap (RssAnon){where} {span(rows)}: {first:+.3f} KiB a {unit} in the first '
                 f'half, {second:+.3f} in the second (a leak rises in both; limit {limit:g}); '
                 f'over the window {rise:+.3f} (low bound {lo:+d} KiB, high bound {hi:+d} KiB '
                 f'between the quarters)')
    slope_limit = args.max_slope if args.max_slope is not None else LIMITS[unit][1]
    check_fds(checks, xs, rows, fds_key, slope_limit, unit, where)
    check_threads(checks, xs, rows, threads_key, names_key, slope_limit, unit, where)


def check_fds(checks, xs, rows, key, limit, unit, where):
    vals = [r[key] for r in rows]
    rise, lo, hi = bl.bounds_rise(xs, vals)
    checks.check(rise <= limit,
                 f'descriptors{where}: {min(vals)} to {max(vals)}, bounds {lo:+d}/{hi:+d}: '
                 f'{rise:+.4f} a {unit} (limit {limit:g}; least squares '
                 f'{bl.slope(xs, vals):+.4f})')


def check_threads(checks, xs, rows, key, names_key, limit, unit, where):
    """Fails on a rise in both halves of the window: see the module's doc for why not one."""
    vals = [r[key] for r in rows]
    passed, first, second = bl.halves_pass(xs, vals, limit)
    _, lo, hi = bl.bounds_rise(xs, vals)
    appeared, gone = bl.names_diff(rows[0][names_key], rows[-1][names_key])
    checks.check(passed,
                 f'threads{where}: {min(vals)} to {max(vals)}; {first:+.4f} a {unit} in the '
                 f'first half, {second:+.4f} in the second (a leak rises in both; limit '
                 f'{limit:g}); over the window bounds {lo:+d}/{hi:+d}, least squares '
                 f'{bl.slope(xs, vals):+.4f}; appeared: {appeared}; went: {gone}')


def loop(args, comp, media, out, checks, lines):
    path = media['loop']
    rate = bl.clip_rate(path) or 30.0
    dur = float(bl.run_text(['ffprobe', '-v', 'error', '-show_entries', 'format=duration',
                             '-of', 'csv=p=0', path]) or 1.0)
    comp.ipc.must(f'output * veil {bl.quote(path)} fill')
    bl.wait_veil_shown(comp, path=path)
    group = bl.Group('comp', lambda: [comp.pid], main=comp.pid)
    counters = bl.VeilCounters(comp)
    start = counters.read()
    counters.prev = start
    sampler = bl.Sampler([group], args.interval, extra=counters, alive=comp.require_alive)
    progress = max(1, int(60 / args.interval))

    def on_row(r):
        if len(sampler.rows) % progress == 0:
            bl.say(f'  t={r["t_s"]:5.0f} s  heap {r["comp_rss_anon_kib"] / 1024:.1f} MiB  '
                   f'threads {r["comp_threads"]}  fds {r["comp_fds"]}  '
                   f'loops {r.get("loops")}  frames/s {bl.fmt(r.get("frames_per_s"))}')
    rows = sampler.run(args.duration, on_row)
    end = counters.read()
    for r in rows:
        r['t_min'] = r['t_s'] / 60.0
    bl.write_csv(os.path.join(out, 'samples.csv'), rows)

    win = window(rows, args.settle)
    t = bl.column(win, 't_min')
    heap = [r['comp_rss_anon_kib'] for r in win]
    check_levels(checks, args, t, win,
                 ('comp_rss_anon_kib', 'comp_fds', 'comp_threads', 'comp_thread_names'),
                 'minute', '',
                 lambda w: f'over the window {w[0]["t_s"]:.0f} to {w[-1]["t_s"]:.0f} s')
    seconds = sampler.seconds
    shown = end[0] - start[0]
    expected = rate * seconds
    checks.check(shown >= args.min_shown * expected,
                 f'frames put on the output: {shown} in {seconds:.0f} s, '
                 f'{100.0 * shown / expected:.1f} % of the clip\'s {rate:g} fps '
                 f'(at least {args.min_shown * 100:.0f} %)')
    loops = end[3] - start[3]
    want = args.min_shown * seconds / dur
    checks.check(loops >= want, f'loops: {loops} in {seconds:.0f} s of a {dur:.2f} s clip '
                                f'(at least {want:.0f})')
    s = bl.summarize(rows, 'comp', seconds)
    lines.append(f'Clip: {bl.clip_line(path)}')
    st = counters.last_status or {}
    src = (next(iter(st.values()), {}) or {}).get('source') or {}
    lines.append(f'Decoder: {src.get("decoder")}, frames as {src.get("format")}')
    lines.append(f'Heap (RssAnon): {bl.fmt(bl.mib(heap[0]), 2)} MiB at the window\'s start, '
                 f'{bl.fmt(bl.mib(heap[-1]), 2)} at its end, {bl.fmt(bl.mib(min(heap)), 2)} to '
                 f'{bl.fmt(bl.mib(max(heap)), 2)}; RSS {bl.fmt(bl.mib(s["rss_first"]))} to '
                 f'{bl.fmt(bl.mib(s["rss_last"]))} MiB')
    lines.append(f'CPU: {bl.fmt(s["cpu_mean"], 2)} % of a core on average; main thread '
                 f'{bl.fmt(s.get("wakeups_mean"), 1)} wake-ups a second')
    flagged, om, op = bl.loaded(rows)
    lines.append(f'Other programs: {om:.1f} % of a core on average, {op:.0f} % at most'
                 + (' (LOADED)' if flagged else ''))


SLIDES = 100


def make_slides(media_dir):
    """100 distinct 1920x1080 PNGs (ffmpeg's testsrc2, one frame a second), made once."""
    d = os.path.join(media_dir, 'slides')
    if len([n for n in os.listdir(d) if n.endswith('.png')] if os.path.isdir(d) else []) \
            == SLIDES:
        return d
    os.makedirs(d, exist_ok=True)
    subprocess.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i',
                    'testsrc2=s=1920x1080:r=1', '-frames:v', str(SLIDES),
                    os.path.join(d, 'slide-%03d.png')], check=True, timeout=600)
    return d


def slideshow(args, comp, media_dir, out, checks, lines):
    d = make_slides(media_dir)
    out_name = comp.output_names[0]
    comp.ipc.must(f'output * veil {bl.quote(d)} fill every 1s transition fade 300')
    bl.wait_until(lambda: ((comp.veil_status()[out_name].get('slideshow') or {})
                           .get('file')), 'the first picture', timeout=30, alive=comp.require_alive)
    group = bl.Group('comp', lambda: [comp.pid], main=comp.pid)
    state = {'file': None, 'steps': 0, 'errors': 0, 'count': 0}

    def extra(dt):
        v = comp.veil_status()[out_name]
        show = v.get('slideshow') or {}
        if show.get('file') != state['file']:
            state['file'] = show.get('file')
            state['steps'] += 1
        state['errors'] += bool(v.get('error'))
        state['count'] = show.get('count') or 0
        return {'file': os.path.basename(show.get('file') or ''),
                'position': show.get('position'), 'steps': state['steps']}
    sampler = bl.Sampler([group], args.interval, extra=extra, alive=comp.require_alive)
    progress = max(1, int(60 / args.interval))

    def on_row(r):
        if len(sampler.rows) % progress == 0:
            bl.say(f'  t={r["t_s"]:5.0f} s  heap {r["comp_rss_anon_kib"] / 1024:.1f} MiB  '
                   f'threads {r["comp_threads"]}  fds {r["comp_fds"]}  steps {r["steps"]}')
    rows = sampler.run(args.duration, on_row)
    for r in rows:
        r['t_min'] = r['t_s'] / 60.0
    bl.write_csv(os.path.join(out, 'samples.csv'), rows)
    win = window(rows, args.settle)
    check_levels(checks, args, bl.column(win, 't_min'), win,
                 ('comp_rss_anon_kib', 'comp_fds', 'comp_threads', 'comp_thread_names'),
                 'minute', '',
                 lambda w: f'over the window {w[0]["t_s"]:.0f} to {w[-1]["t_s"]:.0f} s')
    seconds = sampler.seconds
    # Counted from samples once a second: at most one change a sample is seen.
    checks.check(state['steps'] >= 0.8 * seconds / max(args.interval, 1.0),
                 f'pictures seen changing: {state["steps"]} in {seconds:.0f} s (a step a '
                 f'second; at least 80 %)')
    checks.check(state['count'] == SLIDES, f'the show counts {state["count"]} pictures of '
                                           f'{SLIDES}')
    checks.check(state['errors'] == 0, f'samples with an error in the status: '
                                       f'{state["errors"]}')
    heap = [r['comp_rss_anon_kib'] for r in win]
    s = bl.summarize(rows, 'comp', seconds)
    lines.append(f'Slides: {SLIDES} 1920x1080 PNGs (testsrc2), every 1 s, fade 300 ms')
    lines.append(f'Heap (RssAnon): {bl.fmt(bl.mib(heap[0]), 2)} MiB at the window\'s start, '
                 f'{bl.fmt(bl.mib(heap[-1]), 2)} at its end, {bl.fmt(bl.mib(min(heap)), 2)} to '
                 f'{bl.fmt(bl.mib(max(heap)), 2)}')
    lines.append(f'CPU: {bl.fmt(s["cpu_mean"], 2)} % of a core on average; main thread '
                 f'{bl.fmt(s.get("wakeups_mean"), 1)} wake-ups a second')
    flagged, om, op = bl.loaded(rows)
    lines.append(f'Other programs: {om:.1f} % of a core on average, {op:.0f} % at most'
                 + (' (LOADED)' if flagged else ''))


def switch(args, comp, media, out, checks, lines):
    seq = [('video', media['video-a']), ('image', media['image-b']),
           ('video', media['video-b']), ('image', media['image-a'])]
    out_name = comp.output_names[0]
    group = bl.Group('comp', lambda: [comp.pid], main=comp.pid)
    group.baseline()
    prev_up = bl.uptime_ticks()
    rows = []
    fails = 0
    t_begin = time.monotonic()
    progress = max(1, args.switches // 10)
    for i in range(args.switches):
        kind, path = seq[i % len(seq)]
        cmd = f'output {out_name} veil {bl.quote(path)} fill'
        t0 = time.monotonic()
        ok, err = comp.ipc.command(cmd)
        t1 = time.monotonic()
        row = {'i': i + 1, 'kind': kind, 'file': os.path.basename(path),
               'command_ms': (t1 - t0) * 1000}
        if not ok:
            fails += 1
            row['error'] = err
        else:
            try:
                bl.wait_veil_shown(comp, path=path, timeout=30)
                if kind == 'video':
                    # Playing: the source has decoded a frame beyond the first.
                    bl.wait_until(lambda: int(((comp.veil_status()[out_name].get('source')
                                                or {}).get('frames')) or 0) > 1,
                                  'the video to play', timeout=30, alive=comp.require_alive)
                row['shown_ms'] = (time.monotonic() - t0) * 1000
            except bl.BenchError as e:
                fails += 1
                row['error'] = str(e)
        r = group.sample(prev_up)
        prev_up = bl.uptime_ticks()
        row.update({'ticks': r['user_ticks'] + r['sys_ticks'], 'rss_kib': r['rss_kib'],
                    'rss_anon_kib': r['rss_anon_kib'], 'threads': r['threads'],
                    'fds': r['fds'], 'thread_names': r['thread_names']})
        rows.append(row)
        if (i + 1) % progress == 0:
            bl.say(f'  {i + 1} switches: heap {r["rss_anon_kib"] / 1024:.1f} MiB  threads '
                   f'{r["threads"]}  fds {r["fds"]}  ({kind})')
    seconds = time.monotonic() - t_begin
    bl.write_csv(os.path.join(out, 'samples.csv'), rows)

    checks.check(fails == 0, f'commands: {args.switches} sent, {fails} failed or not shown')
    images = [r for r in window(rows, args.settle) if r['kind'] == 'image']
    x = [r['i'] for r in images]
    heap = [r['rss_anon_kib'] for r in images]
    check_levels(checks, args, x, images, ('rss_anon_kib', 'fds', 'threads', 'thread_names'),
                 'switch', ' after images',
                 lambda w: f'(switches {w[0]["i"]} to {w[-1]["i"]})')
    for kind in ('image', 'video'):
        ms = bl.column([r for r in rows if r['kind'] == kind], 'command_ms')
        sh = bl.column([r for r in rows if r['kind'] == kind], 'shown_ms')
        lines.append(f'{kind}s: command p50 {bl.fmt(bl.median(ms))} ms, p95 '
                     f'{bl.fmt(bl.percentile(ms, 95))} ms; shown (playing, for videos) p50 '
                     f'{bl.fmt(bl.median(sh))} ms, p95 {bl.fmt(bl.percentile(sh, 95))} ms')
    vids = [r for r in rows if r['kind'] == 'video']

    def span(rs, key):
        vals = [r[key] for r in rs]
        return bl.range_text(min(vals), max(vals)) if vals else 'n/a'
    first_heap = bl.mib(images[0]['rss_anon_kib']) if images else None
    last_heap = bl.mib(heap[-1]) if heap else None
    video_heap = bl.mib(max(r['rss_anon_kib'] for r in vids)) if vids else None
    lines.append(f'Heap after the first image {bl.fmt(first_heap, 2)} MiB, after the last '
                 f'{bl.fmt(last_heap, 2)} MiB; with a video up to {bl.fmt(video_heap, 1)} MiB')
    lines.append(f'Threads with an image {span(images, "threads")}, with a video '
                 f'{span(vids, "threads")}; descriptors with an image {span(images, "fds")}')
    ticks = sum(r['ticks'] for r in rows)
    lines.append(f'CPU: {1000.0 * ticks / bl.CLK_TCK / len(rows):.0f} ms a switch; '
                 f'{seconds:.0f} s in all')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__)
    p.add_argument('test', choices=['loop', 'switch', 'slideshow'])
    p.add_argument('--short', action='store_true', help='the CI version')
    p.add_argument('--duration', type=float,
                   help='loop, slideshow: seconds (600; --short 180, slideshow 240)')
    p.add_argument('--switches', type=int, help='switch: commands (500; --short 400)')
    p.add_argument('--interval', type=float, default=1.0)
    p.add_argument('--settle', type=float,
                   help='share of the run left out at its start (0.2; switch 0.5)')
    p.add_argument('--max-rise', type=float, help='KiB a minute (loop, 8) or a switch (2)')
    p.add_argument('--max-slope', type=float,
                   help='threads and fds a minute (loop, 0.05) or a switch (0.01)')
    p.add_argument('--min-shown', type=float, default=0.9)
    p.add_argument('--size', default='1920x1080')
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--compositor')
    p.add_argument('--media', help='where the soak media are (default BUILD/bench/clips)')
    p.add_argument('--out')
    p.add_argument('--env', action='append', default=[], metavar='K=V')
    args = p.parse_args()
    bl.exit_on_signals()
    if args.duration is None:
        args.duration = (240.0 if args.test == 'slideshow' else 180.0) if args.short else 600.0
    if args.switches is None:
        args.switches = 400 if args.short else 500
    if args.settle is None:
        args.settle = 0.5 if args.test == 'switch' else 0.2

    build = os.path.abspath(args.build)
    binary = args.compositor or os.path.join(build, 'examples', 'veil-tinywl')
    if not os.access(binary, os.X_OK):
        print(f'SKIP: {binary} is not built')
        return SKIP
    binary = os.path.abspath(binary)
    try:
        bl.need('ffmpeg', 'ffprobe')
    except bl.BenchError as e:
        print(f'SKIP: {e}')
        return SKIP
    out = os.path.abspath(args.out or os.path.join(build, 'bench',
                                                   f'soak-{args.test}-{bl.stamp()}'))
    os.makedirs(out, exist_ok=True)
    media_dir = os.path.abspath(args.media or os.path.join(build, 'bench', 'clips'))
    names = [FILES['loop']] if args.test == 'loop' else [] if args.test == 'slideshow' else [
        FILES[k] for k in ('video-a', 'video-b', 'image-a', 'image-b')]
    have = clips.ensure(media_dir, names, quiet=True)
    if any(n not in have for n in names):
        print(f'soak: FAILED: cannot make {", ".join(n for n in names if n not in have)}')
        return 1
    media = {k: have[v] for k, v in FILES.items() if v in have}
    w, _, h = args.size.partition('x')
    env = dict(kv.split('=', 1) for kv in args.env)

    checks = Checks()
    lines = []
    what = (f'{args.switches} switches' if args.test == 'switch' else f'{args.duration:g} s')
    lines.append(f'veil soak {args.test}: {what} on 1 x {args.size} '
                 f'({time.strftime("%Y-%m-%d %H:%M")})')
    lines += bl.build_lines(build)
    lines += bl.machine_lines()
    # What the allocator does decides what "kept" means: say how the compositor's was set.
    eff = {k: env.get(k, os.environ.get(k)) for k in ('MALLOC_ARENA_MAX', 'MALLOC_PERTURB_')}
    lines.append(f'Allocator of veil-tinywl: MALLOC_ARENA_MAX='
                 f'{eff["MALLOC_ARENA_MAX"] or "unset (glibc: 8 arenas per core)"}, '
                 f'MALLOC_PERTURB_={eff["MALLOC_PERTURB_"] or "unset"}'
                 + (' (freed memory is written: pages stay resident, the heap looks larger)'
                    if eff['MALLOC_PERTURB_'] not in (None, '', '0') else ''))
    load_before = bl.loadavg()
    comp = bl.Compositor('veil', binary, out, 1, (int(w), int(h)), env=env,
                         name='veil-tinywl')
    try:
        comp.start()
        bl.say(f'soak {args.test}: {what}; results in {out}')
        if args.test == 'loop':
            loop(args, comp, media, out, checks, lines)
        elif args.test == 'slideshow':
            slideshow(args, comp, media_dir, out, checks, lines)
        else:
            switch(args, comp, media, out, checks, lines)
    except bl.BenchError as e:
        checks.check(False, f'the run: {e}')
    finally:
        comp.stop()
    rc = getattr(comp, 'exit_status', None)
    checks.check(rc == 0, f'veil-tinywl exited with status {rc}')
    lines.append(f'Load average before: {" ".join(f"{x:.2f}" for x in load_before)}; after: '
                 f'{" ".join(f"{x:.2f}" for x in bl.loadavg())}')
    lines += checks.lines
    lines.append(f'{checks.passed} passed, {checks.failed} failed')
    report = '\n'.join(lines) + '\n'
    with open(os.path.join(out, 'report.txt'), 'w') as f:
        f.write(report)
    print(report, end='')
    return 1 if checks.failed else 0


if __name__ == '__main__':
    sys.exit(main())
