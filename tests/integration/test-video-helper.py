#!/usr/bin/env python3
"""
Videos played in veil-decoder (VEIL_DECODER_VIDEO=process: helper/serve_video.c and
video_client.c), with the real helper and real H.264 files made by ffmpeg.

1. A clip of solid colours plays: the status names veil-decoder's pipeline, the decoder and the
   elements of the helper's pipeline, its frames and loops count up, the screen shows the
   clip's colours in turn (classified against the colours the clip was made of), and the
   frames come from a veil-decoder process started by the compositor (its child, and the
   decoding process that monitor's child), not from the compositor's own GStreamer.
2. `veil pause` stops the frame counter and the picture; `veil resume` plays on.
3. The decoding process killed with SIGSEGV mid-play: the compositor goes on answering IPC,
   the status says "decoder crashed (SIGSEGV)" and names the file, the last frame stays on
   screen unchanged, and the next command (the same clip) plays again in a new helper.
4. A truncated clip: the command's error names the file, the wallpaper before stays.
5. A PNG after the video: the video's helper exits (no process left behind).
6. A hostile helper (hostile-decoder.c, on a marker after the clip's end) that sends a good
   grey first frame and then segfaults, exits, names the slot of the frame on screen or a slot
   whose memfd it never sent, sends a memfd that could shrink, a negative loop count or frame
   duration, a garbage datagram, or hangs (spins for ever without another frame: ended once
   the decoder's time limit plus the last frame's duration has passed): each time the
   compositor answers IPC, the grey frame stays on screen, the video is stopped with the error
   naming the file, and the next command plays the clip.
7. On the importing renderer (dmabufs: the helper decodes into the compositor's own): a real
   clip plays as YUV dmabufs with no copy; a hostile helper names a dmabuf it was never given,
   a plane past the end of one, or asks for dmabufs until refused (48 of them, or 1 GiB in
   all): the error, the grey first frame stays, and the descriptors come back to their level.
"""
import os
import signal
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video-helper')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
FPS = 10
COLOURS = [('red', (220, 40, 40)), ('green', (40, 200, 40)), ('blue', (40, 40, 220))]
SECONDS_EACH = 0.5
COLOUR_TOLERANCE = 24  # 4:2:0, limited range, H.264

clip = vt.make_colour_clip(
    os.path.join(t.media, 'colours.mp4'), COLOURS, FPS, SECONDS_EACH,
    ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '10', '-g', str(FPS), '-bf', '0',
     '-pix_fmt', 'yuv420p', '-movflags', '+faststart'])
truncated = vt.make_truncated(os.path.join(t.media, 'truncated.mp4'), clip, fraction=0.3)
png = vt.make_png(os.path.join(t.media, 'still.png'), vt.quadrant_pixels(640, 360))


def source(c):
    return c.veil(OUT).get('source') or {}


def decoding_processes(c):
    """The decoding processes (children of a veil-decoder monitor the compositor started)."""
    return vt.decoding_pids(c.proc.pid)


def colours_seen(c, seconds):
    seen = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        i, _ = vt.classify_colour(vt.grab(c, OUT), COLOURS, COLOUR_TOLERANCE)
        if i is not None:
            seen.add(i)
        time.sleep(0.05)
    return seen


