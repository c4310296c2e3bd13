#!/usr/bin/env python3
"""
xray.py [--seconds S]: what xray (issue 41) costs while a video plays.

    tools/devroot python3 tests/bench/xray.py --compositor build/examples/veil-tinywl \\
        --window build/tests/tools/solid-window --outdir /tmp/xray-bench

veil-tinywl --xray headless (pixman, one 1920x1080 output) plays a 1080p30 H.264 clip (ffmpeg's
testsrc2, made here) with `fill`; a translucent window of solid-window (--alpha 80, 640x400)
sits over it. For each of three runs (no window; the window with `xray off`; with `xray on`)
it counts, over --seconds (10) after 3 s of warm-up: the CPU of the compositor and its
veil-decoder processes, the main thread's wake-ups, and with xray on the blurred copies made (the
status's xray.blurs: a video's at most 5 a second) and the last one's worker time. The status is
read only before and after each window of time. Then for --seconds more, a probe (a client
of the IPC socket sending GET_VERSION every 5 ms) gives the longest and p99 round trip: how long
the compositor left a client waiting.

--before LIBDIR: an A/B run of two libveils in one run, interleaved: each run once with
LD_LIBRARY_PATH=LIBDIR (a copy of an older build's libveil.so.*, under the same build root so
that it runs that build's veil-decoder) and once without, --rounds (2) times, 'no window' and
'xray on' only. Each line also gives the load average of the minute before it.
"""

import argparse
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
from veiltest import proc  # noqa: E402
from veiltest.ipc import Ipc  # noqa: E402

OUT = 'HEADLESS-1'


def tree_cpu(pid):
    return sum(proc.cpu_seconds(p) for p in [pid] + proc.descendants(pid))


class Probe:
    """GET_VERSION (i3-ipc type 7) every 5 ms on a connection of its own: the round trips."""

    def __init__(self, sock):
        self.ipc = Ipc(sock)
        self.trips = []
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping:
            t0 = time.monotonic()
            self.ipc.exchange(7)
            trip = time.monotonic() - t0
            self.trips.append(trip)
            time.sleep(max(0.0, 0.005 - trip))

    def stop(self):
        self.stopping = True
        self.thread.join(timeout=10)
        self.ipc.close()
        return self.trips


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--compositor', required=True)
    ap.add_argument('--window', required=True)
    ap.add_argument('--outdir', required=True)
    ap.add_argument('--seconds', type=float, default=10.0)
    ap.add_argument('--before', help='a directory with the libveil to compare against')
    ap.add_argument('--rounds', type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    clip = os.path.join(args.outdir, 'testsrc2-1080p30.mp4')
    if not os.path.exists(clip):
        subprocess.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i',
                        'testsrc2=size=1920x1080:rate=30', '-t', '10', '-c:v', 'libx264',
                        '-pix_fmt', 'yuv420p', clip], check=True)
    runs = [(run, None) for run in ('no window', 'xray off', 'xray on')]
    if args.before:
        libdir = os.path.abspath(args.before)
        runs = [(run, lib) for _ in range(args.rounds) for run in ('no window', 'xray on')
                for lib in (libdir, None)]
    for run, lib in runs:
        env = {'LD_LIBRARY_PATH': lib} if lib else None
        label = f'{run} ({"before" if lib else "after"})' if args.before else run
        comp = bl.Compositor('veil', args.compositor, args.outdir, size=(1920, 1080),
                             args=['--xray'], name=run.replace(' ', '-'), env=env)
        comp.start()
        win = None
        try:
            if args.before:
                with open(f'/proc/{comp.pid}/maps') as f:
                    maps = [line.split()[-1] for line in f if 'libveil.so' in line]
                if not maps or (lib is not None) != maps[0].startswith(lib or '//'):
                    raise SystemExit(f'{label}: libveil mapped from {maps[:1]}')
            comp.msg(f'output {OUT} veil {clip} fill')
            bl.wait_veil_shown(comp)
            if run != 'no window':
                win = subprocess.Popen([args.window, '--color', '2040e0', '--alpha', '80',
                                        '--size', '640x400'], env=comp.client_env,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                win.stdout.readline()
                comp.msg('move position 300 200')
            if run == 'xray on':
                comp.msg('output * veil xray on')
            time.sleep(3)
            before = comp.veil(OUT).get('xray') or {}
            cpu0, wake0 = tree_cpu(comp.pid), proc.wakeups(comp.pid)
            time.sleep(args.seconds)
            cpu1, wake1 = tree_cpu(comp.pid), proc.wakeups(comp.pid)
            after = comp.veil(OUT).get('xray') or {}
            # The longest the compositor left a client waiting, apart from the counts above.
            probe = Probe(comp.swaysock)
            time.sleep(args.seconds)
            trips = sorted(probe.stop())
            blurs = (after.get('blurs', 0) - before.get('blurs', 0)) / args.seconds
            cpu = 100 * (cpu1 - cpu0) / args.seconds
            print(f'{label:10}: load {os.getloadavg()[0]:.1f}, CPU {cpu:5.1f} % of a core '
                  f'(compositor + veil-decoder), main thread {(wake1 - wake0) / args.seconds:5.1f}'
                  f' wake-ups/s, {blurs:.1f} blurs/s, last blur {after.get("worker_ms", 0):.1f} '
                  f'ms, copy {after.get("size")}; IPC round trip p99 '
                  f'{1e3 * trips[int(0.99 * (len(trips) - 1))]:.1f} ms, longest '
                  f'{1e3 * trips[-1]:.1f} ms', flush=True)
        finally:
            if win is not None:
                win.terminate()
                win.wait()
            comp.stop()


if __name__ == '__main__':
    main()
