#!/usr/bin/env python3
"""
A wallpaper per workspace, on two outputs of veil-tinywl (headless, pixman), driven by the real
swaymsg (`output ... veil workspace <ws> ...`, `workspace <name>`, `rename workspace`) and
veilctl (-W), seen with grim.

A real window (GStreamer's waylandsink, a yellow 160x120 rectangle at the output's top left)
lives on workspace 1. Each switch is followed at once by a screenshot, with no wait: the frame
that shows the new workspace's windows must show its wallpaper, exactly, since veil changes its
nodes within the compositor's switch. The pictures are flat colours, so each screenshot is
compared with the expected picture pixel for pixel (numpy arrays built here, not by veil).

Also: the precedence of output+workspace, *+workspace, output, *; `veil workspace <ws> off`;
a missing file (refused, naming the file and the workspace) and a truncated one (fails while
decoding: the workspace falls back to the output's setting); a rename followed; the slide that
follows the direction of a switch; and the budget of decoded pictures (the neighbours of the
shown workspace decoded, far ones not).
"""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('workspace')
OUT, OTHER = 'HEADLESS-1', 'HEADLESS-2'
W, H = 640, 360
WIN_W, WIN_H = 160, 120
YELLOW = (250, 220, 20)
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media

COLOURS = {
    'base': (90, 90, 90),
    'red': (200, 30, 40),
    'green': (30, 170, 60),
    'blue': (30, 60, 200),
    'own': (140, 60, 160),
}


def flat(color):
    return np.broadcast_to(np.array(color, np.uint8), (H, W, 3)).copy()


def with_window(color):
    img = flat(color)
    img[:WIN_H, :WIN_W] = YELLOW
    return img


png = {name: vt.make_png(os.path.join(media, f'{name}.png'), flat(rgb))
       for name, rgb in COLOURS.items()}
# Ten workspaces' pictures for the budget, each its own colour.
many = {n: vt.make_png(os.path.join(media, f'ws{n}.png'), flat((20 * n % 256, 100, 250 - n)))
        for n in range(10, 20)}