# Under AddressSanitizer a SIGSEGV sent to the helper would become ASan's abort.
ASAN = (os.environ.get('ASAN_OPTIONS', '') + ':handle_segv=0').lstrip(':')
env = {'VEIL_DECODER': 'process', 'VEIL_DECODER_VIDEO': 'process', 'ASAN_OPTIONS': ASAN}
with t.compositor(outputs=1, name='video-helper', env=env) as c:
    with t.case('a video plays in veil-decoder'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill')
        t.check(ok, 'accepted', err)
        v = c.wait_veil(OUT, 'shown', file=clip)
        t.check(v.get('error') is None, 'no error', str(v.get('error')))
        src = source(c)
        t.check((src.get('pipeline') or '').startswith('veil-decoder-'),
                "the status names veil-decoder's pipeline", str(src))
        t.check(src.get('decoder') not in (None, '', 'veil-decoder', 'gstreamer'),
                'and the video decoder the helper plugged', str(src.get('decoder')))
        elements = src.get('elements') or []
        t.check(src.get('decoder') in elements and 'videoconvert' in elements and
                'appsink' in elements,
                "the helper's elements: its decoder, videoconvert converting (pixman), appsink",
                str(elements))
        c.check_until(lambda: (source(c).get('loops') or 0) >= 2, 'the clip loops twice',
                      timeout=30)
        src = source(c)
        t.check(src.get('state') == 'playing', 'playing', str(src.get('state')))
        t.check(src.get('frames', 0) >= 2 * len(COLOURS) * SECONDS_EACH * FPS * 0.5,
                'frames count up with the loops', str(src))
        seen = colours_seen(c, 3 * len(COLOURS) * SECONDS_EACH)
        t.check(seen == set(range(len(COLOURS))), "the screen shows each of the clip's colours",
                str(sorted(COLOURS[i][0] for i in seen)))
        t.check(len(decoding_processes(c)) == 1,
                "one decoding process, the child of the compositor's veil-decoder",
                str(vt.children(c.proc.pid)))
        with open(c.log_path, 'rb') as f:
            log = f.read().decode(errors='replace')
        t.check('videos are played in veil-decoder processes' in log,
                'the log says where videos are played')

    with t.case('pause and resume'):
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, '`veil pause` accepted', err)
        c.check_until(lambda: source(c).get('state') == 'paused', 'paused', timeout=10)
        time.sleep(0.5)
        frames = source(c).get('frames')
        still = vt.grab(c, OUT)
        time.sleep(1.5)
        t.check(source(c).get('frames') == frames, 'the frame counter stops',
                f'{frames} -> {source(c).get("frames")}')
        t.check(np.array_equal(vt.grab(c, OUT), still), 'the picture stays')
        ok, err = c.msg(f'output {OUT} veil resume')
        t.check(ok, '`veil resume` accepted', err)
        c.check_until(lambda: (source(c).get('frames') or 0) > frames + FPS,
                      'frames come again', timeout=15)

    with t.case('the decoding process crashes mid-play'):
        procs = decoding_processes(c)
        t.check(len(procs) == 1, 'one decoding process to crash', str(procs))
        if procs:
            os.kill(procs[0], signal.SIGSEGV)
            v = c.check_until(lambda: c.veil_error(OUT, clip), 'the status gets an error',
                              timeout=30)
            if v is not None:
                vt._say(f'   {v["error"]}')
                t.check(v['error'] == f"'{clip}': decoder crashed (SIGSEGV)",
                        'the error names the file and says what happened', v['error'])
                t.check((v.get('source') or {}).get('state') == 'stopped', 'stopped',
                        str(v.get('source')))
            t.check(c.responsive(), 'the compositor answers IPC')
            first = vt.grab(c, OUT)
            i, mean = vt.classify_colour(first, COLOURS, COLOUR_TOLERANCE)
            t.check(i is not None, 'the last frame stays on screen', str(mean))
            time.sleep(1.0)
            t.check(np.array_equal(vt.grab(c, OUT), first), 'and does not change')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill')
        t.check(ok, 'the next command is accepted', err)
        c.check_until(lambda: not c.veil(OUT).get('error') and
                      (source(c).get('frames') or 0) > 2 * FPS,
                      'the clip plays again, in a new helper', timeout=30)
        t.check(len(decoding_processes(c)) == 1, 'one decoding process again',
                str(vt.children(c.proc.pid)))

    with t.case('a truncated video: an error naming the file, the wallpaper stays'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(truncated)} fill')
        if ok:
            v = c.check_until(lambda: c.veil_error(OUT, truncated),
                              'the status gets an error', timeout=30)
            err = v['error'] if v else ''
        t.check(truncated in (err or ''), 'the error names the file', str(err))
        v = c.veil(OUT)
        t.check(v.get('file') == clip, 'the clip is still the wallpaper', str(v.get('file')))
        c.check_until(lambda: len(decoding_processes(c)) == 1,
                      "the truncated file's helper is gone", timeout=15)

    with t.case("a still after the video: the video's helper exits"):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(png)} fill')
        t.check(ok, 'accepted', err)
        c.wait_veil(OUT, 'shown', file=png)
        c.check_until(lambda: not decoding_processes(c), 'no decoding process left',
                      timeout=15)
        shot = c.settled_screenshot(OUT)
        t.compare(shot, vt.expect_fill(png, W, H), 'still-after-video', tolerance=8,
                  mean_tolerance=1, ignore_edges=4)

