#!/usr/bin/env python3
"""
`veilctl watch` against veil-tinywl (headless, pixman), driven with the real swaymsg: across a
slideshow moved five times with `next`, `watch --current --exec CMD` runs one command for what
is shown at its start and then one per step, one at a time and in order, with VEIL_OUTPUT,
VEIL_FILE, VEIL_KIND and VEIL_EVENT right; the commands are veilctl's children, not the
compositor's, and the compositor answers while one of them is held; `watch --json` prints the
same steps, then a picture set, `off`, and an error.
"""
import json
import os
import queue
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('watch')
if not t.veilctl or not os.access(t.veilctl, os.X_OK):
    print(f'SKIP: veilctl is not built ({t.veilctl})')
    print('0 passed, 0 failed, 1 skipped')
    sys.exit(vt.SKIP)

OUT = 'HEADLESS-1'
W, H = 320, 180
media = t.media


def flat_png(path, c):
    return vt.make_png(path, np.broadcast_to(np.array(c, np.uint8), (H, W, 3)).copy())


class Lines:
    """A process's stdout, line by line, read on a thread."""

    def __init__(self, argv, env):
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.got = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip('\n'))

    def wait(self, n, what, timeout=30):
        """Until n lines came in all; returns them."""
        deadline = time.monotonic() + timeout
        while len(self.got) < n and time.monotonic() < deadline:
            try:
                self.got.append(self.lines.get(timeout=0.1))
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
        if len(self.got) < n:
            err = self.proc.stderr.read() if self.proc.poll() is not None else ''
            raise vt.Failure(f'{what}: {len(self.got)} of {n} lines: {self.got} {err}')
        return self.got[:n]

    def stop(self):
        vt.stop_process(self.proc)


def read_log(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def shown_file(c):
    s = c.veil(OUT).get('slideshow')
    return s.get('file') if isinstance(s, dict) else None


with t.compositor(outputs=1) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        d = os.path.join(media, 'walls')
        os.makedirs(d)
        for i in range(7):
            flat_png(os.path.join(d, f'w{i}.png'), (30 * i, 200 - 20 * i, 90))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(d)} fill every 1h')
        t.check(ok, 'a slideshow of 7 pictures, every hour', err)
        c.wait_until(lambda: shown_file(c) == os.path.join(d, 'w0.png') and
                     c.veil(OUT).get('file') == shown_file(c), 'the first picture')

    log = t.path('exec.log')
    gate = t.path('gate')
    # Each command writes its start, waits for the gate, writes its end: a second command
    # started before the first ended would show as two starts in a row.
    cmd = ('echo "start $VEIL_EVENT|$VEIL_OUTPUT|$VEIL_KIND|$VEIL_FILE|$PPID" >> "$LOG"; '
           'while [ ! -e "$GATE" ]; do sleep 0.02; done; echo end >> "$LOG"')
    env = dict(c.client_env, LOG=log, GATE=gate)
    watch = Lines([t.veilctl, 'watch', '--current', '--exec', cmd], env)
    jwatch = Lines([t.veilctl, 'watch', '--json', '--current'], c.client_env)
    try:
        with t.case('watch --exec across five steps'):
            first = watch.wait(1, 'the current wallpaper')
            t.check(first[0] == f'{OUT} current image {os.path.join(d, "w0.png")}',
                    'a line for what is shown at the start (--current)', str(first))
            g = json.loads(jwatch.wait(1, 'the current wallpaper, as JSON')[0])
            t.check(g['event'] == 'current' and g['file'] == os.path.join(d, 'w0.png'),
                    'watch --json --current: what is shown', str(g))
            expected = []
            for i in range(5):
                c.wait_until(lambda: (c.veil(OUT).get('slideshow') or {}).get('ahead'),
                             'the next picture decoded ahead')
                before = shown_file(c)
                ok, err = c.msg(f'output {OUT} veil next')
                t.check(ok, f'next #{i + 1}', err)
                c.wait_until(lambda: shown_file(c) != before and
                             c.veil(OUT).get('file') == shown_file(c), f'step {i + 1}')
                expected.append(shown_file(c))
            lines = watch.wait(6, 'a line per step')
            t.check(lines[1:] == [f'{OUT} step image {p}' for p in expected],
                    'veilctl prints a step line per next, in order', '\n'.join(lines))
            # All five steps are printed while the first command still waits for the gate.
            held = read_log(log)
            t.check(held == [f'start current|{OUT}|image|{os.path.join(d, "w0.png")}|'
                             f'{watch.proc.pid}'],
                    'one command runs, the others wait their turn', str(held))
            ok, err = c.msg(f'output {OUT} veil transition none')
            t.check(ok, 'the compositor answers while a command is held', err)
            with open(gate, 'w'):
                pass
            c.wait_until(lambda: read_log(log).count('end') == 6, 'six commands ran',
                         timeout=30)
            ran = read_log(log)
            t.check(ran[0::2] == [f'start {e}|{OUT}|image|{p}|{watch.proc.pid}' for e, p in
                                  [('current', os.path.join(d, 'w0.png'))] +
                                  [('step', p) for p in expected]] and
                    ran[1::2] == ['end'] * 6,
                    'six commands, one at a time, in order, with the variables, '
                    'children of veilctl', '\n'.join(ran))
            t.check(len(set(expected)) == 5, 'five different pictures', str(expected))

        with t.case('watch --json: steps, a picture, off, an error'):
            got = [json.loads(x) for x in jwatch.wait(6, 'the json steps')[1:]]
            t.check([(g['output'], g['event'], g['kind'], g['file']) for g in got] ==
                    [(OUT, 'step', 'image', p) for p in expected],
                    'the same steps as JSON', str(got))
            t.check(all(g.get('position') in range(1, 8) for g in got),
                    'each with the slideshow position', str(got))
            single = flat_png(os.path.join(media, 'single.png'), (10, 20, 30))
            ok, err = c.msg(f'output {OUT} veil {vt.quote(single)} fit #112233')
            t.check(ok, 'a picture', err)
            g = json.loads(jwatch.wait(7, 'a picture set')[6])
            t.check(g['event'] == 'shown' and g['file'] == single and g['color'] == '#112233',
                    'shown, the file and the colour', str(g))
            ok, err = c.msg(f'output {OUT} veil off')
            t.check(ok, 'off', err)
            g = json.loads(jwatch.wait(8, 'off')[7])
            t.check(g['event'] == 'off' and g['kind'] == 'off', 'off', str(g))
            bad = os.path.join(media, 'bad.png')
            vt.make_corrupt_png(bad, single)
            c.msg(f'output {OUT} veil {vt.quote(bad)} fill')
            g = json.loads(jwatch.wait(9, 'an error')[8])
            t.check(g['event'] == 'error' and 'bad.png' in (g['error'] or ''),
                    'an error naming the file', str(g))
    finally:
        watch.stop()
        jwatch.stop()
        open(gate, 'a').close()

t.finish()