# A PNG whose header is whole and whose pixels are cut off: it fails while decoding.
whole = open(png['blue'], 'rb').read()
truncated = os.path.join(media, 'truncated.png')
with open(truncated, 'wb') as f:
    f.write(whole[:len(whole) // 2])


def set_ok(c, command):
    ok, err = c.msg(command)
    t.check(ok, command, err)


def workspaces(c):
    return {w['name']: w for w in c.query('get_workspaces')}


def switch_and_see(c, ws, expected, what):
    """Switches the focused output (OUT) to ws and takes the very next screenshot."""
    ok, err = c.msg(f'workspace {ws}')
    t.check(ok, f'workspace {ws}', err)
    t.compare(vt.grab(c, OUT), expected, what, **EXACT)


with t.compositor(outputs=2) as c:
    with t.case('setup'):
        for name in (OUT, OTHER):
            set_ok(c, f'output {name} resolution {W}x{H}')
            c.wait_mode(name, W, H)
        # The pointer stays on OUT: it is the focused output.
        set_ok(c, f'output * veil {png["base"]}')
        set_ok(c, f'output * veil workspace 1 {png["red"]}')
        set_ok(c, f'output * veil workspace 2 {png["green"]}')
        c.wait_veil(OUT, file=png['red'])
        c.wait_veil(OTHER, file=png['green'])
        ws = workspaces(c)
        t.check(ws.get('1', {}).get('output') == OUT and ws['1'].get('visible') and
                ws.get('2', {}).get('output') == OTHER,
                'get_workspaces: 1 on the first output, 2 on the second', str(ws))
        v = c.veil(OUT)
        t.check(v.get('workspace') == '1' and v.get('setting_workspace') == '1' and
                v.get('setting') == '*', 'status: workspace 1 shown, its setting', str(v))
        listed = v.get('workspaces') or {}
        t.check(set(listed) == {'1', '2'} and listed['1'].get('file') == png['red'] and
                listed['2'].get('setting') == '*',
                'status: the workspace settings that apply to the output', str(listed))

    with t.case('window'):
        log = t.path('window.log')
        with vt.window_client(c, log, YELLOW, WIN_W, WIN_H) as client:
            c.wait_until(lambda: vt.grab(c, OUT)[5, 5].tolist() == list(YELLOW),
                         'the window shows on workspace 1')
            t.compare(vt.grab(c, OUT), with_window(COLOURS['red']), 'ws1-window', **EXACT)
            # Every switch, seen in the first screenshot after it: windows and wallpaper agree.
            for i in range(6):
                switch_and_see(c, 3, flat(COLOURS['base']), f'switch-{i}-to-3')
                switch_and_see(c, 1, with_window(COLOURS['red']), f'switch-{i}-to-1')
            t.check(client.poll() is None, 'the window client is still running')
        v = c.veil(OUT)
        t.check(v.get('workspace') == '1', 'back on workspace 1', str(v))

    with t.case('precedence'):
        set_ok(c, f'output * veil workspace 4 {png["green"]}')
        set_ok(c, f'output {OUT} veil workspace 4 {png["blue"]}')
        # From 3, workspace 4 is a neighbour: its picture is decoded before the switch.
        switch_and_see(c, 3, flat(COLOURS['base']), 'to-3')
        c.wait_until(lambda: (c.veil(OUT).get('workspaces') or {}).get('4', {}).get('decoded'),
                     'workspace 4 decoded, a neighbour of 3', timeout=30)
        switch_and_see(c, 4, flat(COLOURS['blue']), 'output+workspace-first')
        v = c.veil(OUT)
        t.check(v.get('setting') == OUT and v.get('setting_workspace') == '4',
                'status: the output\'s own setting for workspace 4', str(v))
        set_ok(c, f'output {OUT} veil workspace 4 off')
        c.wait_veil(OUT, file=png['green'])
        t.compare(vt.grab(c, OUT), flat(COLOURS['green']), 'star+workspace-next', **EXACT)
        set_ok(c, f'output * veil workspace 4 off')
        c.wait_veil(OUT, file=png['base'])
        set_ok(c, f'output {OUT} veil {png["own"]}')
        c.wait_veil(OUT, file=png['own'])
        t.compare(vt.grab(c, OUT), flat(COLOURS['own']), 'output-before-star', **EXACT)
        switch_and_see(c, 1, flat(COLOURS['red']), 'workspace-before-output')
        set_ok(c, f'output {OUT} veil off')
        switch_and_see(c, 4, flat((0, 0, 0)), 'output-off-shows-nothing')
        set_ok(c, f'output {OUT} veil {png["base"]}')
        c.wait_veil(OUT, file=png['base'])

    with t.case('bad input'):
        before = vt.grab(c, OUT)
        missing = os.path.join(media, 'no-such-file.png')
        ok, err = c.msg(f'output * veil workspace 5 {missing}')
        t.check(not ok and 'no-such-file.png' in err and "'5'" in err,
                'a missing file is refused, naming the file and the workspace', err)
        t.compare(vt.grab(c, OUT), before, 'bad-file-changes-nothing', **EXACT)
        switch_and_see(c, 5, flat(COLOURS['base']), 'missing-falls-back')
        ok, err = c.msg('output * veil workspace "" x.png')
        t.check(not ok and 'workspace' in err.lower(), 'an empty workspace name is refused',
                err)
        set_ok(c, f'output * veil workspace 6 {truncated}')
        switch_and_see(c, 6, flat(COLOURS['base']), 'truncated-keeps-picture')
        c.wait_until(lambda: (c.veil(OUT).get('workspaces') or {}).get('6', {}).get('failed'),
                     'the truncated picture fails', timeout=30)
        v = c.veil(OUT)
        t.check('truncated.png' in (v.get('error') or ''),
                'the status\'s error names the file', str(v.get('error')))
        t.check(v.get('setting_workspace') is None and v.get('file') == png['base'],
                'the workspace falls back to the output\'s setting', str(v))
        t.compare(vt.grab(c, OUT), flat(COLOURS['base']), 'truncated-falls-back', **EXACT)
        t.check(c.responsive(), 'the compositor is still responsive')

    with t.case('rename'):
        switch_and_see(c, 1, flat(COLOURS['red']), 'before-rename')
        set_ok(c, 'rename workspace 1 to one')
        v = c.veil(OUT)
        t.check(v.get('workspace') == 'one' and v.get('setting_workspace') == 'one' and
                'one' in (v.get('workspaces') or {}),
                'the setting follows the renamed workspace', str(v))
        t.compare(vt.grab(c, OUT), flat(COLOURS['red']), 'after-rename', **EXACT)
        switch_and_see(c, 3, flat(COLOURS['base']), 'rename-away')
        switch_and_see(c, 'one', flat(COLOURS['red']), 'rename-back')

    with t.case('moved to another output'):
        set_ok(c, f'move workspace to output {OTHER}')
        t.compare(vt.grab(c, OTHER), flat(COLOURS['red']), 'moved-shows-on-other', **EXACT)
        t.compare(vt.grab(c, OUT), flat(COLOURS['base']), 'left-shows-new', **EXACT)
        ws = workspaces(c)
        t.check(ws.get('one', {}).get('output') == OTHER and
                c.veil(OTHER).get('workspace') == 'one' and c.veil(OUT).get('workspace') != 'one',
                'the workspace and its wallpaper follow the move', str(ws))
        set_ok(c, f'focus output {OTHER}')
        set_ok(c, f'move workspace to output {OUT}')
        set_ok(c, f'focus output {OUT}')
        t.compare(vt.grab(c, OUT), flat(COLOURS['red']), 'moved-back', **EXACT)
        t.compare(vt.grab(c, OTHER), flat(COLOURS['green']), 'other-shows-its-own-again',
                  **EXACT)

    with t.case('slide follows the switch'):
        set_ok(c, f'output * veil workspace 7 {png["green"]} transition slide 4000')
        for frm, side in ((3, 'right'), (8, 'left')):
            switch_and_see(c, frm, flat(COLOURS['base']), f'slide-from-{frm}')
            ok, err = c.msg('workspace 7')
            tr = c.veil(OUT).get('transition') or {}
            t.check(tr.get('kind') == 'slide' and tr.get('from') == side,
                    f'from workspace {frm}, workspace 7 slides in from the {side}', str(tr))
            c.wait_until(lambda: c.veil(OUT).get('transition') is None,
                         'the slide ends', timeout=30)
        set_ok(c, f'output * veil workspace 7 {png["green"]} transition slide 300 from top')
        switch_and_see(c, 3, flat(COLOURS['base']), 'slide-from-3-top')
        c.msg('workspace 7')
        tr = c.veil(OUT).get('transition') or {}
        t.check(tr.get('from') == 'top', '`from` given: the slide keeps its side', str(tr))
        c.wait_until(lambda: c.veil(OUT).get('transition') is None, 'the slide ends',
                     timeout=30)

    with t.case('budget'):
        for n, path in many.items():
            set_ok(c, f'output * veil workspace {n} {path}')
        # 14 was never near: it loads now, the old picture staying meanwhile.
        set_ok(c, 'workspace 14')
        c.wait_veil(OUT, file=many[14])
        t.compare(vt.grab(c, OUT), vt.read_image(many[14]), 'ws14', **EXACT)

        def decoded():
            listed = c.veil(OUT).get('workspaces') or {}
            return {int(k) for k, w in listed.items() if k.isdigit() and int(k) >= 10 and
                    w.get('decoded')}
        c.wait_until(lambda: {13, 15} <= decoded(), 'the neighbours of 14 decoded', timeout=60)
        d = decoded()
        # 14 shown, 13 and 15 its neighbours, and the latest shown (7, 3, one) within 3.
        t.check(d <= {13, 14, 15} and 10 not in d and 19 not in d,
                'far workspaces are not decoded (3 pictures kept besides the shown one)',
                str(sorted(d)))
        # A neighbour shows in the very first frame after the switch.
        switch_and_see(c, 15, vt.read_image(many[15]), 'ws15-at-once')
        # A far one: the old picture stays until the new one is ready, then it shows.
        ok, err = c.msg('workspace 10')
        first = vt.grab(c, OUT)
        t.check(np.array_equal(first, vt.read_image(many[15])) or
                np.array_equal(first, vt.read_image(many[10])),
                'a far workspace shows the previous picture or its own, never nothing')
        c.wait_veil(OUT, file=many[10])
        t.compare(vt.grab(c, OUT), vt.read_image(many[10]), 'ws10-loaded', **EXACT)

    with t.case('a video on two workspaces'):
        clip = vt.make_colour_clip(
            os.path.join(media, 'clip.mp4'), [('red', (255, 0, 0)), ('blue', (0, 0, 255))], 10,
            1, ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'])
        set_ok(c, f'output * veil workspace 20 {clip}')
        set_ok(c, f'output * veil workspace 21 {clip}')
        set_ok(c, 'workspace 20')
        c.wait_veil(OUT, file=clip)
        c.wait_until(lambda: ((c.veil(OUT).get('source') or {}).get('frames') or 0) >= 10,
                     'the video plays on workspace 20', timeout=60)
        before = (c.veil(OUT).get('source') or {}).get('frames')
        ws21 = (c.veil(OUT).get('workspaces') or {}).get('21') or {}
        t.check(ws21.get('decoded') and ws21.get('kind') == 'video',
                'workspace 21, a neighbour with the same file, is ready', str(ws21))
        set_ok(c, 'workspace 21')
        v = c.veil(OUT)
        after = (v.get('source') or {}).get('frames')
        t.check(v.get('setting_workspace') == '21' and v.get('file') == clip and
                after is not None and after >= before,
                'workspace 21 shows the same decoder, its frames counted on (not restarted)',
                f'{before} -> {after}')

    with t.case('veilctl -W'):
        rc, err = c.veilctl('-o', OUT, '-W', '3', 'set', png['blue'])
        t.check(rc == 0, 'veilctl -o OUT -W 3 set FILE', err)
        set_ok(c, 'workspace 3')
        c.wait_until(lambda: np.array_equal(vt.grab(c, OUT), flat(COLOURS['blue'])),
                     'workspace 3 shows the picture veilctl gave it', timeout=30)
        v = c.veil(OUT)
        t.check(v.get('setting') == OUT and v.get('setting_workspace') == '3',
                'veilctl\'s setting is the output\'s for workspace 3', str(v))
        rc, err = c.veilctl('-o', OUT, '-W', '3', 'off')
        t.check(rc == 0, 'veilctl -o OUT -W 3 off', err)
        c.wait_veil(OUT, file=png['base'])
        t.compare(vt.grab(c, OUT), flat(COLOURS['base']), 'veilctl-W-off', **EXACT)
        rc, err = c.veilctl('-W', '3', 'pause')
        t.check(rc == 1 and '-W' in err, 'veilctl refuses -W with pause', err)

    t.check(c.responsive(), 'the compositor is still responsive')

t.finish()
