#!/usr/bin/env python3
"""
"Last command wins": bursts of BURST `output * veil` commands sent back to back (each after
the previous reply), alternating big noisy photos (6000x4000 PNG and JPEG, 3840x2160 JPEG)
and a 1080p HEVC video. After each burst:

- the status names the burst's last file, shown, without an error;
- the screen shows that photo filling the output (grim: every 64x64 block has its colour,
  veiltest/load.py) and still shows it two seconds later: no load that the burst superseded lands
  late over it;
- the compositor answered a GET_VERSION probe throughout (the longest wait is printed, and
  bounded generously).

At the end the compositor's descriptors (/proc/PID/fd) and threads (/proc/PID/task) are back
to their level after a warm-up (each file once; polled with a bound): the superseded work was
cancelled and freed.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402
from veiltest import load as ll  # noqa: E402

t = vt.Test('supersede')
OUT = 'HEADLESS-1'
BURST = 40
# ms. The target is 16; before the asynchronous stills these photos left a client waiting 440
# to 620 ms (docs/measurements.md). The bound leaves room for a loaded 2-core CI machine, where
# one wait of 146 ms was seen with the change (load average 3.4, others' builds running).
STALL_BOUND = 200.0
FD_SLACK = 2
THREAD_SLACK = 2
SETTLE_TIMEOUT = 60.0
NAMES = ['noise-6000x4000.png', 'noise-6000x4000.jpg', 'noise-3840x2160.jpg',
         'hevc-1080p30.mp4']

paths = ll.media(t, NAMES)
png, jpg, jpg4k, video = (paths[n] for n in NAMES)
PHOTOS = {n: ll.colour_of(paths[n]) for n in NAMES[:3]}
# Each burst ends on a different photo than the one before it ended on.
LAST = [jpg, png, jpg4k]


def burst_files(last):
    """BURST files: photos and the video taking turns, the last one `last`."""
    photos = [png, jpg, jpg4k]
    files = [video if i % 2 == 0 else photos[(i // 2) % 3] for i in range(BURST - 1)]
    return files + [last]


def back_to(c, what, fn, level, slack):
    """A check: fn() falls to level + slack within SETTLE_TIMEOUT."""
    c.check_until(lambda: (fn(),) if fn() <= level + slack else None,
                  f'{what} back to {level} (+{slack}) after the bursts',
                  timeout=SETTLE_TIMEOUT)
    vt._say(f'   {what}: {level} after the warm-up, {fn()} now')


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    with t.case('warm-up'):
        for path in [video, png, jpg, jpg4k]:
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
            t.check(ok, f'`veil {os.path.basename(path)}` accepted', err)
            c.wait_veil(OUT, 'shown', file=path)
        fds0 = c.settled('descriptors', lambda: vt.fd_count(pid), SETTLE_TIMEOUT)
        threads0 = c.settled('threads', lambda: vt.thread_count(pid), SETTLE_TIMEOUT)
        vt._say(f'   after the warm-up: {fds0} descriptors, {threads0} threads')

    for n, last in enumerate(LAST, 1):
        with t.case(f'burst {n}: {BURST} commands, the last {os.path.basename(last)}'):
            ipc = ll.Ipc(c.swaysock)
            probe = ll.Probe(c.swaysock).start()
            try:
                t0 = time.monotonic()
                refused = []
                for path in burst_files(last):
                    ok, err = ipc.command(f'output {OUT} veil {vt.quote(path)} fill')
                    if not ok:
                        refused.append((os.path.basename(path), err))
                sent = time.monotonic() - t0
                t.check(not refused, f'all {BURST} commands accepted', str(refused[:3]))
                v = c.wait_veil(OUT, 'shown', file=last)
                shown = time.monotonic() - t0
            finally:
                probe.stop()
                ipc.close()
            rtts = probe.window(t0, time.monotonic())
            longest = max(rtts) if rtts else None
            vt._say(f'   sent in {sent:.2f} s, shown {shown:.2f} s after the first; probe '
                    f'{len(rtts)} answers, longest {ll.bl.fmt(longest, 1, " ms")}')
            t.check(v.get('file') == last and not v.get('error'),
                    'the status names the last file, without an error',
                    f'file {v.get("file")}, error {v.get("error")}')
            colour = ll.colour_of(last)
            img, = c.wait_until(lambda: (lambda i: (i,) if ll.is_photo(i, colour) else None)(
                vt.grab(c, OUT)), 'the last photo on the screen')
            t.check(ll.is_photo(img, colour), "the screen shows the last command's photo",
                    ll.describe(img))
            time.sleep(2.0)
            img = vt.grab(c, OUT)
            t.check(ll.classify(img, PHOTOS) == os.path.basename(last),
                    'two seconds later it is still there (no superseded load landed)',
                    f'{ll.classify(img, PHOTOS)}: {ll.describe(img)}')
            v = c.veil(OUT)
            t.check(v.get('file') == last and v.get('state') == 'shown',
                    'and the status still names it', f'{v.get("state")} {v.get("file")}')
            t.check(longest is not None and longest < STALL_BOUND,
                    f'the probe never waited {STALL_BOUND:.0f} ms or more',
                    ll.bl.fmt(longest, 1, ' ms'))

    with t.case('the superseded work is freed'):
        back_to(c, 'descriptors', lambda: vt.fd_count(pid), fds0, FD_SLACK)
        back_to(c, 'threads', lambda: vt.thread_count(pid), threads0, THREAD_SLACK)
        t.check(c.responsive(), 'the compositor answers IPC')

t.finish()
