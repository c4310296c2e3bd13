#!/usr/bin/env python3
"""
A real fullscreen client over a video wallpaper pauses its decoding. The client is GStreamer's
own `videotestsrc ! waylandsink fullscreen=true` (an opaque solid colour at the output's size),
started after the outputs are set up (waylandsink 1.28 crashes when outputs change under it)
and ended by its PID.

While it covers the output: veil's state is "hidden", the source has no viewer, the frame
counters stop, the screen shows the client, and the compositor's threads other than the main
one (GStreamer's streaming threads, the decoder's; and the threads of the decoding process when
the video plays in veil-decoder) use next to no CPU: their utime + stime from
/proc/<pid>/task/*/stat over a few seconds, which the same measurement while the video plays
shows is not blind. CPU time, not the clock: a loaded machine makes nothing fail. When the
client is gone the video plays again (state "shown", frames rising, CPU used again).
Covering twice checks that the pause and resume are repeatable.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video-covered')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
CLK_TCK = os.sysconf('SC_CLK_TCK')
WINDOW = 3.0  # seconds of CPU measurement
# Covered: at most this many ticks (of CLK_TCK a second) in WINDOW for every thread but the
# main one together; a clock tick charged to a thread that woke once is the only slack needed.
COVERED_MAX_TICKS = max(5, CLK_TCK * 5 // 100)
CLIENT_COLOUR = (0x18, 0xc0, 0x40)

# Noise costs the decoder something measurable: 320x240 at 30 fps, 2 s a loop.
clip = os.path.join(t.media, 'noise-320x240.mp4')
vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=30,noise=alls=80:allf=t', '-t', '2',
            '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '12', '-g', '30',
            '-pix_fmt', 'yuv420p', clip])
os.chmod(clip, 0o644)


def counters(c):
    v = c.veil(OUT)
    src = v.get('source') or {}
    return v.get('frames', 0), src.get('frames', 0), src.get('loops', 0)


def cpu_window(pid, seconds=WINDOW):
    """Ticks used by every thread but the main one over a few seconds, and who used them."""
    before = vt.proc_threads(pid, decoders=True)
    time.sleep(seconds)
    after = vt.proc_threads(pid, decoders=True)
    per = {}
    for tid, (name, ticks) in after.items():
        if tid != pid:
            used = ticks - before.get(tid, (None, 0))[1]
            if used:
                per[f'{name}/{tid}'] = used
    return vt.other_threads_cpu(pid, before, after), per


def shows_client(shot):
    mid = shot[H // 4:3 * H // 4, W // 4:3 * W // 4].reshape(-1, 3).astype(np.int16)
    return int(np.abs(mid - np.array(CLIENT_COLOUR)).max()) <= 12


def cover(c, pid, round_no, playing_ticks):
    log = t.path(f'fullscreen-client-{round_no}.log')
    with vt.fullscreen_client(c, log, CLIENT_COLOUR, W, H) as client:
        def covered():
            vt.require_running(client, log)
            v = c.veil(OUT)
            return v if v.get('state') == 'hidden' else None
        v = c.check_until(covered, 'state "hidden" while a fullscreen client covers the output')
        if v is None:
            raise vt.Failure('veil never reported the video hidden under the client')
        src = v.get('source') or {}
        t.check(src.get('outputs') == 0, 'the source has no viewer', str(src))
        t.check(v.get('paused') is False, 'not paused by the user', str(v.get('paused')))
        def client_shown():
            shot = vt.grab(c, OUT)
            if not shows_client(shot):
                raise RuntimeError(f'centre {vt.px(shot[H // 2, W // 2])}')
            return True
        c.check_until(client_shown, "the screen shows the client's colour")
        # A frame already on its way may still land: wait for the counters to stop.
        last = [None]

        def still():
            cur = counters(c)[:2]
            same = cur == last[0]
            last[0] = cur
            return same
        c.wait_until(still, 'the frame counters to stop', interval=0.5)
        a = counters(c)
        ticks, per = cpu_window(pid)
        b = counters(c)
        t.check(a[:2] == b[:2], f'no frame decoded or shown in {WINDOW:.0f} s covered',
                f'{a} -> {b}')
        vt._say(f'   covered: {ticks} ticks in {WINDOW:.0f} s by the other threads {per}')
        t.check(ticks <= COVERED_MAX_TICKS,
                f'the streaming threads rest while covered (<= {COVERED_MAX_TICKS} ticks)',
                f'{ticks} ticks: {per}')
        t.check(ticks < playing_ticks, 'less CPU than while playing',
                f'covered {ticks}, playing {playing_ticks}')
        t.check(client.poll() is None, 'the client is still running')
    v = c.wait_veil(OUT, 'shown')
    t.check((v.get('source') or {}).get('outputs') == 1, 'one viewer again',
            str(v.get('source')))
    a = counters(c)
    c.check_until(lambda: counters(c)[1] >= a[1] + 10 and counters(c)[0] >= a[0] + 10,
                  'the video plays again once the client is gone: frames decoded and shown')
    shot = vt.grab(c, OUT)
    t.check(not shows_client(shot), "the client's colour is gone from the screen")


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    playing = 0
    with t.case('playing'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} stretch')
        t.check(ok, '`veil noise.mp4 stretch` accepted', err)
        c.wait_veil(OUT, 'shown', file=clip)
        f0 = counters(c)
        c.wait_until(lambda: counters(c)[1] >= f0[1] + 10, 'ten decoded frames')
        playing, per = cpu_window(pid)
        vt._say(f'   playing: {playing} ticks in {WINDOW:.0f} s by the other threads {per}')
        t.check(playing > COVERED_MAX_TICKS,
                'decoding shows in the CPU time of the other threads (the measure is not blind)',
                f'{playing} ticks: {per}')

    for n in (1, 2):
        with t.case(f'covered by a fullscreen client ({n})'):
            cover(c, pid, n, playing)

    with t.case('after'):
        t.check(c.veil(OUT).get('error') is None, 'no error', str(c.veil(OUT).get('error')))
        t.check(c.responsive(), 'the compositor answers IPC')

t.finish()
