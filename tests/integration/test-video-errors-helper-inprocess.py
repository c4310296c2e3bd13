#!/usr/bin/env python3
"""
A video's errors read the same wherever it plays: one compositor on the default path (pixman:
videos play in veil-decoder; named in its environment, VEIL_DECODER(_VIDEO)=process, so that
`meson test --setup inprocess` leaves it there) and one that chooses the compositor's own process
(VEIL_DECODER_VIDEO=inprocess, the non-default path), both through the real swaymsg. The two
bus handlers (helper/serve_video.c, source/video/bus.c) share veil_player_handle_message().

- a codec no installed decoder takes: an MPEG-4 part 2 AVI whose FourCC is made "ZZZZ"
  (avidemux calls it video/x-avi-unknown), shown over a PNG: the error names the file and says
  a plugin or decoder is missing, the PNG stays;
- a decoder error mid-stream: a 6 s PNG-in-MOV clip whose frames from 1.8 s on have their
  IDAT data damaged (every chunk's length right, its CRC wrong: libpng refuses it, pngdec
  fails): the clip is shown, then stops with an error naming the file.

On the default path the clip's frames come from a decoding veil-decoder process, in process
from none. Each sentence is the same string on both paths.
"""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('video-errors-helper-inprocess')
OUT = 'HEADLESS-1'
MISSING_PATTERN = r'decoder|plugin|missing'
MIDSTREAM_PATTERN = r"can.t be played|stream"
PNG_SIG = b'\x89PNG\r\n\x1a\n'


def damaged_png_clip(path, seconds=6, fps=10, good=0.3):
    """A PNG-in-MOV clip whose frames after the first `good` part have their IDAT data damaged."""
    tmp = path + '.tmp.mov'
    vt._ffmpeg(['-f', 'lavfi', '-i', f'testsrc2=size=320x240:rate={fps}', '-t', str(seconds),
                '-c:v', 'png', '-movflags', '+faststart', tmp])
    with open(tmp, 'rb') as f:
        data = bytearray(f.read())
    os.unlink(tmp)
    starts = [m.start() for m in re.finditer(re.escape(PNG_SIG), bytes(data))]
    if len(starts) != seconds * fps:
        raise vt.Failure(f'{len(starts)} PNG frames in the clip, not {seconds * fps}')
    damaged = 0
    for start in starts[int(len(starts) * good):]:
        pos = start + len(PNG_SIG)
        while pos + 8 <= len(data):
            length, kind = struct.unpack('>I4s', data[pos:pos + 8])
            if kind == b'IDAT':
                # Past the zlib header: the data is wrong, its CRC says so.
                for k in range(pos + 10, pos + 8 + length, 7):
                    data[k] ^= 0x5a
                damaged += 1
                break
            pos += 12 + length
    if damaged != len(starts) - int(len(starts) * good):
        raise vt.Failure(f'damaged {damaged} frames of {len(starts)}')
    return vt._write(path, bytes(data))


png = vt.make_png(os.path.join(t.media, 'still.png'), vt.quadrant_pixels(640, 360))
zzzz = vt.make_unknown_fourcc_avi(os.path.join(t.media, 'unknown-fourcc.avi'))
midstream = damaged_png_clip(os.path.join(t.media, 'damaged-midstream.mov'))


def load_error(c, path):
    """The error of `veil path fill`: the reply's, or the status's once the load ended."""
    ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
    if ok:
        def ended():
            v = c.veil(OUT)
            return v if v.get('loading') is None else None
        err = c.wait_until(ended, 'the load to end').get('error') or ''
    return err


sentences = {}
INPROCESS = {'VEIL_DECODER_VIDEO': 'inprocess'}
if os.environ.get('ASAN_OPTIONS') is not None:
    # In the sanitizer run: GStreamer's pngdec leaks the frame it was decoding when libpng
    # stops on the damaged chunk (the codec frame from libgstvideo's decoder chain and its
    # output buffer from libgstpng; no frame of veil in either stack, read with
    # fast_unwind_on_malloc=0), which LeakSanitizer reports at the compositor's exit. The
    # compositor that plays it in process has the leak check off; every other compositor,
    # and the other in-process video tests, keep it.
    INPROCESS['ASAN_OPTIONS'] = os.environ['ASAN_OPTIONS'] + ':detect_leaks=0'
# Each path named, so that `meson test --setup inprocess` (VEIL_DECODER=inprocess in the
# environment, CI's sanitizer run) still plays the first compositor's videos in veil-decoder.
HELPER = {'VEIL_DECODER': 'process', 'VEIL_DECODER_VIDEO': 'process'}
PATHS = [('veil-decoder', HELPER), ('inprocess', INPROCESS)]
for place, env in PATHS:
    with t.compositor(outputs=1, name=f'compositor-{place}', env=env) as c:
        with t.case(f'{place}: a codec no decoder takes'):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(png)} fill')
            t.check(ok, 'the PNG is accepted', err)
            c.wait_veil(OUT, 'shown', file=png)
            baseline = c.settled_screenshot(OUT)
            err = load_error(c, zzzz)
            vt._say(f'   error: {err}')
            sentences[(place, 'missing')] = err
            t.check(re.search(MISSING_PATTERN, err.replace(zzzz, '<file>'), re.I),
                    f'the error says /{MISSING_PATTERN}/', repr(err))
            t.check(os.path.basename(zzzz) in err, 'the error names the file', repr(err))
            v = c.veil(OUT)
            t.check(v.get('file') == png and v.get('state') == 'shown', 'the PNG is still set',
                    str(v))
            t.compare(c.screenshot(OUT), baseline, f'{place}-missing-unchanged', tolerance=0,
                      ignore_border=0)

        with t.case(f'{place}: a decoder error mid-stream'):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(midstream)} fill')
            t.check(ok, 'the clip is accepted (its first frames decode)', err)
            c.wait_veil(OUT, 'shown', file=midstream)
            helpers = vt.decoding_pids(c.proc.pid)
            if place == 'veil-decoder':
                t.check(helpers, 'a veil-decoder process decodes it', str(helpers))
            else:
                t.check(not helpers, 'no veil-decoder process decodes it', str(helpers))
            v = c.wait_until(lambda: c.veil_error(OUT, midstream), 'the error mid-stream')
            err = v.get('error') or ''
            vt._say(f'   error: {err}')
            sentences[(place, 'midstream')] = err
            t.check(re.search(MIDSTREAM_PATTERN, err.replace(midstream, '<file>'), re.I),
                    f'the error says /{MIDSTREAM_PATTERN}/', repr(err))
            t.check(os.path.basename(midstream) in err, 'the error names the file', repr(err))
            t.check(c.responsive(), 'the compositor answers IPC')

with t.case('the same sentences on both paths'):
    for kind in ('missing', 'midstream'):
        helper = sentences.get(('veil-decoder', kind))
        inprocess = sentences.get(('inprocess', kind))
        t.check(helper is not None and helper == inprocess, f'{kind}: one sentence',
                f'veil-decoder {helper!r}, in process {inprocess!r}')

t.finish()
