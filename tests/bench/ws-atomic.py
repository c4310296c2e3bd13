#!/usr/bin/env python3
"""
ws-atomic.py: a wallpaper per workspace, frame by frame: veil against what users do today.

    tools/devroot python3 tests/bench/ws-atomic.py --build build-x [--switches 100]
        [--rounds 4] [--picture 3840x2160] [--systems a,b,c,f,d] [--out DIR]

Five systems, each on one headless 1280x720 output with pixman, three workspaces with a window
and a picture each (tests/veiltest/ws.py: the windows, the pictures, the recording and
what a frame is counted as):

  a  veil-tinywl of --build, `output * veil workspace <ws> <file> fill`.
  b  sway 1.12 with veil's series (examples/sway, built against --build as the sway suite
     builds it, in BUILD/tests/sway/work: reused when the suite has built it), the same words.
  c  the same sway with no veil wallpaper: a script follows sway's workspace events
     (`swaymsg -t subscribe -m '["workspace"]'`) and starts swaybg with the workspace's
     picture, then ends the swaybg before it (wslib.SWITCHER).
  f  the same script, but the swaybg before is ended a second after the new one started (the
     new one is drawn over it once it has decoded its picture): no frame without a picture.
  d  the same sway with no wallpaper at all: the time to the new windows without one.

--switches switches per system (100), in --rounds runs (4): each round runs every system once
with switches / rounds switches, a new compositor each time, in an order that turns each round
(a b c f d, b c f d a, ...: interleaved, so that a drift of the machine lands on none of them).
The pictures are noise around a colour of their own, --picture in size (3840x2160: the 4K
pictures users call "noticeably slow" in a scripted switch), made once in BUILD/bench/ws-media.

First, once in each compositor, the recorder itself: a window that draws a counter at every
frame callback (solid-window --count) must be seen at every value, 300 frames.

Printed: per system the frames recorded, the frames showing a window over another workspace's
picture (mixed), over no picture (bare), the frames the recorder may have missed (a copy asked
for a period or more after the frame before; frame-record.c says why), and the times from the
`workspace` command's send to the commit of the first frame with the new windows and to the
first with the new picture too (medians and p95); the load average at each run's start.
"""
import argparse
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import veiltest as vt  # noqa: E402
from veiltest import ws  # noqa: E402

SYSTEMS = {
    'a': ('veil-tinywl, veil', 'tinywl', 'veil'),
    'b': ('sway, veil', 'sway', 'veil'),
    'c': ('sway, swaybg script', 'sway', 'swaybg'),
    'd': ('sway, no wallpaper', 'sway', 'none'),
    'f': ('sway, swaybg script 2', 'sway', 'swaybg-keep'),
    # The control (not in the default --systems): veil set per output after each switch.
    'e': ('sway, veil after switch', 'sway', 'veil-after'),
}


def build_sway(build, sanitize):
    """The sway suite's patched sway (tests/sway/test-sway.py builds it; reused when fresh)."""
    spec = importlib.util.spec_from_file_location(
        'test_sway', os.path.join(ROOT, 'tests', 'sway', 'test-sway.py'))
    ts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ts)
    args = argparse.Namespace(series=os.path.join(ROOT, 'examples', 'sway'),
                              veil_build=build, sanitize=sanitize,
                              workdir=os.path.join(build, 'tests', 'sway', 'work'),
                              sources=os.path.join(ROOT, '..', 'shared', 'sources'))
    logs = os.path.join(args.workdir, 'logs')
    os.makedirs(logs, exist_ok=True)
    kind, source, _ = ts.find_source(args, logs)
    return os.path.join(ts.build_sway(args, kind, source, logs), 'sway', 'sway')


def loadavg():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def one_run(t, key, paths, tools, pictures, switches, rnd):
    name, comp, mode = SYSTEMS[key]
    t.compositor_path = paths[comp]
    tag = f'-{key}{rnd}'
    outdir = t.path(f'{key}{rnd}')
    os.makedirs(outdir, exist_ok=True)
    config = None
    if comp == 'sway':
        config = ws.sway_config(os.path.join(outdir, 'config'))
    load = loadavg()
    with t.compositor(outputs=1, config=config, name=f'compositor{tag}') as c:
        run = ws.Run(c, mode, pictures, tools, outdir, tag)
        try:
            run.setup()
            for _ in range(switches):
                run.switch()
        finally:
            end = run.stop()
        s = run.summary()
    s['load'] = load
    s['end'] = end
    bl.say(f'# round {rnd + 1} {key} ({name}): {s["switches"]} switches, {s["frames"]} frames, '
           f'mixed {s["mixed"]} ({s["mixed_ms"]:.0f} ms on screen), bare {s["bare"]} '
           f'({s["bare_ms"]:.0f} ms), maybe missed {s["blind"]}, unsettled '
           f'{s["unsettled"]}; windows {fmt_ms(s["window_ms"])}, picture '
           f'{fmt_ms(s["picture_ms"])}; load {load}')
    for e in s['examples'][:2]:
        bl.say(f'#   {e}')
    return s


