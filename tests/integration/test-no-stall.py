#!/usr/bin/env python3
"""
A big noisy photo (6000x4000, PNG and JPEG) does not stall the compositor while it loads
(issue "Never block the compositor"):

- a client sending GET_VERSION every 5 ms (stall.py's probe) is never left without an answer
  for more than STALL_BOUND ms (the figure is printed);
- the command's reply comes before the photo is on the screen: the first screenshot after the
  reply still shows the solid colour of before;
- every screenshot taken while it loads (grim, one after the other) shows either the old
  wallpaper or the whole new photo: never black, empty or anything between;
- the end picture is the photo filling the output (every 64x64 block of the screen has the
  photo's colour: each photo is noise around a colour of its own, veiltest/load.py), and the status
  names it;
- while it loads, the status says "state": "loading" and "loading": FILE (polled on a raw IPC
  connection right after the reply) and still describes the solid colour shown meanwhile.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402
from veiltest import load as ll  # noqa: E402

t = vt.Test('no-stall')
OUT = 'HEADLESS-1'
# ms. The target is 16; before the asynchronous stills these photos left a client waiting 440
# to 620 ms (docs/measurements.md). The bound leaves room for a loaded 2-core CI machine, where
# one wait of 146 ms was seen with the change (load average 3.4, others' builds running).
STALL_BOUND = 200.0
LOAD_TIMEOUT = 60.0
PHOTOS = ['noise-6000x4000.png', 'noise-6000x4000.jpg']

paths = ll.media(t, PHOTOS)


def set_old(c):
    ok, err = c.msg(f'output {OUT} veil {ll.OLD_TEXT} solid_color')
    t.check(ok, f'`veil {ll.OLD_TEXT} solid_color` accepted', err)
    c.wait_veil(OUT, 'shown')
    c.wait_until(lambda: ll.is_solid(vt.grab(c, OUT), ll.OLD), 'the solid colour on screen')


def load_watched(c, path):
    """
    Sets path with the probe running and screenshots taken until it shows; returns
    (reply ok, error, command ms, [(time, class)], last screenshot, probe round trips ms).
    """
    colour = ll.colour_of(path)
    ipc = ll.Ipc(c.swaysock)
    probe = ll.Probe(c.swaysock).start()
    try:
        time.sleep(0.2)
        t0 = time.monotonic()
        ok, err = ipc.command(f'output {OUT} veil {vt.quote(path)} fill')
        t_reply = time.monotonic()
        shots = []
        img = None
        deadline = t_reply + LOAD_TIMEOUT
        while time.monotonic() < deadline:
            img = vt.grab(c, OUT)
            shots.append((time.monotonic() - t0, ll.classify(img, {'new': colour})))
            if shots[-1][1] == 'new':
                break
        # Two more: what is on the screen stays.
        for _ in range(2):
            img = vt.grab(c, OUT)
            shots.append((time.monotonic() - t0, ll.classify(img, {'new': colour})))
        time.sleep(0.2)
    finally:
        probe.stop()
        ipc.close()
    rtts = probe.window(t0, time.monotonic())
    return ok, err, 1000.0 * (t_reply - t0), shots, img, rtts


with t.compositor(outputs=1) as c:
    for name in PHOTOS:
        path = paths[name]
        with t.case(f'{name} while the probe runs'):
            set_old(c)
            ok, err, cmd_ms, shots, img, rtts = load_watched(c, path)
            t.check(ok, 'the command is accepted', err)
            longest = max(rtts) if rtts else None
            vt._say(f'   command {cmd_ms:.1f} ms; probe: {len(rtts)} answers, longest '
                    f'{ll.bl.fmt(longest, 1, " ms")}, p99 '
                    f'{ll.bl.fmt(ll.bl.percentile(rtts, 99), 1, " ms")}; screenshots '
                    f'{[f"{s:.2f}s:{k}" for s, k in shots]}')
            t.check(len(rtts) >= 20, 'the probe was answered while the photo loaded',
                    f'{len(rtts)} answers')
            t.check(longest is not None and longest < STALL_BOUND,
                    f'no client waits {STALL_BOUND:.0f} ms or more for an answer',
                    f'longest {ll.bl.fmt(longest, 1, " ms")}')
            t.check(shots and shots[0][1] == 'old',
                    'the reply comes before the photo is on the screen (the first screenshot '
                    'after it shows the old wallpaper)', f'first: {shots[:1]}')
            kinds = [k for _, k in shots]
            first_new = kinds.index('new') if 'new' in kinds else len(kinds)
            t.check(all(k == 'old' for k in kinds[:first_new]) and
                    all(k == 'new' for k in kinds[first_new:]) and first_new < len(kinds),
                    'the old wallpaper stays until the whole photo replaces it, nothing '
                    'between', str(kinds))
            t.check(img is not None and ll.is_photo(img, ll.colour_of(path)),
                    'the end picture is the photo filling the output',
                    ll.describe(img) if img is not None else 'no screenshot')
            v = c.wait_veil(OUT, 'shown', file=path)
            t.check(not v.get('error'), 'no error in the status', str(v.get('error')))

    with t.case('"loading" in the status while a big photo decodes'):
        set_old(c)
        path = paths['noise-6000x4000.png']
        ipc = ll.Ipc(c.swaysock)
        try:
            ok, err = ipc.command(f'output {OUT} veil {vt.quote(path)} fill')
            t.check(ok, 'the command is accepted', err)
            seen = []
            deadline = time.monotonic() + LOAD_TIMEOUT
            while time.monotonic() < deadline:
                v = ipc.outputs()[OUT].get('veil') or {}
                seen.append(v)
                if v.get('state') == 'shown' and v.get('file') == path:
                    break
                time.sleep(0.005)
        finally:
            ipc.close()
        loading = [v for v in seen if v.get('state') == 'loading']
        vt._say(f'   {len(seen)} statuses, {len(loading)} "loading"; first '
                f'{json.dumps(seen[0]) if seen else None}')
        t.check(loading, 'the status says "state": "loading" while the photo decodes',
                f'states {[v.get("state") for v in seen[:10]]}')
        t.check(loading and all(v.get('loading') == path for v in loading),
                'while loading, the status names the file that loads ("loading")',
                json.dumps(loading[:1]))
        t.check(loading and all(v.get('kind') == 'color' and v.get('color') == ll.OLD_TEXT
                                for v in loading),
                'and still describes the solid colour shown meanwhile',
                json.dumps(loading[:1]))
        t.check(seen and seen[-1].get('state') == 'shown' and seen[-1].get('file') == path,
                'then it is shown', json.dumps(seen[-1:]))

t.finish()
