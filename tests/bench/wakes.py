#!/usr/bin/env python3
"""
wakes.py FILE: what wakes the compositor's main thread while veil shows FILE.

    tools/devroot python3 tests/bench/wakes.py build-bench/bench/clips/h264-1080p30.mp4

bench.py counts the main thread's wake-ups (voluntary context switches); this says what each
one was for. It starts veil-tinywl headless (pixman; --outputs N of --size), sets
`output * veil FILE fill`, waits until it shows, warms up (--warmup, 3 s), then traces the main
thread alone with strace for --seconds (10): every return from epoll_wait is one wake-up, and
the descriptors the thread reads (or re-arms: timerfd_settime) before it sleeps again say
why it woke. Descriptors are named
from /proc/PID/fd (eventfd, timerfd, socket, ...); libwayland runs every timer of the loop,
the headless outputs' frame timers among them, on one timerfd.

No status query runs while tracing (the frame counters are read before and after), so the
figures have no IPC wake-ups. strace slows every system call of the traced thread: the counts
are what they are, the timing is not measured here.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402


def fd_kinds(pid):
    kinds = {}
    base = f'/proc/{pid}/fd'
    for name in os.listdir(base):
        try:
            link = os.readlink(os.path.join(base, name))
        except OSError:
            continue
        m = re.match(r'anon_inode:\[?([a-z_]+)\]?', link)
        if m:
            kinds[int(name)] = m.group(1)
        elif link.startswith('socket:'):
            kinds[int(name)] = 'socket'
        elif link.startswith('pipe:'):
            kinds[int(name)] = 'pipe'
        else:
            kinds[int(name)] = os.path.basename(link)
    return kinds


# The calls that say why the main thread woke: what it read or re-armed before sleeping again.
WHY_CALLS = ('read', 'recvmsg', 'accept4', 'timerfd_settime')
SYSCALL = re.compile(r'^(?:\d+\s+)?(\w+)\((\d+)?')


def parse(trace_path):
    """Wake-ups (epoll_wait returns) and, for each, the descriptors read until the next one."""
    wakes = []
    current = None
    for line in open(trace_path, errors='replace'):
        m = SYSCALL.match(line)
        if not m:
            continue
        call, fd = m.group(1), m.group(2)
        if call in ('epoll_wait', 'epoll_pwait'):
            # A call that returned 0 timed out: libwayland waits without a timeout, so none.
            if re.search(r'=\s*0\s*$', line):
                continue
            current = set()
            wakes.append(current)
        elif current is not None and fd is not None and call in WHY_CALLS:
            current.add(int(fd))
    return wakes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument('file')
    ap.add_argument('--outputs', type=int, default=1)
    ap.add_argument('--size', default='1920x1080')
    ap.add_argument('--warmup', type=float, default=3.0)
    ap.add_argument('--seconds', type=float, default=10.0)
    ap.add_argument('--build', default=bl.default_build())
    ap.add_argument('--out', default=None)
    ap.add_argument('--shows', default=None,
                    help='the picture the status shows (a timed background\'s: not FILE)')
    args = ap.parse_args()

    bl.need('strace')
    path = os.path.abspath(args.file)
    build = os.path.abspath(args.build)
    binary = bl.compositor_path(build)
    w, _, h = args.size.lower().partition('x')
    out = args.out or os.path.join(build, 'bench',
                                   f'{bl.stamp()}-wakes-{os.path.basename(path)}')
    os.makedirs(out, exist_ok=True)
    trace = os.path.join(out, 'strace.txt')

    comp = bl.Compositor('veil', binary, out, args.outputs, (int(w), int(h)), name='veil-tinywl')
    comp.start()
    try:
        comp.ipc.must(f'output * veil {bl.quote(path)} fill')
        bl.wait_veil_shown(comp, path=os.path.abspath(args.shows) if args.shows else path)
        time.sleep(args.warmup)
        counters = bl.VeilCounters(comp)
        before = counters.read()
        kinds = fd_kinds(comp.pid)
        load_before = bl.loadavg()
        strace = subprocess.Popen(['strace', '-qq', '-p', str(comp.pid), '-o', trace,
                                   '-e', 'trace=epoll_wait,epoll_pwait,' + ','.join(WHY_CALLS)],
                                  stderr=subprocess.PIPE)
        time.sleep(args.seconds)
        strace.terminate()
        strace.wait(timeout=10)
        after = counters.read()
        kinds.update({fd: k for fd, k in fd_kinds(comp.pid).items() if fd not in kinds})
    finally:
        comp.stop()

    wakes = parse(trace)
    shown = after[0] - before[0]
    decoded = after[1] - before[1]
    # The trace starts and ends a little after the counters were read: a frame or two apart.
    by_fd = collections.Counter()
    by_set = collections.Counter()
    for fds in wakes:
        for fd in fds:
            by_fd[fd] += 1
        by_set[tuple(sorted(f'{kinds.get(fd, "?")} {fd}' for fd in fds)) or ('nothing read',)] += 1

    lines = [f'veil wakes: {os.path.basename(path)} on {args.outputs} x {args.size}, '
             f'{args.seconds:.0f} s traced ({time.strftime("%Y-%m-%d %H:%M")})',
             f'Load average before: {" ".join(f"{x:.2f}" for x in load_before)}',
             f'Frames put on the outputs: {shown} (all outputs); decoded: {decoded}',
             f'Main-thread wake-ups (epoll_wait returns): {len(wakes)}, '
             f'{len(wakes) / args.seconds:.1f} a second; '
             + (f'{len(wakes) / decoded:.2f} per decoded frame' if decoded else 'no frames'),
             '', 'Descriptors read per wake-up (each wake-up counted once):']
    for key, n in by_set.most_common():
        lines.append(f'  {n:6d}  {", ".join(key)}')
    lines += ['', 'Reads per descriptor:']
    for fd, n in by_fd.most_common():
        lines.append(f'  {n:6d}  fd {fd} ({kinds.get(fd, "?")})')
    report = '\n'.join(lines) + '\n'
    with open(os.path.join(out, 'report.txt'), 'w') as f:
        f.write(report)
    sys.stdout.write(report)
    print(f'(trace: {trace})')


if __name__ == '__main__':
    try:
        main()
    except bl.BenchError as e:
        print(f'wakes.py: {e}', file=sys.stderr)
        sys.exit(1)