def fmt_ms(v, q=None):
    if not v:
        return '-'
    if q is None:
        return f'{bl.median(v):.1f} ms'
    return f'{bl.percentile(v, q):.1f}'


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    p.add_argument('--build', default=bl.default_build(), help="veil's build directory")
    p.add_argument('--switches', type=int, default=100)
    p.add_argument('--rounds', type=int, default=4)
    p.add_argument('--picture', default='3840x2160')
    p.add_argument('--systems', default='a,b,c,f,d')
    p.add_argument('--sanitize', default='', help="the build's b_sanitize (the sway build's)")
    p.add_argument('--out', help='logs (default BUILD/bench/ws-atomic)')
    a = p.parse_args()
    build = os.path.abspath(a.build)
    keys = [k for k in a.systems.split(',') if k]
    if not keys or any(k not in SYSTEMS for k in keys):
        p.error(f'--systems: some of {",".join(SYSTEMS)}')
    pw, ph = (int(v) for v in a.picture.split('x'))
    out = os.path.abspath(a.out or os.path.join(build, 'bench', 'ws-atomic'))
    media = os.path.join(build, 'bench', 'ws-media')
    os.makedirs(media, exist_ok=True)

    paths = {'tinywl': bl.compositor_path(build)}
    if any(SYSTEMS[k][1] == 'sway' for k in keys):
        paths['sway'] = build_sway(build, a.sanitize)
    tools = {'frame-record': os.path.join(build, 'tests', 'tools', 'frame-record'),
             'solid-window': os.path.join(build, 'tests', 'tools', 'solid-window')}
    sys.argv = [sys.argv[0], '--compositor', paths['tinywl'], '--outdir', out]
    t = vt.Test('ws-atomic-bench')
    pictures = ws.make_pictures(media, (pw, ph))

    # The recorder itself, once in each compositor: does it see every frame?
    checks = {}
    for comp in sorted({SYSTEMS[k][1] for k in keys}):
        t.compositor_path = paths[comp]
        outdir = t.path(f'recorder-{comp}')
        os.makedirs(outdir, exist_ok=True)
        config = ws.sway_config(os.path.join(outdir, 'config')) if comp == 'sway' else None
        with t.compositor(outputs=1, config=config, name=f'recorder-{comp}') as c:
            try:
                n, gaps, repeats, maybe = ws.recorder_sees_every_frame(c, tools, outdir, 300)
            except vt.Failure as e:
                t.fail(f'the recorder check in {comp}', str(e))
                continue
        checks[comp] = (n, len(gaps), repeats)
        t.check(not gaps and not repeats,
                f'{comp}: the recorder saw {n} frames of a window drawing a counter at every '
                f'frame callback, {len(gaps)} gaps, {repeats} repeats')

    per_round = [a.switches // a.rounds + (1 if r < a.switches % a.rounds else 0)
                 for r in range(a.rounds)]
    results = {k: [] for k in keys}
    for rnd, n in enumerate(per_round):
        order = keys[rnd % len(keys):] + keys[:rnd % len(keys)]
        for key in order:
            try:
                results[key].append(one_run(t, key, paths, tools, pictures, n, rnd))
            except vt.Failure as e:
                t.fail(f'round {rnd + 1}, {key}', str(e))

    bl.say('')
    bl.say(f'# {a.switches} switches per system between 3 workspaces, {a.rounds} rounds '
           f'interleaved; pictures {pw}x{ph}; output 1280x720 headless, pixman')
    head = (f'{"system":<24} {"switches":>8} {"frames":>6} {"mixed":>5} {"(ms)":>6} '
            f'{"bare":>5} {"(ms)":>6} {"missed?":>7} {"windows ms med/p95":>19} '
            f'{"picture ms med/p95":>19}')
    bl.say(head)
    table = {}
    for key in keys:
        rs = results[key]
        if not rs:
            bl.say(f'{key} {SYSTEMS[key][0]:<22} (no run finished)')
            continue
        tot = {f: sum(r[f] for r in rs)
               for f in ('switches', 'frames', 'mixed', 'bare', 'blind', 'unsettled',
                         'mixed_ms', 'bare_ms')}
        win = [v for r in rs for v in r['window_ms']]
        pic = [v for r in rs for v in r['picture_ms']]
        table[key] = dict(tot, window_ms=win, picture_ms=pic,
                          load=[r['load'] for r in rs])
        if SYSTEMS[key][2] == 'none':
            # No wallpaper: every frame is "bare", nothing to count.
            counts = f'{"-":>5} {"-":>6} {"-":>5} {"-":>6}'
        else:
            counts = (f'{tot["mixed"]:>5} {tot["mixed_ms"]:>6.0f} {tot["bare"]:>5} '
                      f'{tot["bare_ms"]:>6.0f}')
        bl.say(f'{key} {SYSTEMS[key][0]:<22} {tot["switches"]:>8} {tot["frames"]:>6} '
               f'{counts} {tot["blind"]:>7} '
               f'{fmt_ms(win, 50):>9}/{fmt_ms(win, 95):>9} '
               f'{fmt_ms(pic, 50):>9}/{fmt_ms(pic, 95):>9}')
        if tot['unsettled']:
            bl.say(f'  {tot["unsettled"]} switches never showed the new window over its '
                   f'picture within {ws.SETTLE_TIMEOUT:.0f} s')
    bl.say('# the recorder, in each compositor: ' + '; '.join(
        f'{comp}: {n} frames of a counter, {g} gaps, {r} repeats'
        for comp, (n, g, r) in checks.items()))
    bl.say(f'# load averages at each run\'s start: ' + '; '.join(
        f'{k}: {", ".join(v["load"])}' for k, v in table.items()))
    with open(t.path('results.json'), 'w') as f:
        json.dump({'switches': a.switches, 'rounds': a.rounds, 'picture': a.picture,
                   'systems': {k: dict(v, name=SYSTEMS[k][0]) for k, v in table.items()}},
                  f, indent=1)
    for key in keys:
        if key in table and SYSTEMS[key][2] == 'veil':
            t.check(table[key]['mixed'] == 0 and table[key]['bare'] == 0,
                    f'{key} ({SYSTEMS[key][0]}): no frame mixes two workspaces',
                    f'{table[key]["mixed"]} mixed, {table[key]["bare"]} bare')
    t.finish()


if __name__ == '__main__':
    main()
