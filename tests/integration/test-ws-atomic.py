#!/usr/bin/env python3
"""
A wallpaper per workspace, switched in the same frame as the workspace: veil-tinywl with three
workspaces, each with a window of its own colour and a picture of its own (`output * veil
workspace <ws> <file>`), recorded frame by frame (tests/tools/frame-record: every frame the
compositor commits) across 20 switches (veiltest/ws.py says how). First the recorder itself: a
window that draws a counter at every frame callback must be seen at every value. Then the control:
the same switches with the output's wallpaper set by a command after each switch (veil without
its workspace words, as a client tool would) must be seen mixed. Fails when any recorded frame
of veil's workspace switches shows a workspace's window over another workspace's picture, or
over no picture at all; when a switch never shows the new workspace's window over its picture;
when the recorder may have missed more than a few frames (then the count would say little).

tests/bench/ws-atomic.py runs the same with 100 switches against sway: veil's words there, and a
script around swaybg (docs/measurements.md).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import veiltest as vt  # noqa: E402
from veiltest import ws  # noqa: E402

SWITCHES = 20
CONTROL_SWITCHES = 6

t = vt.Test('ws-atomic')
tools = {'frame-record': os.environ.get('VEIL_TEST_FRAME_RECORD'),
         'solid-window': os.environ.get('VEIL_TEST_SOLID_WINDOW')}
for name, path in tools.items():
    if not path or not os.access(path, os.X_OK):
        t.fail(f'{name} is built', f'{path!r} (VEIL_TEST_FRAME_RECORD, VEIL_TEST_SOLID_WINDOW '
               'are set by meson)')
        t.finish()

pictures = ws.make_pictures(t.media, (ws.W, ws.H))
with t.compositor(outputs=1) as c:
    run = ws.Run(c, 'veil', pictures, tools, t.outdir)
    with t.case('the recorder sees every frame'):
        ws.check_recorder(t, c, tools, t.outdir)
    ready = False
    try:
        with t.case('setup'):
            points = run.setup()
            ready = t.check(True, f'three workspaces with their windows; recording at {points}')
        if ready:
            with t.case('switches'):
                ws.check_switches(t, run, SWITCHES)
    finally:
        end = run.stop()
    t.check(end is not None and end.get('failed', 1) == 0,
            'frame-record ended cleanly with no failed copy', repr(end))

# The control: the same recording and counting see a switch that is not atomic.
with t.compositor(outputs=1, name='control') as c:
    run = ws.Run(c, 'veil-after', pictures, tools, t.outdir, '-control')
    try:
        with t.case('control'):
            run.setup()
            for _ in range(CONTROL_SWITCHES):
                run.switch()
            s = run.summary()
            t.check(s['mixed'] > 0 and s['unsettled'] == 0,
                    f'with the wallpaper set after each switch, {s["mixed"]} of {s["frames"]} '
                    f'frames are seen mixed ({s["mixed_ms"]:.0f} ms on screen in '
                    f'{CONTROL_SWITCHES} switches)', f'{s["unsettled"]} switches unsettled')
    finally:
        run.stop()
t.finish()
