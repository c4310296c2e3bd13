#!/usr/bin/env python3
"""
1000 wallpaper switches in a burst, from 8 swaymsg clients at once, over two outputs: PNGs of
several sizes (libpng), a JPEG (GStreamer), solid colours, every mode, per output and for "*",
with `veil off`, pause and resume in between. Three bursts: the first may grow memory (the
allocator's arenas, GStreamer's plugins loaded once), the later ones must not. Every command
must be answered; afterwards the compositor is up, a last command shows the expected picture
on both outputs, and memory, descriptors and threads are back where the first burst left them.
"""
import os
import random
import subprocess
import threading
import time

from veiltest import fault as fl  # noqa: E402

vt = fl.vt
t = vt.Test('fault-switch-storm')
OUTS = ['HEADLESS-1', 'HEADLESS-2']
W, H = 1280, 720
SWITCHES = 1000
CLIENTS = 8
SCALED = dict(tolerance=8, mean_tolerance=1, ignore_edges=4)

media = t.media
files = [
    vt.make_png(os.path.join(media, 'quad-800x600.png'), vt.quadrant_pixels(800, 600)),
    vt.make_png(os.path.join(media, 'quad-1920x1080.png'), vt.quadrant_pixels(1920, 1080)),
    vt.make_png(os.path.join(media, 'quad-64x48.png'), vt.quadrant_pixels(64, 48)),
    vt.make_jpeg(os.path.join(media, 'quad-640x400.jpg'), vt.quadrant_pixels(640, 400)),
]
final = files[0]


def commands(seed, n):
    """n commands for one client: mostly switches, some off/pause/resume/solid colours."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        target = rng.choice(OUTS + ['*'])
        r = rng.random()
        if r < 0.05:
            out.append(f'output {target} veil off')
        elif r < 0.08:
            out.append(f'output {target} veil {rng.choice(["pause", "resume"])}')
        elif r < 0.15:
            out.append(f'output {target} veil #{rng.randrange(1 << 24):06x} solid_color')
        else:
            mode = rng.choice(['fill', 'fit', 'stretch', 'center', 'tile'])
            colour = f' #{rng.randrange(1 << 24):06x}' if mode in ('fit', 'center') else ''
            out.append(f'output {target} veil {rng.choice(files)} {mode}{colour}')
    return out


def burst(c, seed):
    """SWITCHES commands from CLIENTS swaymsg processes at a time; returns (ok, failed, errs)."""
    per = SWITCHES // CLIENTS
    results = {'ok': 0, 'failed': 0, 'errors': []}
    lock = threading.Lock()

    def client(k):
        for cmd in commands(seed * 100 + k, per):
            r = subprocess.run(['swaymsg', '-s', c.swaysock, '--', cmd], env=c.client_env,
                               capture_output=True, timeout=vt.IPC_TIMEOUT)
            with lock:
                if r.returncode == 0:
                    results['ok'] += 1
                else:
                    results['failed'] += 1
                    results['errors'].append(f'{cmd}: {r.stderr.decode(errors="replace")}')
    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return results


with t.compositor(outputs=len(OUTS), env=fl.compositor_env()) as c:
    pid = c.proc.pid
    with t.case('setup'):
        ok, err = c.msg(f'output * veil {final} fill')
        t.check(ok, 'first wallpaper', err)
        for o in OUTS:
            c.wait_veil(o, 'shown', file=final)
    bounded = fl.Bounded(t, pid, 'switch storm')
    total = 0
    for n in range(1, 4):
        with t.case(f'burst {n}'):
            start = time.monotonic()
            res = burst(c, n)
            took = time.monotonic() - start
            total += res['ok'] + res['failed']
            t.check(res['ok'] + res['failed'] == SWITCHES // CLIENTS * CLIENTS,
                    f'{SWITCHES} commands from {CLIENTS} clients answered in {took:.1f} s '
                    f'({SWITCHES / took:.0f}/s)')
            t.check(res['failed'] == 0, 'every command succeeded',
                    '\n'.join(res['errors'][:10]))
            t.check(c.alive() and c.responsive(), 'compositor up and answering')
            # The picture a last command asks for is the one shown, on both outputs.
            ok, err = c.msg('output * veil resume')
            ok, err = c.msg(f'output * veil {final} fill')
            t.check(ok, 'a last command', err)
            for o in OUTS:
                ok2, err2 = c.msg(f'output {o} veil {final} fill')
                t.check(ok2, f'{o}: set', err2)
                c.wait_veil(o, 'shown', file=final, mode='fill')
                fl.still_shows(c, o, vt.expect_fill(final, W, H), f'burst{n}-{o}', **SCALED)
            # Each helper that answered is reaped within its 2 s of grace: the compositor
            # keeps one pidfd, the spare's (it kept up to 16 once, until later decodes).
            c.check_until(lambda: vt.pidfd_count(pid) <= 1,
                          'the helpers of the burst reaped: one pidfd left', timeout=10)
            bounded.round_done(f'burst {n}')
    with t.case('bounded'):
        bounded.check()
    vt._say(f'tried: {total} switches from {CLIENTS} concurrent swaymsg clients in 3 bursts')

t.finish()
