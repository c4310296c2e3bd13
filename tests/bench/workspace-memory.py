#!/usr/bin/env python3
"""
workspace-memory.py: the memory of ten workspaces with 4K pictures on two 4K outputs, for a few
budgets of decoded workspace pictures (veil-tinywl --workspace-pictures, veil_scene_options.
workspace_pictures), the budgets interleaved round by round.

Each run is a fresh veil-tinywl (headless, pixman, two 3840x2160 outputs). It sets `output *
veil <base>` and `output * veil workspace <n> <picture n>` for n = 1..10 (distinct 3840x2160
PNGs made here), then walks both outputs through the ten workspaces (output 1 up, output 2
down), waiting at each switch until the new picture shows. Measured, for the whole process
tree (the compositor and its veil-decoder helpers, PSS so that frames shared through memfds
count once): before any wallpaper, after the settings, and the peak and the end of the walk;
and the number of workspace pictures decoded at the end (the status's workspaces[].decoded).

    tools/devroot python3 tests/bench/workspace-memory.py --build build --rounds 2 \\
        --budget 3 --budget 0 --budget 10
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402

W, H = 3840, 2160
N = 10
OUTS = ('HEADLESS-1', 'HEADLESS-2')


def make_pictures(tmp):
    """Ten 4K PNGs of different content (a test pattern in ten hues), and a base one."""
    paths = {}
    for n in range(N + 1):
        path = tmp.path(f'ws{n}.png')
        subprocess.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i',
                        f'testsrc2=size={W}x{H}:rate=1', '-vf', f'hue=h={n * 36}',
                        '-frames:v', '1', path], check=True)
        paths[n] = path
    return paths


def tree_pss_mib(comp):
    return sum(bl.pss_kib(pid) for pid in comp.tree_pids()) / 1024.0


def shows(comp, out, path):
    v = comp.veil_status().get(out) or {}
    return v.get('state') == 'shown' and v.get('file') == path


def one(binary, outdir, pictures, budget):
    args = ['--workspace-pictures', str(budget)]
    comp = bl.Compositor('veil', binary, outdir, len(OUTS), (W, H), args=args,
                         name=f'veil-budget{budget}')
    comp.start()
    try:
        empty = tree_pss_mib(comp)
        comp.ipc.must(f'output * veil {bl.quote(pictures[0])}')
        for n in range(1, N + 1):
            comp.ipc.must(f'output * veil workspace {n} {bl.quote(pictures[n])}')
        bl.wait_until(lambda: all(shows(comp, o, pictures[1 if o == OUTS[0] else 2])
                                  for o in OUTS), 'the first two workspaces shown')
        set_up = tree_pss_mib(comp)
        peak = set_up
        for step in range(N):
            a, b = 1 + step, N - step
            for out, ws in ((OUTS[0], a), (OUTS[1], b)):
                comp.ipc.must(f'focus output {out}')
                # A workspace the other output shows is focused there (as sway does): skip.
                if (comp.veil_status().get(OUTS[1] if out == OUTS[0] else OUTS[0]) or {}).get(
                        'workspace') == str(ws):
                    continue
                comp.ipc.must(f'workspace {ws}')
                bl.wait_until(lambda: shows(comp, out, pictures[ws]),
                              f'{out} shows workspace {ws}')
            peak = max(peak, tree_pss_mib(comp))
        time.sleep(1.0)
        end = tree_pss_mib(comp)
        status = comp.veil_status()
        decoded = set()
        for out in OUTS:
            for name, w in ((status.get(out) or {}).get('workspaces') or {}).items():
                if w.get('decoded'):
                    decoded.add(name)
        helpers = len(comp.tree_pids()) - 1
    finally:
        comp.stop()
    return {'empty': empty, 'set_up': set_up, 'peak': peak, 'end': end,
            'decoded': len(decoded), 'helpers': helpers}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default='build')
    ap.add_argument('--rounds', type=int, default=2)
    ap.add_argument('--budget', type=int, action='append')
    args = ap.parse_args()
    budgets = args.budget or [3, 0, 10]
    binary = os.path.join(args.build, 'examples', 'veil-tinywl')
    bl.need('ffmpeg')
    tmp = bl.Runtime('veil-bench-wsmem')
    results = {b: [] for b in budgets}
    try:
        pictures = make_pictures(tmp)
        outdir = tmp.path('out')
        os.makedirs(outdir, exist_ok=True)
        for r in range(args.rounds):
            for b in budgets:
                res = one(binary, outdir, pictures, b)
                bl.say(f'round {r + 1} budget {b}: {res}')
                results[b].append(res)
    finally:
        tmp.remove()
    bl.say(f'\nload {bl.loadavg()}; {args.rounds} rounds, medians; PSS of the compositor and '
           f'its helpers, MiB; one 3840x2160 XRGB8888 frame is {W * H * 4 / 2**20:.1f} MiB')
    bl.say(f'{"budget":>7} {"empty":>8} {"set up":>8} {"peak":>8} {"end":>8} '
           f'{"decoded":>8} {"helpers":>8}')
    for b in budgets:
        rs = results[b]
        med = {k: bl.median([x[k] for x in rs]) for k in rs[0]}
        bl.say(f'{b:>7} {med["empty"]:>8.0f} {med["set_up"]:>8.0f} {med["peak"]:>8.0f} '
               f'{med["end"]:>8.0f} {med["decoded"]:>8.0f} {med["helpers"]:>8.0f}')


if __name__ == '__main__':
    main()