# --- A hostile helper: the compositor's side of a video treats it as untrusted. ---
HOSTILE = os.environ.get('VEIL_TEST_HOSTILE_DECODER')
TIMEOUT_MS = 5000
VIDEO_CASES = [
    ('video-segv', 'decoder crashed (SIGSEGV)'),
    ('video-exit', 'decoder exited with status 3 without an answer'),
    ('video-held', 'decoder wrote into a frame the compositor still holds'),
    ('video-no-memory', 'decoder answered a frame in slot 5 without its memory'),
    ('video-unsealed', "decoder's frame is not sealed against resizing"),
    ('video-loops', 'decoder answered an impossible video frame'),
    ('video-duration', 'decoder answered an impossible video frame'),
    ('video-garbage', 'decoder answered a malformed message'),
    # The first frame shows for a second: the limit is the decoder's time limit and that.
    ('video-loop', f'decoder sent no frame for {TIMEOUT_MS // 1000 + 1} s while playing'),
]
if not HOSTILE or not os.access(HOSTILE, os.X_OK):
    t.fail('the hostile decoder is built', str(HOSTILE))
else:
    env = {'VEIL_DECODER': 'process', 'VEIL_DECODER_VIDEO': 'process',
           'VEIL_DECODER_HELPER': HOSTILE, 'ASAN_OPTIONS': ASAN}
    timeout_args = ['--decoder-timeout', str(TIMEOUT_MS)]
    with open(clip, 'rb') as f:
        clip_bytes = f.read()
    with t.compositor(outputs=1, name='hostile', env=env, args=timeout_args) as c:
        for mode, says in VIDEO_CASES:
            with t.case(f'hostile video helper: {mode}'):
                path = vt._write(os.path.join(t.media, f'hostile-{mode}.mp4'),
                                 clip_bytes + f'veil-hostile:{mode}\n'.encode())
                ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
                t.check(ok, 'accepted', err)
                v = c.check_until(lambda: c.veil_error(OUT, path), 'the status gets an error',
                                  timeout=30)
                if v is None:
                    continue
                vt._say(f'   {v["error"]}')
                t.check(v['error'].startswith(f"'{path}': "), 'the error names the file',
                        v['error'])
                t.check(says in v['error'], f'the error says "{says}"', v['error'])
                t.check(c.responsive(), 'the compositor answers IPC')
                src = v.get('source') or {}
                t.check(v.get('file') == path and src.get('state') == 'stopped',
                        'the video stays, stopped', f'{src.get("state")} {v.get("file")}')
                shot = c.settled_screenshot(OUT)
                t.compare(shot, np.full((H, W, 3), 0x80, np.uint8), f'video-{mode}',
                          tolerance=2, mean_tolerance=1)
                if mode == 'video-loop':
                    c.check_until(lambda: not decoding_processes(c),
                                  'the hung decoding process is ended', timeout=15)
                ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill')
                t.check(ok, 'the next command is accepted', err)
                c.check_until(lambda: not c.veil(OUT).get('error') and
                              (source(c).get('frames') or 0) > FPS,
                              'the clip plays, in a new helper', timeout=30)

        with t.case('a video paused for longer than the time limit is not taken for hung'):
            ok, err = c.msg(f'output {OUT} veil pause')
            t.check(ok, '`veil pause` accepted', err)
            c.check_until(lambda: source(c).get('state') == 'paused', 'paused', timeout=10)
            time.sleep(TIMEOUT_MS / 1000 + 2)
            t.check(not c.veil(OUT).get('error'), 'no error while paused',
                    str(c.veil(OUT).get('error')))
            frames = source(c).get('frames') or 0
            ok, err = c.msg(f'output {OUT} veil resume')
            t.check(ok, '`veil resume` accepted', err)
            c.check_until(lambda: (source(c).get('frames') or 0) > frames + FPS,
                          'frames come again', timeout=15)
            t.check(not c.veil(OUT).get('error'), 'no error after resuming',
                    str(c.veil(OUT).get('error')))

