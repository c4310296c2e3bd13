"""
Animated test media written here from numpy frames, byte by byte as the formats say, so that
delays, disposal, transparency and loop counts are exactly what a test asks for: GIF (its LZW
data as literal codes, with a clear code before the table grows past 9-bit codes) and APNG
(acTL, fcTL, IDAT/fdAT with zlib). Animated WebP comes from ffmpeg (libwebp_anim).
"""
import struct
import zlib

import numpy as np


def _lzw_literals(indices):
    """8-bit indices as GIF LZW data of 9-bit codes: clear, up to 250 literals, clear, ..."""
    clear, end = 256, 257
    bits, nbits, out = 0, 0, bytearray()

    def put(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += 9
        while nbits >= 8:
            out.append(bits & 0xff)
            bits >>= 8
            nbits -= 8
    for i, v in enumerate(indices):
        if i % 250 == 0:
            put(clear)
        put(int(v))
    put(end)
    if nbits:
        out.append(bits & 0xff)
    return bytes(out)


def _sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        block = data[i:i + 255]
        out.append(len(block))
        out += block
    out.append(0)
    return bytes(out)


def gif(w, h, palette, frames, loop=0):
    """
    palette: up to 256 (r, g, b); frames: dicts with 'indices' (fh x fw uint8), 'delay_cs',
    optional 'x', 'y', 'disposal' (0-3), 'transparent' (an index). loop: the NETSCAPE2.0
    count (0: for ever), None for no loop extension.
    """
    pal = list(palette) + [(0, 0, 0)] * (256 - len(palette))
    out = bytearray(b'GIF89a' + struct.pack('<HHBBB', w, h, 0xf7, 0, 0))
    for r, g, b in pal:
        out += bytes((r, g, b))
    if loop is not None:
        out += b'\x21\xff\x0bNETSCAPE2.0\x03\x01' + struct.pack('<H', loop) + b'\x00'
    for f in frames:
        idx = np.asarray(f['indices'], np.uint8)
        fh, fw = idx.shape
        t = f.get('transparent')
        packed = (f.get('disposal', 1) << 2) | (1 if t is not None else 0)
        out += b'\x21\xf9\x04' + bytes((packed,)) + struct.pack('<H', f['delay_cs']) + \
            bytes((t or 0,)) + b'\x00'
        out += b'\x2c' + struct.pack('<HHHHB', f.get('x', 0), f.get('y', 0), fw, fh, 0)
        out += b'\x08' + _sub_blocks(_lzw_literals(idx.reshape(-1)))
    out += b'\x3b'
    return bytes(out)


def _chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + \
        struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)


def _idat_data(rgba):
    h, w = rgba.shape[:2]
    raw = b''.join(b'\x00' + rgba[y].tobytes() for y in range(h))
    return zlib.compress(raw, 6)


def apng(w, h, frames, plays=0):
    """
    frames: dicts with 'rgba' (fh x fw x 4 uint8, straight alpha), 'delay_ms', optional 'x',
    'y', 'dispose' (0 none, 1 background, 2 previous), 'blend' (0 source, 1 over). The first
    frame is the default image (IDAT). plays: acTL's num_plays (0: for ever).
    """
    out = bytearray(b'\x89PNG\r\n\x1a\n')
    out += _chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
    out += _chunk(b'acTL', struct.pack('>II', len(frames), plays))
    seq = 0
    for i, f in enumerate(frames):
        rgba = np.ascontiguousarray(f['rgba'], np.uint8)
        fh, fw = rgba.shape[:2]
        out += _chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, fw, fh, f.get('x', 0),
                                           f.get('y', 0), f['delay_ms'], 1000,
                                           f.get('dispose', 0), f.get('blend', 0)))
        seq += 1
        data = _idat_data(rgba)
        if i == 0:
            out += _chunk(b'IDAT', data)
        else:
            out += _chunk(b'fdAT', struct.pack('>I', seq) + data)
            seq += 1
    out += _chunk(b'IEND', b'')
    return bytes(out)


def solid(w, h, rgb, alpha=255):
    img = np.zeros((h, w, 4), np.uint8)
    img[..., :3] = rgb
    img[..., 3] = alpha
    return img
