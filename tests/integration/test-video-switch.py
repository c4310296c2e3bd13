#!/usr/bin/env python3
"""
200 switches through swaymsg, alternating two videos and two images (video A fill, image P
fill, video B fit, image Q stretch), back to back: every one is accepted and named at once in
the status; the compositor's descriptors (/proc/PID/fd) and threads (/proc/PID/task) are as
many at the end as after a settle at the start, within a small tolerance; the last wallpaper
(Q) is shown correctly; and a video's threads are gone within seconds of it being replaced.

GLib's thread pools keep a "pool-spawner" thread for good once a video has played and may keep
idle workers for a while: the baseline is taken after one round of every wallpaper, and the
counts are polled (with a generous bound) rather than read once.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video-switch')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
SCALED = dict(tolerance=8, mean_tolerance=1, ignore_edges=4)
SWITCHES = 200
FD_SLACK = 2
THREAD_SLACK = 2
GONE_TIMEOUT = 30.0  # "within seconds", generously


def make_clip(name, pixels, seconds=2, fps=15):
    still = vt.make_png(os.path.join(t.media, name + '.png'), pixels)
    path = os.path.join(t.media, name + '.mp4')
    vt._ffmpeg(['-loop', '1', '-framerate', str(fps), '-i', still, '-t', str(seconds),
                '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-g', str(fps),
                '-pix_fmt', 'yuv420p', path])
    os.chmod(path, 0o644)
    return path


video_a = make_clip('a-320x192', vt.quadrant_pixels(320, 192))
video_b = make_clip('b-256x128', vt.quadrant_pixels(256, 128)[::-1].copy())
image_p = vt.make_png(os.path.join(t.media, 'p-400x300.png'), vt.quadrant_pixels(400, 300))
image_q = vt.make_png(os.path.join(t.media, 'q-640x360.png'),
                      vt.quadrant_pixels(640, 360)[:, ::-1].copy())
SEQUENCE = [
    (f'{vt.quote(video_a)} fill', 'video', video_a),
    (f'{vt.quote(image_p)} fill', 'image', image_p),
    (f'{vt.quote(video_b)} fit #303030', 'video', video_b),
    (f'{vt.quote(image_q)} stretch', 'image', image_q),
]


def video_threads(pid, before):
    """Threads that were not there before, but GLib's pool-spawner and veil's workers (kept)."""
    return {tid: name for tid, (name, _) in vt.proc_threads(pid, decoders=True).items()
            if tid not in before and name not in ('pool-spawner', 'veil-worker')}


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    with t.case('warm-up'):
        for words, kind, path in SEQUENCE:
            ok, err = c.msg(f'output {OUT} veil {words}')
            t.check(ok, f'`veil {os.path.basename(path)}` accepted', err)
            c.wait_veil(OUT, 'shown', file=path)

    with t.case("a replaced video's threads end"):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(image_p)} fill')
        t.check(ok, 'image P', err)
        c.wait_veil(OUT, 'shown', file=image_p)
        c.settled('the thread count', lambda: vt.thread_count(pid, decoders=True))
        before = vt.proc_threads(pid, decoders=True)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video_a)} fill')
        t.check(ok, 'video A', err)
        c.wait_veil(OUT, 'shown', file=video_a)
        f0 = c.veil(OUT).get('frames', 0)
        c.wait_until(lambda: c.veil(OUT).get('frames', 0) >= f0 + 5, 'video A to play')
        mine = video_threads(pid, before)
        vt._say(f'   the video runs {len(mine)} threads: {sorted(mine.values())}')
        t.check(len(mine) > 0, 'the video has threads of its own', str(mine))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(image_p)} fill')
        t.check(ok, 'image P again', err)
        c.wait_veil(OUT, 'shown', file=image_p)
        start = time.monotonic()

        def gone():
            left = {tid: n for tid, n in video_threads(pid, before).items() if tid in mine}
            if left:
                raise RuntimeError(f'still there: {left}')  # shown by wait_until
            return True
        if c.check_until(gone, f"the video's threads ended (within {GONE_TIMEOUT:.0f} s)",
                         timeout=GONE_TIMEOUT):
            vt._say(f'   gone {time.monotonic() - start:.2f} s after the switch')

    with t.case(f'{SWITCHES} switches'):
        # The baseline, with an image shown (the last of the sequence is an image too).
        fds0 = c.settled('the descriptor count', lambda: vt.fd_count(pid))
        threads0 = c.settled('the thread count', lambda: vt.thread_count(pid, decoders=True))
        names0 = sorted(n for n, _ in vt.proc_threads(pid, decoders=True).values())
        vt._say(f'   before: {fds0} descriptors, {threads0} threads {names0}')
        accepted = shown_at_once = 0
        bad = []
        start = time.monotonic()
        for i in range(SWITCHES):
            words, kind, path = SEQUENCE[i % len(SEQUENCE)]
            ok, err = c.msg(f'output {OUT} veil {words}')
            accepted += ok
            v = c.veil(OUT)
            # Decoding comes after the reply: the status names the file as shown or loading.
            now = v.get('loading') == path or (v.get('loading') is None and
                                               v.get('kind') == kind and v.get('file') == path)
            shown_at_once += now
            if (not ok or not now) and len(bad) < 5:
                bad.append(f'#{i + 1} `veil {os.path.basename(path)}`: {err or v}')
        vt._say(f'   {SWITCHES} switches in {time.monotonic() - start:.1f} s')
        t.check(accepted == SWITCHES, f'all {SWITCHES} switches accepted',
                f'{accepted}; ' + '; '.join(bad))
        t.check(shown_at_once == SWITCHES, 'each switch is shown or loading at once in the status',
                f'{shown_at_once}; ' + '; '.join(bad))

    with t.case('the last wallpaper'):
        last_words, _, last_path = SEQUENCE[(SWITCHES - 1) % len(SEQUENCE)]
        v = c.wait_veil(OUT, 'shown', file=last_path)
        t.check(v.get('kind') == 'image' and v.get('mode') == 'stretch',
                'status: image Q in stretch', str(v))
        t.check(v.get('error') is None, 'no error', str(v.get('error')))
        t.check((v.get('source') or {}).get('outputs') == 1, 'one viewer',
                str(v.get('source')))
        shot = c.settled_screenshot(OUT)
        expected = vt.expect_stretch(image_q, W, H)
        t.compare_structure(shot, expected, 'last-stretch')
        t.compare(shot, expected, 'last-stretch', **SCALED)

    with t.case('descriptors and threads flat'):
        def within(fn, limit):
            n = fn()
            if n > limit:
                raise RuntimeError(f'{n}')
            return (n,)
        try:
            fds1, = c.wait_until(lambda: within(lambda: vt.fd_count(pid), fds0 + FD_SLACK),
                                 f'the descriptors to be back to {fds0} (+{FD_SLACK})',
                                 timeout=GONE_TIMEOUT)
            t.check(fds1 <= fds0 + FD_SLACK, f'descriptors flat: {fds0} before, {fds1} after')
        except vt.Failure as e:
            t.fail('descriptors flat', f'{e}; {sorted(os.listdir(f"/proc/{pid}/fd"))[:40]}')
        try:
            thr1, = c.wait_until(
                lambda: within(lambda: vt.thread_count(pid, decoders=True), threads0 + THREAD_SLACK),
                f'the threads to be back to {threads0} (+{THREAD_SLACK})', timeout=GONE_TIMEOUT)
            t.check(thr1 <= threads0 + THREAD_SLACK,
                    f'threads flat: {threads0} before, {thr1} after')
        except vt.Failure as e:
            names = sorted(n for n, _ in vt.proc_threads(pid, decoders=True).values())
            t.fail('threads flat', f'{e}; now {names}, before {names0}')
        t.check(c.responsive(), 'the compositor answers IPC')

t.finish()
