#!/usr/bin/env python3
"""
Bad videos through the real swaymsg. Each bad file must fail with an error that says what is
wrong and names the file, set the output's status error, and leave the screen pixel-identical:
first over a still (a PNG in fill: deterministic), then over a good video that is paused
(paused, its last frame stays: deterministic too). The files:

- a truncated MP4 with its index (moov) at the end, cut at 60 %: no index at all;
- truncated MP4s with their index first (faststart), cut inside the index, and inside the first
  frame (cut points from ffprobe's packet positions);
- random bytes named .mp4;
- a pixel format veil's decoder does not output: a VP9 clip in 4:4:0 (libav's yuv440p, which
  GStreamer has no format for), decoded by veilavdec, whose error names the format;
- an unsupported codec: an MPEG-4 part 2 AVI whose FourCC is made "ZZZZ", which no GStreamer
  decoder takes (avidemux calls it video/x-avi-unknown);
- a missing decoder plugin: a second compositor started with GST_PLUGIN_FEATURE_RANK setting
  every H.264 decoder feature gst-inspect-1.0 lists (avdec_h264, openh264dec, ...) and veil's
  own veilavdec (registered inside veil, which reads its entry) to rank NONE, so that
  decodebin plugs none; a good H.264 MP4 must fail there and an MPEG-4 part 2 AVI still
  play (only that decoder is missing);
- 16384x16384 videos from a YUV4MPEG2 header and from an AVI header (a few KiB each, crafted
  here): they must fail fast (well inside the bound below) and without allocating a frame of
  that size (the peak RSS, VmHWM, grows by less than a 16384x16384 I420 frame's 384 MiB).

Then what may happen to a good video while it plays:

- a faststart MP4 of 3 s cut in the middle of its frame at 2 s: the cut is only reached while
  playing. Accepted: it plays what there is and loops (what GStreamer 1.28 does), or it stops
  with an error naming the file and keeps its last frame; or, refused with the screen unchanged;
- caps that change mid-stream: a raw .h264 of a red 64x48 second then a blue 128x96 second,
  shown in center mode, so that the frame on the screen shows its size 1:1. veil may follow the
  new size or report an error and keep the last frame; either is accepted, which one is said,
  and the screen must be consistent with it (never a frame of one size drawn at the other's).
  Following it means at every loop: both colours again after the first, and loops at the
  clip's pace (2 s), not at a frame's (a segment that went back in running time made appsink
  show each loop at once: H.264 without a container goes through baseparse);
- the file deleted while playing: it keeps playing (both colours of the clip keep coming, the
  loop counter rises: veil reads through its own descriptor);
- the file replaced while playing (a new file renamed over it): the old content keeps playing;
  setting the same path again shows the new content, from a new pipeline.

The compositor must be alive and answering after all of it and exit cleanly.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video-bad')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
HUGE = 16384
FAST_FAIL_BOUND = 20.0  # seconds: generous, a loaded machine must not fail it
HWM_GROWTH_MAX_KIB = 128 * 1024  # a 16384x16384 I420 frame is 393216 KiB
BARS = (0x20, 0x20, 0x20)
COLOUR_TOLERANCE = 24
RED, GREEN, BLUE, YELLOW = (220, 40, 40), (40, 200, 40), (40, 40, 220), (220, 200, 40)
COLOURS = {'red': RED, 'green': GREEN, 'blue': BLUE, 'yellow': YELLOW}
media = t.media


def m(name):
    return os.path.join(media, name)


# --- media ---

def colour_clip(path, colours, size=(64, 48), fps=10, seconds_each=1.0, codec=None, fmt=None,
                faststart=True):
    """Solid colours one after the other, from raw frames through ffmpeg."""
    w, h = size
    frames = []
    for c in colours:
        frames += [np.broadcast_to(np.array(c, np.uint8), (h, w, 3))] * int(fps * seconds_each)
    args = ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{w}x{h}', '-r', str(fps), '-i', '-']
    args += codec or ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '10', '-g', str(fps),
                      '-bf', '0', '-pix_fmt', 'yuv420p']
    if faststart and fmt is None and path.endswith('.mp4'):
        args += ['-movflags', '+faststart']
    if fmt:
        args += ['-f', fmt]
    vt._ffmpeg(args + [path], input=np.ascontiguousarray(np.stack(frames)).tobytes())
    os.chmod(path, 0o644)
    return path


def huge_y4m(path, w, h):
    """A YUV4MPEG2 header claiming w x h and one frame of 4 KiB (not w x h of data)."""
    return vt._write(path, f'YUV4MPEG2 W{w} H{h} F10:1 Ip A1:1 C420jpeg\n'.encode() +
                     b'FRAME\n' + b'\x80' * 4096)


def _chunk(fourcc, body):
    return fourcc + struct.pack('<I', len(body)) + body + (b'\0' if len(body) % 2 else b'')


def _list(kind, *chunks):
    body = kind + b''.join(chunks)
    return b'LIST' + struct.pack('<I', len(body)) + body


def huge_avi(path, w, h):
    """An AVI whose headers (avih, strh, strf) claim a w x h MJPG stream, with one tiny frame."""
    pack = struct.pack
    frame = b'\xff\xd8\xff\xd9'  # an empty JPEG: SOI, EOI
    avih = pack('<10I4I', 100000, 0, 0, 0x10, 1, 0, 1, 0, w, h, 0, 0, 0, 0)
    strh = pack('<4s4sIHHIIIIIIIIhhhh', b'vids', b'MJPG', 0, 0, 0, 0, 1, 10, 0, 1, 0,
                0xffffffff, 0, 0, 0, min(w, 0x7fff), min(h, 0x7fff))
    strf = pack('<IiiHH4sIiiII', 40, w, h, 1, 24, b'MJPG', w * h * 3 & 0xffffffff, 0, 0, 0, 0)
    hdrl = _list(b'hdrl', _chunk(b'avih', avih),
                 _list(b'strl', _chunk(b'strh', strh), _chunk(b'strf', strf)))
    movi = _list(b'movi', _chunk(b'00dc', frame))
    idx1 = _chunk(b'idx1', pack('<4sIII', b'00dc', 0x10, 4, len(frame)))
    body = b'AVI ' + hdrl + movi + idx1
    return vt._write(path, b'RIFF' + pack('<I', len(body)) + body)


def packets(path):
    """[(pts seconds, byte position, size)] of the video packets, from ffprobe."""
    r = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                        'packet=pts_time,pos,size', '-of', 'csv=p=0', path],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise vt.Failure(f'ffprobe {path}: {r.stderr}')
    out = []
    for line in r.stdout.split():
        pts, size, pos = line.split(',')[:3]
        out.append((float(pts), int(pos), int(size)))
    return out


def cut(path, src, length):
    with open(src, 'rb') as f:
        return vt._write(path, f.read()[:length])


good_png = vt.make_png(m('good.png'), vt.quadrant_pixels(800, 600))
good_video = colour_clip(m('good-red-green.mp4'), [RED, GREEN])
moov_end = colour_clip(m('moov-at-end.mp4'), [RED, GREEN], faststart=False)
truncated_end = vt.make_truncated(m('truncated-moov-at-end.mp4'), moov_end, 0.6)
# Index first (faststart): cut inside the index, inside the first frame, or after 2 s of 3.
three_s = colour_clip(m('red-green-red.mp4'), [RED, GREEN, RED])
pk = packets(three_s)
first_pts, first_pos, first_size = pk[0]
mid_pts, mid_pos, mid_size = next(p for p in pk if p[0] >= 2.0)
truncated_index = cut(m('truncated-in-index.mp4'), three_s, first_pos // 2)
truncated_first = cut(m('truncated-in-first-frame.mp4'), three_s, first_pos + first_size // 2)
truncated_late = cut(m('truncated-at-2s-of-3.mp4'), three_s, mid_pos + mid_size // 2)
garbage = vt.make_random(m('garbage.mp4'))
zzzz = vt.make_unknown_fourcc_avi(m('fourcc-zzzz.avi'), BLUE)
y4m = huge_y4m(m(f'huge-{HUGE}x{HUGE}.y4m'), HUGE, HUGE)
avi = huge_avi(m(f'huge-{HUGE}x{HUGE}.avi'), HUGE, HUGE)
vp9_440 = m('vp9-yuv440p.webm')
vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=64x48:r=10:d=0.5', '-c:v', 'libvpx-vp9',
            '-pix_fmt', 'yuv440p', vp9_440])
os.chmod(vp9_440, 0o644)
mpeg4_avi = colour_clip(m('mpeg4-yellow.avi'), [YELLOW, BLUE],
                        codec=['-c:v', 'mpeg4', '-q:v', '2', '-g', '10'])
h264_a = colour_clip(m('part-red-64x48.h264'), [RED], size=(64, 48), fmt='h264')
h264_b = colour_clip(m('part-blue-128x96.h264'), [BLUE], size=(128, 96), fmt='h264')
caps_change = m('caps-change.h264')
with open(caps_change, 'wb') as out:
    for part in (h264_a, h264_b):
        with open(part, 'rb') as f:
            out.write(f.read())
os.chmod(caps_change, 0o644)

MISSING_PATTERN = r'decoder|codec|plugin|missing|unsupported|not supported'
BAD_FILES = [
    ('truncated MP4, index at the end', truncated_end,
     r'incomplete|truncat|end of (the )?(file|stream)|corrupt|invalid|moov|index|can.t be played'),
    # GStreamer 1.28's qtdemux says no more than "general stream error" of a cut index, and
    # the first frame's decoder may say as little: accepted (the output shows the message).
    ('truncated MP4, cut in the index', truncated_index,
     r'incomplete|truncat|end of (the )?(file|stream)|corrupt|invalid|short|stream error'),
    ('truncated MP4, cut in the first frame', truncated_first,
     r'incomplete|truncat|end of (the )?(file|stream)|corrupt|invalid|short|stream error|'
     r'no (video )?frame|decod'),
    ('random bytes named .mp4', garbage,
     r'determine (the )?type|not (a|an) (video|image)|unsupported|unknown|format|recogni|decod'),
    ('unknown codec (AVI FourCC ZZZZ)', zzzz, MISSING_PATTERN),
    ('a pixel format veil does not show (VP9 4:4:0)', vp9_440, r'pixel format, yuv440p'),
    (f'{HUGE}x{HUGE} YUV4MPEG2', y4m, rf'{HUGE}|too large|larger|limit'),
    (f'{HUGE}x{HUGE} AVI', avi, rf'{HUGE}|too large|larger|limit'),
]


# --- helpers ---

def colour_of(region):
    """The name of the solid colour a region shows, or None, and its mean."""
    px = region.reshape(-1, 3).astype(np.int16)
    mean = px.mean(axis=0)
    spread = int((px.max(axis=0) - px.min(axis=0)).max()) if len(px) else 999
    for name, c in COLOURS.items():
        if np.abs(mean - np.array(c)).max() <= COLOUR_TOLERANCE and spread <= 2 * COLOUR_TOLERANCE:
            return name, vt.px(mean)
    return None, vt.px(mean)


def screen_colour(c):
    shot = vt.grab(c, OUT)
    return colour_of(shot[H // 4:3 * H // 4, W // 4:3 * W // 4])[0]


def counters(c):
    v = c.veil(OUT)
    src = v.get('source') or {}
    return v.get('frames', 0), src.get('frames', 0), src.get('loops', 0)


def colours_over_loops(c, loops, what, extra=lambda: None):
    """Colours on the screen until the source has looped `loops` more times (and one more
    colour change after that); extra() runs with each sample."""
    start = counters(c)[2]
    seen = []
    deadline = time.monotonic() + vt.WAIT_TIMEOUT
    while True:
        name = screen_colour(c)
        if not seen or seen[-1] != name:
            seen.append(name)
        extra()
        cur = counters(c)[2]
        if cur >= start + loops and len(seen) >= 2 * loops + 1:
            return seen
        if time.monotonic() > deadline:
            raise vt.Failure(f'{what}: {cur - start} loops in {vt.WAIT_TIMEOUT:.0f} s, '
                             f'colours {seen}')
        time.sleep(0.05)


def wait_counters_still(c, what):
    last = [None]

    def pred():
        cur = counters(c)[:2]
        same = cur == last[0]
        last[0] = cur
        return same
    c.wait_until(pred, f'the frame counters to stop ({what})', interval=0.5)


def h264_decoders():
    """Every element gst-inspect-1.0 lists whose name says it decodes H.264."""
    r = subprocess.run(['gst-inspect-1.0'], capture_output=True, text=True, timeout=120)
    names = set(re.findall(r'^[\w-]+:\s+([\w-]+):', r.stdout, re.M))
    return sorted(n for n in names if 'h264' in n and 'dec' in n)


def bad_over(c, baseline, state, good_file, label, path, pattern):
    cmd = f'output {OUT} veil {vt.quote(path)} fill'
    hwm = vt.proc.hwm_kb(c.proc.pid)
    start = time.monotonic()
    ok, err = c.msg(cmd)
    if ok:
        # What the header cannot tell, the decode finds after the reply: the status says it.
        def ended():
            v = c.veil(OUT)
            return v if v.get('loading') is None else None
        err = c.wait_until(ended, 'the load to end').get('error') or ''
    took = time.monotonic() - start
    t.check(err, f'`veil {os.path.basename(path)} fill` fails, at once or after the reply',
            'it succeeded')
    vt._say(f'   error ({took:.2f} s, {"in the status" if ok else "the reply"}): {err}')
    # The file's own name must not be what matches.
    t.check(re.search(pattern, err.replace(path, '<file>'), re.I), f'error says /{pattern}/',
            repr(err))
    t.check(os.path.basename(path) in err, 'error names the file', repr(err))
    if str(HUGE) in label:
        t.check(took < FAST_FAIL_BOUND, f'fails fast (< {FAST_FAIL_BOUND:.0f} s)',
                f'{took:.1f} s')
        grown = vt.proc.hwm_kb(c.proc.pid) - hwm
        t.check(grown < HWM_GROWTH_MAX_KIB, 'no frame of that size was allocated (VmHWM)',
                f'peak RSS grew {grown} KiB')
    v = c.veil(OUT)
    t.check(v.get('state') == state and v.get('file') == good_file,
            f'the good wallpaper is still set ({state})', str(v))
    t.check(isinstance(v.get('error'), str) and os.path.basename(path) in v['error'],
            'status error is set and names the file', repr(v.get('error')))
    shot = c.screenshot(OUT)
    t.compare(shot, baseline, f'{label}-unchanged', tolerance=0, ignore_border=0)
    t.check(c.responsive(), 'the compositor answers IPC')


with t.compositor(outputs=1) as c:
    pid = c.proc.pid

    # --- bad files over a still ---
    with t.case('over a still: setup'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_png)} fill')
        t.check(ok, 'the good still is accepted', err)
        c.wait_veil(OUT, 'shown', file=good_png)
        still_baseline = c.settled_screenshot(OUT)
        t.compare(still_baseline, vt.expect_fill(good_png, W, H), 'still-baseline',
                  tolerance=8, mean_tolerance=1, ignore_edges=4)
    for label, path, pattern in BAD_FILES:
        with t.case(f'over a still: {label}'):
            bad_over(c, still_baseline, 'shown', good_png, label, path, pattern)

    # --- the same over a paused video ---
    with t.case('over a paused video: setup'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_video)} fill')
        t.check(ok, 'the good video is accepted', err)
        c.wait_veil(OUT, 'shown', file=good_video)
        f0 = counters(c)
        c.wait_until(lambda: counters(c)[1] >= f0[1] + 5, 'the video to play')
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, '`veil pause` accepted', err)
        c.wait_veil(OUT, 'paused')
        wait_counters_still(c, 'paused')
        video_baseline = c.settled_screenshot(OUT)
        middle = video_baseline[H // 4:3 * H // 4, W // 4:3 * W // 4]
        t.check(colour_of(middle)[0] in ('red', 'green'), 'paused on a frame of the video',
                str(colour_of(middle)[1]))
    for label, path, pattern in BAD_FILES:
        with t.case(f'over a paused video: {label}'):
            bad_over(c, video_baseline, 'paused', good_video, label, path, pattern)
    with t.case('over a paused video: it resumes'):
        a = counters(c)
        t.check(c.veil(OUT).get('paused') == 'command', 'still paused after the bad files')
        ok, err = c.msg(f'output {OUT} veil resume')
        t.check(ok, '`veil resume` accepted', err)
        c.wait_veil(OUT, 'shown', file=good_video)
        c.check_until(lambda: counters(c)[1] >= a[1] + 5, 'the good video plays again')

    # --- a truncation only reached while playing ---
    with t.case('truncated MP4, cut after 2 s of 3 (reached while playing)'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(truncated_late)} fill')
        if not ok:
            vt._say(f'   refused: {err}')
            t.check(os.path.basename(truncated_late) in err, 'the error names the file', err)
            t.compare(c.screenshot(OUT), still_baseline, 'truncated-late-unchanged',
                      tolerance=0, ignore_border=0)
        else:
            c.wait_veil(OUT, 'shown', file=truncated_late)
            state = {'error': None}

            def note_error():
                state['error'] = c.veil(OUT).get('error')
                if state['error'] is not None:
                    raise vt.Failure('stopped')
            try:
                seen = colours_over_loops(c, 2, 'the truncated video', note_error)
            except vt.Failure:
                seen = None
            if state['error'] is None and seen is not None:
                vt._say(f'   plays what there is and loops: {seen}')
                t.check(set(seen) == {'red', 'green'}, 'both colours of the first 2 s shown',
                        str(seen))
                t.check(c.veil(OUT).get('state') == 'shown', 'still shown')
            else:
                vt._say(f'   stops with an error: {state["error"]}')
                t.check(os.path.basename(truncated_late) in (state['error'] or ''),
                        'the error names the file', str(state['error']))
                wait_counters_still(c, 'stopped')
                t.check(screen_colour(c) in ('red', 'green'), 'the last frame stays')
        t.check(c.responsive(), 'the compositor answers IPC')

    # --- caps that change mid-stream ---
    with t.case('caps change mid-stream (raw H.264, 64x48 red then 128x96 blue)'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(caps_change)} center #202020')
        t.check(ok, '`veil caps-change.h264 center` accepted', err)
        c.wait_veil(OUT, 'shown', file=caps_change)
        want = {'red': (64, 48), 'blue': (128, 96)}
        seen = {}       # (colour, (w, h)) -> times seen
        inconsistent = []
        sizes_reported = set()
        start = counters(c)[2]
        began = time.monotonic()
        deadline = began + vt.WAIT_TIMEOUT
        error = None
        later = set()   # colours seen from the second loop on
        while time.monotonic() < deadline:
            shot = vt.grab(c, OUT)
            box = vt.bbox(np.abs(shot.astype(np.int16) - np.array(BARS)).max(axis=2) > 30)
            v = c.veil(OUT)
            ss = v.get('source_size') or {}
            sizes_reported.add((ss.get('width'), ss.get('height')))
            error = v.get('error')
            if box is None:
                inconsistent.append('nothing but bars on the screen')
                continue
            x0, y0, x1, y1 = box
            size = (x1 - x0 + 1, y1 - y0 + 1)
            name, mean = colour_of(shot[y0:y1 + 1, x0:x1 + 1])
            key = (name, size)
            if key not in seen and (name not in want or want[name] != size or
                                    abs((x0 + x1 + 1) / 2 - W / 2) > 1 or
                                    abs((y0 + y1 + 1) / 2 - H / 2) > 1):
                inconsistent.append(f'{name or mean} {size[0]}x{size[1]} at {x0},{y0}')
            seen[key] = seen.get(key, 0) + 1
            loops = (v.get('source') or {}).get('loops', 0)
            if loops >= start + 1:
                later.add(name)
            if error is not None or (loops >= start + 3 and len(seen) >= 2 and
                                     all(n >= 2 for n in seen.values()) and
                                     {'red', 'blue'} <= later):
                break
            time.sleep(0.05)
        elapsed = time.monotonic() - began
        looped = (counters(c)[2] or 0) - start
        vt._say(f'   seen on the screen: {seen}; source_size reported: {sorted(sizes_reported)};'
                f' error: {error}; {looped} loops in {elapsed:.1f} s')
        t.check(not inconsistent, 'every frame on the screen is a red 64x48 or a blue '
                '128x96, centred 1:1', '; '.join(inconsistent[:5]))
        if error is None:
            vt._say('   veil follows the new size')
            t.check(('red', (64, 48)) in seen and ('blue', (128, 96)) in seen,
                    'both sizes were shown', str(seen))
            t.check({'red', 'blue'} <= later, 'and both again after a loop', str(later))
            # A loop takes 2 s; one at each frame would be 10 a second.
            t.check(looped <= elapsed / 2 * 1.5 + 2, "loops at the clip's pace",
                    f'{looped} loops in {elapsed:.1f} s')
            t.check({(64, 48), (128, 96)} <= sizes_reported,
                    'source_size follows the frames', str(sorted(sizes_reported)))
            t.check(c.veil(OUT).get('state') == 'shown', 'still shown',
                    str(c.veil(OUT).get('state')))
        else:
            vt._say(f'   veil reports an error: {error}')
            a = vt.grab(c, OUT)
            time.sleep(1.0)
            b = vt.grab(c, OUT)
            t.check(np.array_equal(a, b) and vt.bbox(
                np.abs(b.astype(np.int16) - np.array(BARS)).max(axis=2) > 30) is not None,
                'the last frame stays on the screen after the error')
        t.check(c.responsive(), 'the compositor answers IPC')

    # --- the file deleted while playing ---
    with t.case('file deleted while playing'):
        doomed = shutil.copy(good_video, m('deleted-while-playing.mp4'))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(doomed)} fill')
        t.check(ok, 'a copy of the good video is accepted', err)
        c.wait_veil(OUT, 'shown', file=doomed)
        f0 = counters(c)
        c.wait_until(lambda: counters(c)[1] >= f0[1] + 5, 'the video to play')
        os.unlink(doomed)
        a = counters(c)
        seen = colours_over_loops(c, 2, 'after the deletion')
        vt._say(f'   colours after the deletion: {seen}')
        t.check(set(seen) == {'red', 'green'}, 'both colours keep coming after the deletion',
                str(seen))
        b = counters(c)
        t.check(b[2] >= a[2] + 2 and b[1] > a[1], 'frames and loops rise', f'{a} -> {b}')
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('error') is None,
                'shown, no error', str(v))

    # --- the file replaced while playing ---
    with t.case('file replaced while playing'):
        path = shutil.copy(good_video, m('replaced-while-playing.mp4'))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
        t.check(ok, 'the red/green video is accepted', err)
        c.wait_veil(OUT, 'shown', file=path)
        f0 = counters(c)
        c.wait_until(lambda: counters(c)[1] >= f0[1] + 5, 'the video to play')
        old_pipeline = (c.veil(OUT).get('source') or {}).get('pipeline')
        new = colour_clip(m('replacement.tmp.mp4'), [BLUE, YELLOW])
        os.replace(new, path)
        seen = colours_over_loops(c, 2, 'after the replacement')
        vt._say(f'   colours after the replacement: {seen}')
        t.check(set(seen) == {'red', 'green'}, 'the old content keeps playing', str(seen))
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('error') is None and
                v.get('file') == path, 'shown, no error', str(v))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
        t.check(ok, 'setting the same path again is accepted', err)
        c.wait_until(lambda: screen_colour(c) in ('blue', 'yellow'),
                     'the new content on the screen')
        seen = colours_over_loops(c, 1, 'the new content')
        vt._say(f'   colours after setting it again: {seen}')
        t.check(set(seen) == {'blue', 'yellow'}, 'the new content plays', str(seen))
        new_pipeline = (c.veil(OUT).get('source') or {}).get('pipeline')
        t.check(new_pipeline != old_pipeline, 'from a new pipeline',
                f'{old_pipeline} -> {new_pipeline}')

    with t.case('alive after all of it'):
        t.check(c.responsive(), 'the compositor answers IPC')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_png)} fill')
        t.check(ok, 'a good still is accepted', err)
        v = c.wait_veil(OUT, 'shown', file=good_png)
        t.check(v.get('error') is None, 'the error is cleared', str(v.get('error')))
        t.compare(c.settled_screenshot(OUT), still_baseline, 'still-again', tolerance=0,
                  ignore_border=0)

# --- a missing decoder plugin ---
decoders = h264_decoders() + ['veilavdec']
rank_env = ','.join(f'{d}:NONE' for d in decoders)
vt._say(f'# GST_PLUGIN_FEATURE_RANK={rank_env}')
with t.compositor(outputs=1, name='compositor-no-h264',
                  env={'GST_PLUGIN_FEATURE_RANK': rank_env}) as c:
    with t.case('missing H.264 decoder (GST_PLUGIN_FEATURE_RANK)'):
        t.check('avdec_h264' in decoders or 'openh264dec' in decoders,
                'gst-inspect-1.0 lists an H.264 decoder to disable', str(decoders))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_png)} fill')
        t.check(ok, 'the good still is accepted', err)
        c.wait_veil(OUT, 'shown', file=good_png)
        baseline = c.settled_screenshot(OUT)
        bad_over(c, baseline, 'shown', good_png, 'no H.264 decoder', good_video,
                 MISSING_PATTERN)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(mpeg4_avi)} fill')
        t.check(ok, 'an MPEG-4 part 2 AVI still plays (only H.264 is missing)', err)
        v = c.wait_veil(OUT, 'shown', file=mpeg4_avi)
        vt._say(f'   decoder: {(v.get("source") or {}).get("decoder")}')
        c.check_until(lambda: screen_colour(c) in ('yellow', 'blue'), 'the AVI is on the screen')
        t.check(c.responsive(), 'the compositor answers IPC')

t.finish()
