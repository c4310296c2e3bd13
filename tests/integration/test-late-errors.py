#!/usr/bin/env python3
"""
Errors found after the reply, on big files (test-bad-input.py has the small ones): a file
whose header passes the command's checks and whose data does not decode.

- a 6000x4000 noisy PNG whose IDAT is damaged halfway (every CRC right);
- a 6000x4000 noisy JPEG cut in the middle of its scan;
- an HEVC MP4 whose coded frames (the payload of its mdat box) are random, its ftyp and moov
  boxes (the container's header) intact.

For each, over a noisy 3840x2160 photo shown before: the command is accepted (the decode runs
after the reply), then the status's `error` names the file, `veilctl status --watch --json`
(the control protocol's error event) prints an error naming it, the screen (grim) keeps the
photo of before, and the status still describes it.
"""
import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402
from veiltest import load as ll  # noqa: E402

t = vt.Test('late-errors')
OUT = 'HEADLESS-1'
ERROR_TIMEOUT = 60.0
if not t.veilctl or not os.access(t.veilctl, os.X_OK):
    print(f'SKIP: veilctl is not built ({t.veilctl})')
    print('0 passed, 0 failed, 1 skipped')
    sys.exit(vt.SKIP)

paths = ll.media(t, ['noise-6000x4000.png', 'noise-6000x4000.jpg', 'noise-3840x2160.jpg',
                     'hevc-1080p30.mp4'])
before = paths['noise-3840x2160.jpg']
bad_png = vt.make_corrupt_png(os.path.join(t.media, 'damaged-halfway-6000x4000.png'),
                              paths['noise-6000x4000.png'], first_block=False)
cut_jpg = vt.make_truncated(os.path.join(t.media, 'cut-6000x4000.jpg'),
                            paths['noise-6000x4000.jpg'], 0.5)


def garbage_stream(path, good_mp4):
    """good_mp4 with the payload of its mdat box (the coded frames) random; ftyp, moov intact."""
    with open(good_mp4, 'rb') as f:
        data = bytearray(f.read())
    pos = 0
    while pos + 8 <= len(data):
        size, kind = struct.unpack('>I4s', data[pos:pos + 8])
        if size < 8:
            raise RuntimeError(f'{good_mp4}: box of size {size} at {pos}')
        if kind == b'mdat':
            data[pos + 8:pos + size] = random.Random(7).randbytes(size - 8)
            return vt._write(path, bytes(data))
        pos += size
    raise RuntimeError(f'{good_mp4}: no mdat box')


bad_video = garbage_stream(os.path.join(t.media, 'garbage-stream.mp4'), paths['hevc-1080p30.mp4'])
CASES = [('PNG damaged halfway', bad_png), ('JPEG cut in its scan', cut_jpg),
         ('MP4 whose coded frames are garbage (ftyp and moov intact)', bad_video)]


with t.compositor(outputs=1) as c:
    watch = vt.StatusWatch(t.veilctl, c.client_env)
    try:
        for label, path in CASES:
            with t.case(label):
                ok, err = c.msg(f'output {OUT} veil {vt.quote(before)} fill')
                t.check(ok, 'the photo of before is accepted', err)
                c.wait_veil(OUT, 'shown', file=before)
                colour = ll.colour_of(before)
                c.wait_until(lambda: ll.is_photo(vt.grab(c, OUT), colour),
                             'the photo of before on the screen')
                watch.drain()
                name = os.path.basename(path)
                t0 = time.monotonic()
                ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
                reply = time.monotonic() - t0
                t.check(ok, 'accepted: the header is sound, the decode comes after the reply',
                        err)

                def failed():
                    v = c.veil(OUT)
                    return v if v.get('error') and v.get('loading') is None else None
                v = c.check_until(failed, 'the status gets an error', timeout=ERROR_TIMEOUT)
                found = time.monotonic() - t0
                if v is None:
                    continue
                vt._say(f'   reply {1000 * reply:.0f} ms, error {found:.2f} s after the '
                        f'command: {v["error"]}')
                t.check(name in v['error'], f'the status error names {name}', v['error'])
                werr = watch.error_naming(OUT, name, 10.0)
                t.check(werr is not None, f'veilctl status --watch prints an error naming {name}',
                        'none within 10 s')
                img = vt.grab(c, OUT)
                t.check(ll.is_photo(img, colour), 'the screen keeps the photo of before',
                        ll.describe(img))
                t.check(v.get('file') == before and v.get('state') == 'shown',
                        'the status still describes the photo of before',
                        f'{v.get("state")} {v.get("file")}')
    finally:
        watch.stop()

t.finish()
