#!/usr/bin/env python3
"""
tables.py: prints the Markdown tables of docs/measurements.md from the files the tools wrote.

    python3 tests/bench/tables.py bench DIR...      # bench.py result directories
    python3 tests/bench/tables.py compare DIR       # a compare.py result directory
    python3 tests/bench/tables.py soak DIR...       # soak.py result directories

Nothing is computed here that the tools did not print: the numbers are read back from
report.txt, samples.csv and results.json, rounded for the table.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402


def bench_table(dirs):
    print('| File | Decoder, frames as | Path | CPU mean (median) | user / sys | Busiest threads '
          '| Main thread wake-ups/s (per frame) | Frames shown/s | Dropped | RSS MiB (growth) '
          '| RssAnon MiB | Threads | fds | Others % of a core |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for d in dirs:
        rep = open(os.path.join(d, 'report.txt')).read()
        rows = bl.read_csv(os.path.join(d, 'samples.csv'))

        def grab(pattern, default='?'):
            m = re.search(pattern, rep, re.M)
            return m.group(1) if m else default
        name = grab(r'^Clip: ([^:]+):')
        dec = grab(r'^Decoder: (.*)$')
        dec = dec.replace(' (hardware: False), frames handed over as ', ', ')
        dec = re.sub(r' \(image\), kept at .*', '', dec)
        path = 'scan-out' if 'direct scan-out' in grab(r'^Path: (.*)$') else 'composited'
        cpu = bl.column(rows, 'cpu_pct')
        ticks = sum(bl.column(rows, 'ticks'))
        fps = bl.mean(bl.column(rows, 'frames_per_s'))
        wk = bl.mean(bl.column(rows, 'wakeups_per_s'))
        per = f' ({wk / fps:.2f})' if fps and fps > 0.5 else ''
        top = grab(r'^Busiest threads: (.*)$')
        top = ', '.join(top.split(', ')[:3])
        growth = grab(r'growth over the wallpaper-less compositor ([0-9.]+) MiB')
        rss = bl.median(bl.column(rows, 'rss_kib'))
        anon = bl.median(bl.column(rows, 'rss_anon_kib'))
        thr = bl.column(rows, 'threads')
        fds = bl.column(rows, 'fds')
        flagged, om, op = bl.loaded(rows)
        print(f'| {name} | {dec} | {path} | {bl.mean(cpu):.2f} % ({bl.median(cpu):.1f})'
              f'{(", %d ticks" % ticks) if ticks < 100 else ""} | '
              f'{bl.mean(bl.column(rows, "user_pct")):.1f} / '
              f'{bl.mean(bl.column(rows, "sys_pct")):.1f} | {top} | {wk:.1f}{per} | '
              f'{fps:.2f} | {sum(bl.column(rows, "dropped"))} | {rss / 1024:.1f} ({growth}) | '
              f'{anon / 1024:.1f} | {bl.range_text(min(thr), max(thr))} | '
              f'{bl.range_text(min(fds), max(fds))} | {om:.0f}'
              f'{" LOADED" if flagged else ""} |')


def compare_tables(d):
    res = json.load(open(os.path.join(d, 'results.json')))
    print(f'Run: {res["started"]} to {res.get("finished")}; load average before '
          f'{res["load_before"]}, after {res.get("load_after")}\n')
    for name, sc in res['scenarios'].items():
        runs = [m for m in sc['runs'] if 'failed' not in m]
        print(f'#### {name}\n')
        if sc.get('path'):
            print('Path: ' + '; '.join(f'{k}: {v}' for k, v in sc['path'].items()) + '\n')
        if name == 'switch':
            print('| Round | System | Command p50 / p95 ms | Frame on veil\'s nodes (status) '
                  'p50 / p95 ms | On screen (region copy) p50 / p95 ms | One grab p50 ms | '
                  'CPU ms per switch | Others % |')
            print('|---|---|---|---|---|---|---|---|')
            for m in runs:
                print(f'| {m["round"]}{" (discarded)" if "discarded" in m else ""} | '
                      f'{m["system"]} | {m["command_ms_p50"]:.1f} / {m["command_ms_p95"]:.1f}'
                      f' | {bl.fmt(m.get("status_ms_p50"))} / {bl.fmt(m.get("status_ms_p95"))}'
                      f' | {m["screen_ms_p50"]:.1f} / {m["screen_ms_p95"]:.1f} | '
                      f'{m["grab_ms_p50"]:.1f} | {m["cpu_ms_per_switch"]:.0f} | '
                      f'{m["others_mean"]:.0f}{" LOADED" if m["loaded"] else ""} |')
            print()
            continue
        print('| Round | System | CPU mean % (median) | user / sys | Server CPU | Client CPU '
              '| Main thread wake-ups/s | Frames/s | Wake-ups per frame | Server RSS MiB '
              '| Client RSS MiB | Threads | Others % |')
        print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
        for m in runs:
            srv, cli = m.get('server', {}), m.get('client', {})
            thr = '+'.join(bl.range_text(g.get('threads_min'), g.get('threads_max'))
                           for g in (srv, cli) if g)
            print(f'| {m["round"]}{" (discarded)" if "discarded" in m else ""} | '
                  f'{m["system"]} | {m["cpu_mean"]:.2f} ({m["cpu_median"]:.1f})'
                  f'{(", %d ticks" % m["ticks"]) if m["ticks"] < 100 else ""} | '
                  f'{m["user_mean"]:.1f} / {m["sys_mean"]:.1f} | '
                  f'{bl.fmt(srv.get("cpu_mean"), 2)} | {bl.fmt(cli.get("cpu_mean"), 2)} | '
                  f'{bl.fmt(srv.get("wakeups_mean"), 1)} | {bl.fmt(m.get("frames_per_s"), 2)} '
                  f'| {bl.fmt(m.get("wakeups_per_frame"), 2)} | '
                  f'{bl.fmt(bl.mib(srv.get("rss_median")))} | '
                  f'{bl.fmt(bl.mib(cli.get("rss_median")))} | {thr} | '
                  f'{m["others_mean"]:.0f}{" LOADED" if m["loaded"] else ""} |')
            if 'before' in m:
                b = m['before']
                print(f'| | (before the cover) | {b["cpu_mean"]:.2f} | | | | '
                      f'{bl.fmt(b.get("server_wakeups"), 1)} | {bl.fmt(b.get("frames_per_s"), 2)}'
                      f' | | | | | |')
        print()


def soak_table(dirs):
    for d in dirs:
        print(f'{os.path.basename(d)}:')
        for line in open(os.path.join(d, 'report.txt')):
            if line.startswith(('ok:', 'FAIL:', 'Heap', 'images', 'videos', 'Threads',
                                'CPU', 'Other', 'Decoder', 'Clip')):
                print('    ' + line.rstrip())


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ('bench', 'compare', 'soak'):
        print(__doc__)
        return 2
    what, dirs = sys.argv[1], sys.argv[2:]
    if what == 'bench':
        bench_table(dirs)
    elif what == 'compare':
        compare_tables(dirs[0])
    else:
        soak_table(dirs)
    return 0


if __name__ == '__main__':
    sys.exit(main())
