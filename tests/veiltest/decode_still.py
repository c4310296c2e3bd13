"""
tests/tools/decode-still, run and read: a file through veil's own decoding path with no
compositor (the tool's comment says what it prints). One reader for the tests and benches that
use it: tests/conformance/test-conformance.py, tests/integration/test-jpeg.py,
tests/bench/jpeg-cover.py.

    info, pixels = decode_still.run(tool, 'photo.jpg', '/tmp/out.pam', cover=(1920, 1080))

info: the tool's lines as a dict of strings, with 'status' (its exit status: 0 shown, 1
refused), 'utf8' (whether its output was valid UTF-8: the sentences of a file veil refuses
must be) and, when shown, 'width', 'height', 'file_width', 'file_height' (ints) and 'cpu_ms'
(a float). pixels: the picture as an (h, w, 4) uint8 array of straight R, G, B, A, or None when
the file was refused.
"""
import subprocess

import numpy as np


class ToolFailed(RuntimeError):
    pass


def read_pam(data):
    """A PAM's pixels as an (h, w, depth) array of its own type (uint8, or >u2 past 255), and
    its maxval."""
    end = data.index(b'ENDHDR\n') + 7
    head = {}
    for line in data[:end].decode('ascii').split('\n')[1:]:
        if ' ' in line:
            key, value = line.split(' ', 1)
            head[key] = value
    w, h, d = int(head['WIDTH']), int(head['HEIGHT']), int(head['DEPTH'])
    maxval = int(head['MAXVAL'])
    dtype = np.dtype('>u2') if maxval > 255 else np.uint8
    return np.frombuffer(data[end:], dtype=dtype, count=w * h * d).reshape(h, w, d), maxval


def parse(stdout):
    """The tool's "key: value" lines (and 'utf8')."""
    try:
        text = stdout.decode('utf-8')
        info = {'utf8': True}
    except UnicodeDecodeError:
        text = stdout.decode('utf-8', errors='replace')
        info = {'utf8': False}
    for line in text.splitlines():
        if ': ' in line:
            key, value = line.split(': ', 1)
            info[key] = value
    for key, (wk, hk) in (('size', ('width', 'height')), ('file', ('file_width', 'file_height'))):
        if 'x' in info.get(key, ''):
            w, h = info[key].split('x', 1)
            info[wk], info[hk] = int(w), int(h)
    if 'cpu_ms' in info:
        info['cpu_ms'] = float(info['cpu_ms'])
    return info


def run(tool, path, out, cover=None, full=False, timeout=300):
    """(info, pixels) of path through veil's decoding path; pixels None when refused."""
    cmd = [tool] + (['--full'] if full else []) + [path, out]
    if cover:
        cmd += [str(cover[0]), str(cover[1])]
    r = subprocess.run(cmd, capture_output=True, timeout=timeout)
    info = parse(r.stdout)
    info['status'] = r.returncode
    if r.returncode not in (0, 1):
        raise ToolFailed('decode-still %s: status %d: %s' % (
            path, r.returncode, r.stderr.decode(errors='replace').strip()[-300:]))
    if r.returncode != 0:
        return info, None
    with open(out, 'rb') as f:
        return info, read_pam(f.read())[0]