# --- The same, on a renderer that imports dmabufs: the helper decodes into the compositor's. ---
MEMORY_CASES = [
    ('video-memory-slot', 'decoder answered a frame in memory 5 it was not given'),
    ('video-memory-plane', 'decoder answered plane 0 at 256 with a stride of 256 bytes, past '
                           'its memory of 16384 bytes'),
    # Refused at the 49th, and the video ends there: the helper's own word never comes.
    ('video-memory-greedy', 'decoder asked for more than 48 dmabufs or 1024 MiB (another of '
                            '16384 bytes)'),
    # 1 GiB in all: the first (16 KiB) and three of 256 MiB.
    ('video-memory-huge', 'decoder asked for more than 48 dmabufs or 1024 MiB (another of '
                          '268435456 bytes)'),
]
if HOSTILE and os.access(HOSTILE, os.X_OK):
    with t.compositor(outputs=1, name='hostile-memory', env=env, renderer='import',
                      args=timeout_args) as c:
        with t.case('a real video decodes into the compositor\'s dmabufs'):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill')
            t.check(ok, 'accepted', err)
            c.check_until(lambda: (source(c).get('frames') or 0) > FPS, 'the clip plays',
                          timeout=30)
            src = source(c)
            t.check(src.get('format') in ('I420', 'NV12') and src.get('copies') == 0,
                    'as YUV dmabufs, no copy', f'{src.get("format")}, {src.get("copies")}')
        fds0 = c.settled('the descriptor count', lambda: vt.fd_count(c.proc.pid))
        for mode, says in MEMORY_CASES:
            with t.case(f'hostile video helper, dmabufs: {mode}'):
                path = vt._write(os.path.join(t.media, f'hostile-{mode}.mp4'),
                                 clip_bytes + f'veil-hostile:{mode}\n'.encode())
                ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
                t.check(ok, 'accepted', err)
                v = c.check_until(lambda: c.veil_error(OUT, path), 'the status gets an error',
                                  timeout=30)
                if v is None:
                    continue
                vt._say(f'   {v["error"]}')
                t.check(v['error'].startswith(f"'{path}': ") and says in v['error'],
                        f'the error names the file and says "{says}"', v['error'])
                t.check(c.responsive(), 'the compositor answers IPC')
                shot = c.settled_screenshot(OUT)
                t.compare(shot, np.full((H, W, 3), 0x80, np.uint8), f'memory-{mode}',
                          tolerance=2, mean_tolerance=1)
        with t.case("the hostile helpers' dmabufs are all given back"):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(clip)} fill')
            t.check(ok, 'the clip again', err)
            c.check_until(lambda: (source(c).get('frames') or 0) > FPS, 'the clip plays',
                          timeout=30)
            c.check_until(lambda: vt.fd_count(c.proc.pid) <= fds0,
                          f'descriptors back to {fds0}', timeout=30)
            log = open(c.log_path, 'rb').read().decode(errors='replace')
            bad = [line for line in log.splitlines() if 'VIOLATION' in line]
            t.check(not bad, 'the importing renderer saw no violation', '\n'.join(bad[:3]))

t.finish()
