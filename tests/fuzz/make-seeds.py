#!/usr/bin/env python3
"""
Makes the seed corpora under tests/fuzz/corpus/ (they are committed; run this again only to
change them): small, valid inputs of every kind each target should reach, plus a few that
stop early on purpose (a header claiming a huge picture, a cut file), so that the fuzzer starts
from every branch rather than finding the formats itself.

    tests/fuzz/make-seeds.py            # needs python3 and, for gst-image, ffmpeg
    tests/fuzz/make-seeds.py stills     # only the named corpora (png, gst, stills, command)

PNGs are written here byte by byte (every colour type and bit depth, palettes, tRNS, Adam7
interlacing, every filter type, several IDATs, ancillary chunks); the other still formats come
from ffmpeg; the headers veil parses itself (WebP, TIFF) are also written by hand.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, 'corpus')


def write(kind, name, data):
    d = os.path.join(CORPUS, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# --- PNG ---

def chunk(kind, body):
    return (struct.pack('>I', len(body)) + kind + body +
            struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))


CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def sample(x, y, c, depth):
    return ((x * 37 + y * 101 + c * 53) ^ (x * y)) % (1 << depth)


def pack_row(values, depth):
    """Samples of one row packed big-endian at depth bits each."""
    if depth == 8:
        return bytes(values)
    if depth == 16:
        return b''.join(struct.pack('>H', v) for v in values)
    out, acc, nbits = bytearray(), 0, 0
    for v in values:
        acc = (acc << depth) | v
        nbits += depth
        if nbits == 8:
            out.append(acc)
            acc, nbits = 0, 0
    if nbits:
        out.append(acc << (8 - nbits))
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(kind, row, prev, bpp):
    out = bytearray([kind])
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - pred) & 0xff)
    return bytes(out)


def image_rows(w, h, ctype, depth, x0=0, dx=1, y0=0, dy=1):
    rows = []
    for y in range(y0, h, dy):
        vals = []
        for x in range(x0, w, dx):
            for c in range(CHANNELS[ctype]):
                v = sample(x, y, c, depth)
                if ctype == 3:
                    v %= min(1 << depth, 7)
                vals.append(v)
        if vals:
            rows.append(pack_row(vals, depth))
    return rows


ADAM7 = [(0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2),
         (0, 1, 1, 2)]


def png(w, h, ctype, depth, interlace=False, filters=(0, 1, 2, 3, 4), trns=None, extra=(),
        idat_parts=1, palette_size=7):
    bpp = max(1, CHANNELS[ctype] * depth // 8)
    raw = bytearray()
    passes = ADAM7 if interlace else [(0, 1, 0, 1)]
    n = 0
    for x0, dx, y0, dy in passes:
        prev = None
        for row in image_rows(w, h, ctype, depth, x0, dx, y0, dy):
            raw += filter_row(filters[n % len(filters)], row, prev, bpp)
            prev = row
            n += 1
    data = zlib.compress(bytes(raw), 9)
    out = [b'\x89PNG\r\n\x1a\n',
           chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, int(interlace)))]
    for kind, body in extra:
        out.append(chunk(kind, body))
    if ctype == 3:
        out.append(chunk(b'PLTE', bytes(
            v for i in range(palette_size) for v in (i * 40 % 256, 255 - i * 30, i * 90 % 256))))
    if trns is not None:
        out.append(chunk(b'tRNS', trns))
    step = -(-len(data) // idat_parts)
    for i in range(0, len(data), step):
        out.append(chunk(b'IDAT', data[i:i + step]))
    out.append(chunk(b'IEND', b''))
    return b''.join(out)


def png_seeds():
    seeds = {}
    for depth in (1, 2, 4, 8, 16):
        seeds[f'gray{depth}.png'] = png(13, 9, 0, depth)
    for depth in (8, 16):
        seeds[f'rgb{depth}.png'] = png(9, 7, 2, depth)
        seeds[f'graya{depth}.png'] = png(7, 5, 4, depth)
        seeds[f'rgba{depth}.png'] = png(9, 6, 6, depth)
    for depth in (1, 2, 4, 8):
        seeds[f'palette{depth}.png'] = png(11, 5, 3, depth,
                                           palette_size=min(1 << depth, 7))
    seeds['palette8-trns.png'] = png(8, 8, 3, 8, trns=bytes([0, 128, 255, 7]))
    seeds['gray8-trns.png'] = png(6, 6, 0, 8, trns=struct.pack('>H', 37))
    seeds['rgb16-trns.png'] = png(6, 4, 2, 16, trns=struct.pack('>HHH', 1, 2, 3))
    seeds['rgba8-adam7.png'] = png(17, 13, 6, 8, interlace=True)
    seeds['gray2-adam7.png'] = png(10, 11, 0, 2, interlace=True)
    seeds['palette4-adam7.png'] = png(9, 9, 3, 4, interlace=True)
    seeds['rgb8-3idat.png'] = png(16, 16, 2, 8, idat_parts=3)
    seeds['rgb8-1x1.png'] = png(1, 1, 2, 8)
    seeds['rgba8-wide.png'] = png(300, 2, 6, 8)
    seeds['rgba8-tall.png'] = png(2, 300, 6, 8)
    seeds['rgb8-ancillary.png'] = png(5, 5, 2, 8, extra=[
        (b'gAMA', struct.pack('>I', 45455)),
        (b'tEXt', b'Comment\x00made for veil\'s fuzzer'),
        (b'zTXt', b'Title\x00\x00' + zlib.compress(b'a wallpaper')),
        (b'iCCP', b'bogus\x00\x00' + zlib.compress(b'not a profile')),
        (b'pHYs', struct.pack('>IIB', 2835, 2835, 1)),
        (b'vpAg', b'\x00' * 9),  # an unknown chunk
    ])
    # Stop early: a header over the limits, a header only, a cut IDAT, no IEND, a bad CRC.
    huge = bytearray(png(4, 4, 6, 8))
    struct.pack_into('>II', huge, 16, 100000, 100000)
    struct.pack_into('>I', huge, 29, zlib.crc32(bytes(huge[12:29])) & 0xffffffff)
    seeds['huge-header.png'] = bytes(huge)
    big = bytearray(png(4, 4, 2, 8))
    struct.pack_into('>II', big, 16, 16384, 2)
    struct.pack_into('>I', big, 29, zlib.crc32(bytes(big[12:29])) & 0xffffffff)
    seeds['wide-short-idat.png'] = bytes(big)
    good = png(12, 12, 2, 8)
    seeds['header-only.png'] = good[:33]
    seeds['cut-idat.png'] = good[:len(good) - 30]
    seeds['no-iend.png'] = good[:len(good) - 12]
    bad_crc = bytearray(good)
    bad_crc[40] ^= 0x55
    seeds['bad-crc.png'] = bytes(bad_crc)
    for name, data in seeds.items():
        write('png', name, data)
    return seeds


# --- GStreamer stills ---

def ffmpeg(args):
    subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y'] + args, check=True)


def webp_headers():
    """RIFF headers veil reads itself (webp_size), each with a little payload after them."""
    def riff(kind, body):
        body = kind + struct.pack('<I', len(body)) + body
        return b'RIFF' + struct.pack('<I', 4 + len(body)) + b'WEBP' + body
    vp8 = b'\x10\x02\x00\x9d\x01\x2a' + struct.pack('<HH', 16383, 16383) + b'\x00' * 16
    vp8l = b'\x2f' + struct.pack('<I', (16383) | (16383 << 14)) + b'\x00' * 16
    vp8x = b'\x10\x00\x00\x00' + (99999).to_bytes(3, 'little') + (99999).to_bytes(3, 'little')
    return {'webp-vp8-16384.webp': riff(b'VP8 ', vp8),
            'webp-vp8l-16384.webp': riff(b'VP8L', vp8l),
            'webp-vp8x-100000.webp': riff(b'VP8X', vp8x)}


def tiff_header(big_endian, width, height, entries=None):
    e = '>' if big_endian else '<'
    tags = entries or [(256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1),
                       (262, 3, 2), (273, 4, 200), (277, 3, 3), (279, 4, 12)]
    ifd = struct.pack(e + 'H', len(tags))
    for tag, typ, value in tags:
        if typ == 3:
            ifd += struct.pack(e + 'HHIHH', tag, typ, 1, value, 0)
        else:
            ifd += struct.pack(e + 'HHII', tag, typ, 1, value)
    ifd += struct.pack(e + 'I', 0)
    head = (b'MM\x00*' if big_endian else b'II*\x00') + struct.pack(e + 'I', 8)
    data = head + ifd
    return data + b'\x00' * (212 - len(data)) if len(data) < 212 else data


def gst_seeds():
    if shutil.which('ffmpeg') is None:
        print('ffmpeg not found: gst-image seeds not made', file=sys.stderr)
        return
    tmp = tempfile.mkdtemp(prefix='veil-seeds-')
    try:
        src = os.path.join(tmp, 'src.png')
        with open(src, 'wb') as f:
            f.write(png(24, 16, 6, 8))
        outputs = [
            ('jpeg-420.jpg', ['-pix_fmt', 'yuvj420p', '-q:v', '8']),
            ('jpeg-444.jpg', ['-pix_fmt', 'yuvj444p', '-q:v', '8']),
            ('jpeg-gray.jpg', ['-pix_fmt', 'gray', '-q:v', '8']),
            ('bmp-rgb24.bmp', ['-pix_fmt', 'bgr24']),
            ('bmp-bgra.bmp', ['-pix_fmt', 'bgra']),
            ('bmp-pal8.bmp', ['-pix_fmt', 'pal8']),
            ('bmp-rgb565.bmp', ['-pix_fmt', 'rgb565le']),
            ('gif.gif', []),
            ('tiff-rgb.tiff', ['-pix_fmt', 'rgb24', '-compression_algo', 'raw']),
            ('tiff-lzw.tiff', ['-pix_fmt', 'rgba', '-compression_algo', 'lzw']),
            ('tiff-pal8.tiff', ['-pix_fmt', 'pal8']),
            ('tiff-yuv422.tiff', ['-pix_fmt', 'yuv422p']),
            ('tiff-grey16.tiff', ['-pix_fmt', 'gray16le']),
            ('webp-lossy.webp', ['-c:v', 'libwebp', '-quality', '50']),
            ('webp-lossless.webp', ['-c:v', 'libwebp', '-lossless', '1']),
            ('ppm.ppm', []),
            ('targa.tga', []),
        ]
        for name, args in outputs:
            out = os.path.join(tmp, name)
            try:
                ffmpeg(['-i', src, '-frames:v', '1'] + args + [out])
            except subprocess.CalledProcessError:
                print(f'ffmpeg cannot make {name}: skipped', file=sys.stderr)
                continue
            with open(out, 'rb') as f:
                write('gst-image', name, f.read())
        for name, data in webp_headers().items():
            write('gst-image', name, data)
        write('gst-image', 'tiff-le-100000.tiff', tiff_header(False, 100000, 100000))
        write('gst-image', 'tiff-be-small.tiff', tiff_header(True, 3, 4))
        # An IFD far past the end, and one whose count runs past the end.
        write('gst-image', 'tiff-ifd-past-end.tiff', b'II*\x00' + struct.pack('<I', 1 << 30))
        write('gst-image', 'tiff-count-past-end.tiff',
              b'II*\x00' + struct.pack('<IH', 8, 0xffff) + b'\x00' * 40)
        write('gst-image', 'text.txt', b'not a picture at all\n')
    finally:
        shutil.rmtree(tmp)


# --- command words (NUL-separated, after "veil") ---

def stills_seeds():
    """
    For the decoders of their own (fuzz-stills): small AVIF, HEIC, WebP (still, alpha,
    animated), 16-bit TIFF and JPEG (grey, CMYK, 12-bit, lossless, ...) files from ffmpeg,
    heif-enc, ImageMagick and cjpeg, the hand-made WebP and TIFF headers, and the same files
    cut short.
    """
    if shutil.which('ffmpeg') is None:
        print('ffmpeg not found: stills seeds not made', file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'src.png')
        ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=24x16', '-frames:v', '1', src])
        alpha = os.path.join(tmp, 'alpha.png')
        ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=16x16,format=rgba,colorchannelmixer=aa=0.5',
                '-frames:v', '1', alpha])
        made = {
            'still.avif': ['-i', src, '-c:v', 'libaom-av1', '-still-picture', '1',
                           '-cpu-used', '8', '-f', 'avif'],
            'still.webp': ['-i', src, '-c:v', 'libwebp', '-quality', '50'],
            'lossless.webp': ['-i', src, '-c:v', 'libwebp', '-lossless', '1'],
            'alpha.webp': ['-i', alpha, '-c:v', 'libwebp', '-lossless', '1'],
            'animated.webp': ['-f', 'lavfi', '-i', 'testsrc2=s=16x16:r=4:d=1', '-c:v',
                              'libwebp_anim', '-loop', '0'],
            'rgb48.tiff': ['-i', src, '-c:v', 'tiff', '-pix_fmt', 'rgb48le'],
            'rgba64-deflate.tiff': ['-i', alpha, '-c:v', 'tiff', '-pix_fmt', 'rgba64be',
                                    '-compression_algo', 'deflate'],
            'gray16.tiff': ['-i', src, '-c:v', 'tiff', '-pix_fmt', 'gray16le'],
        }
        files = {}
        for name, args in made.items():
            out = os.path.join(tmp, name)
            try:
                ffmpeg(args + ['-frames:v', '4' if 'anim' in name else '1', out])
            except subprocess.CalledProcessError:
                print(f'ffmpeg cannot make {name}: skipped', file=sys.stderr)
                continue
            with open(out, 'rb') as f:
                files[name] = f.read()
        # JPEG (decode/jpeg.c): ImageMagick's grey, progressive and Adobe CMYK, cjpeg's 12-bit,
        # arithmetic and lossless (libjpeg-turbo-progs).
        ppm = os.path.join(tmp, 'src.ppm')
        for name, cmd in [
                ('grey.jpg', ['convert', src, '-colorspace', 'Gray', '{out}']),
                ('progressive.jpg', ['convert', src, '-interlace', 'JPEG', '{out}']),
                ('cmyk.jpg', ['convert', src, '-colorspace', 'CMYK', '{out}']),
                ('src.ppm', ['convert', src, ppm]),
                ('p12.jpg', ['cjpeg', '-precision', '12', '-outfile', '{out}', ppm]),
                ('arith.jpg', ['cjpeg', '-arithmetic', '-outfile', '{out}', ppm]),
                ('lossless.jpg', ['cjpeg', '-lossless', '1', '-outfile', '{out}', ppm])]:
            out = os.path.join(tmp, name)
            if shutil.which(cmd[0]) is None or subprocess.run(
                    [a.replace('{out}', out) for a in cmd], capture_output=True).returncode:
                print(f'{cmd[0]} cannot make {name}: skipped', file=sys.stderr)
                continue
            if name.endswith('.jpg'):
                with open(out, 'rb') as f:
                    files[name] = f.read()
        heic = os.path.join(tmp, 'still.heic')
        if shutil.which('heif-enc') and subprocess.run(
                ['heif-enc', '-q', '50', '-o', heic, src], capture_output=True).returncode == 0:
            with open(heic, 'rb') as f:
                files['still.heic'] = f.read()
    for name, data in files.items():
        write('stills', name, data)
        write('stills', 'cut-' + name, data[:len(data) * 2 // 3])
    for name, data in webp_headers().items():
        write('stills', name, data)
    write('stills', 'tiff-100000.tiff', tiff_header(False, 100000, 100000))


def command_seeds():
    seeds = {
        'file': [b'/usr/share/backgrounds/a.png'],
        'file-mode': [b'~/Pictures/wall.jpg', b'fill'],
        'file-mode-colour': [b'$HOME/w.png', b'fit', b'#102030'],
        'file-colour': [b'${VEIL_FUZZ_DIR}/w.png', b'#abcdefff'],
        'words': [b'my', b'file', b'name.png', b'center'],
        'words-no-mode': [b'my', b'file', b'name.png'],
        'misspelt-mode': [b'a.png', b'b', b'fil'],
        'solid': [b'#336699', b'solid_color'],
        'solid-missing-colour': [b'solid_color'],
        'off': [b'off'],
        'pause': [b'PAUSE'],
        'resume-extra': [b'resume', b'now'],
        'quotes': [b'"a b.png"', b"'c d'.png", b'tile'],
        'backslashes': [b'a\\ b\\\\c.png'],
        'shell-chars': [b'a;b&c|d<e>f(g){h}*?[].png', b'stretch'],
        'dollars': [b'$1$$$@$?$#$.png'],
        'command-subst': [b'$(touch /tmp/x).png'],
        'backtick': [b'`id`.png'],
        'unset-var': [b'$VEIL_FUZZ_UNSET/w.png'],
        'split-var': [b'$VEIL_FUZZ_WORDS.png'],
        'ctrl-var': [b'${VEIL_FUZZ_CTRL}.png'],
        'long-var': [b'$VEIL_FUZZ_LONG/x.png'],
        'param-ops': [b'${HOME%/*}${HOME#/}${#HOME}${HOME:-d}${HOME:+a}.png'],
        'empty-var-default': [b'${VEIL_FUZZ_EMPTY:-dflt}.png'],
        'arith': [b'${HOME:+$[1+2]}.png'],
        'tilde-user': [b'~root/w.png'],
        'unpaired-quote': [b'"a.png'],
        'trailing-backslash': [b'a.png\\'],
        'open-brace': [b'${HOME'],
        'control-char': [b'a\x01b.png'],
        'not-utf8': [b'\xff\xfe\xc3(.png', b'\xe0\x80\x80'],
        'long-name': [b'/' + b'x' * 4200 + b'.png'],
        'empty-words': [b'', b'a.png', b''],
        'dark': [b'day.png', b'fill', b'dark', b'~/night', b'p.png', b'transition', b'fade'],
        'scheme': [b'scheme', b'dark'],
        'ease-bezier': [b'a.png', b'transition', b'grow', b'900', b'at', b'1', b'2', b'ease',
                        b'cubic-bezier(0.1', b'0.7,', b'1', b'-0.1)'],
        'ease-random': [b'a.png', b'transition', b'random', b'ease', b'in-out', b'300'],
    }
    for name, words in seeds.items():
        write('command', name, b'\x00'.join(words))


# --- colour profiles (decode/colour.c), into the png, gst-image and stills corpora ---

def icc_profile():
    """
    A small RGB matrix-shaper ICC profile written here (v2 header, desc, wtpt, the three
    colourants and one gamma curve shared by the three channels): what lcms2 parses.
    """
    def s15(v):
        return struct.pack('>i', round(v * 65536))

    def xyz(x, y, z):
        return b'XYZ \0\0\0\0' + s15(x) + s15(y) + s15(z)
    desc_text = b'veil seed P3\0'
    tags = [(b'desc', b'desc\0\0\0\0' + struct.pack('>I', len(desc_text)) + desc_text +
             b'\0' * 79),
            (b'wtpt', xyz(0.9642, 1.0, 0.8249)),
            (b'rXYZ', xyz(0.5151, 0.2412, -0.0011)),
            (b'gXYZ', xyz(0.2920, 0.6922, 0.0419)),
            (b'bXYZ', xyz(0.1571, 0.0666, 0.7841)),
            (b'rTRC', b'curv\0\0\0\0' + struct.pack('>IH', 1, 0x0233))]
    table, body = b'', b''
    offset = 128 + 4 + 12 * (len(tags) + 2)
    for sig, data in tags:
        data += b'\0' * (-len(data) % 4)
        table += sig + struct.pack('>II', offset + len(body), len(data))
        if sig == b'rTRC':
            trc = (offset + len(body), len(data))
        body += data
    for sig in (b'gTRC', b'bTRC'):
        table += sig + struct.pack('>II', *trc)
    size = offset + len(body)
    header = (struct.pack('>I', size) + b'lcms' + bytes([2, 0x10, 0, 0]) + b'mntr' +
              b'RGB ' + b'XYZ ' + b'\0' * 12 + b'acsp' + b'\0' * 28 + s15(0.9642) + s15(1.0) +
              s15(0.8249) + b'\0' * 48)
    return header + struct.pack('>I', len(tags) + 2) + table + body


def colour_seeds():
    icc = icc_profile()
    cut = icc[:len(icc) // 2]
    write('png', 'rgb8-iccp.png', png(6, 5, 2, 8, extra=[
        (b'iCCP', b'seed\x00\x00' + zlib.compress(icc))]))
    write('png', 'rgba8-iccp-cut.png', png(6, 5, 6, 8, extra=[
        (b'iCCP', b'seed\x00\x00' + zlib.compress(cut))]))
    write('png', 'rgb8-cicp-p3.png', png(6, 5, 2, 8, extra=[(b'cICP', bytes([12, 13, 0, 1]))]))
    write('png', 'rgb8-cicp-pq.png', png(6, 5, 2, 8, extra=[(b'cICP', bytes([9, 16, 0, 1]))]))
    write('png', 'rgb8-gama-chrm.png', png(6, 5, 2, 8, extra=[
        (b'gAMA', struct.pack('>I', 55555)),
        (b'cHRM', struct.pack('>8I', 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000))]))

    def app2(profile, parts=2):
        step = -(-len(profile) // parts)
        out = b''
        for n in range(parts):
            body = (b'ICC_PROFILE\0' + bytes([n + 1, parts]) +
                    profile[n * step:(n + 1) * step])
            out += b'\xff\xe2' + struct.pack('>H', len(body) + 2) + body
        return out
    jpeg = os.path.join(CORPUS, 'gst-image', 'jpeg-444.jpg')
    if os.path.exists(jpeg):
        with open(jpeg, 'rb') as f:
            data = f.read()
        write('gst-image', 'jpeg-icc.jpg', data[:2] + app2(icc) + data[2:])
        write('gst-image', 'jpeg-icc-cut.jpg', data[:2] + app2(cut, 1) + data[2:])
    # A 2x2 RGB TIFF, uncompressed, with the profile as tag 34675.
    e = '<'
    pixels = bytes(range(12))
    entries = [(256, 3, 2), (257, 3, 2), (258, 3, 8), (259, 3, 1), (262, 3, 2), (273, 4, 0),
               (277, 3, 3), (278, 3, 2), (279, 4, 12), (34675, 7, len(icc))]
    ifd_size = 2 + 12 * len(entries) + 4
    pix_at = 8 + ifd_size
    icc_at = pix_at + len(pixels)
    ifd = struct.pack(e + 'H', len(entries))
    for tag, typ, value in entries:
        if tag == 273:
            value = pix_at
        if tag == 34675:
            ifd += struct.pack(e + 'HHII', tag, typ, value, icc_at)
        elif typ == 3:
            ifd += struct.pack(e + 'HHIHH', tag, typ, 1, value, 0)
        else:
            ifd += struct.pack(e + 'HHII', tag, typ, 1, value)
    ifd += struct.pack(e + 'I', 0)
    write('stills', 'rgb8-icc.tiff', b'II*\x00' + struct.pack(e + 'I', 8) + ifd + pixels + icc)


def dynamic_seeds():
    """
    fuzz-dynamic's inputs: a first byte, odd for a binary plist that the target wraps in an XMP
    packet (bits 1-2: solar, h24, apr; 3: an element; 4: macOS's framing), even for a whole XMP
    packet. Binary plists by Python's
    plistlib: entries of Apple's shape, and one with the wrong types.
    """
    import base64
    import plistlib
    solar = {'ap': {'l': 0, 'd': 3},
             'si': [{'a': -30.5, 'z': 20.0, 'i': 0}, {'a': 5.25, 'z': 70.0, 'i': 1},
                    {'a': 60.0, 'z': 170.0, 'i': 2}, {'a': 5.0, 'z': 290.0, 'i': 3}]}
    h24 = {'ap': {'l': 1, 'd': 0},
           'ti': [{'t': 0.25, 'i': 1}, {'t': 0.5, 'i': 2}, {'t': 0.75, 'i': 3},
                  {'t': 0.9, 'i': 0}]}
    apr = {'l': 2, 'd': 5}
    wrong = {'si': [{'a': 'high', 'z': [1], 'i': 1.5}], 'ap': [0, 1]}
    for name, kind, value in (('solar', 0, solar), ('h24', 1, h24), ('apr', 2, apr),
                              ('wrong-types', 0, wrong)):
        data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
        write('dynamic', f'{name}.plist', bytes([1 | kind << 1]) + data)
    b64 = base64.b64encode(plistlib.dumps(solar, fmt=plistlib.FMT_BINARY)).decode()
    xmp = ('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
           '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
           'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           '<rdf:Description rdf:about="" '
           'xmlns:apple_desktop="http://ns.apple.com/namespace/1.0/">'
           f'<apple_desktop:solar>{b64}</apple_desktop:solar>'
           '</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>')
    write('dynamic', 'solar-element.xmp', b'\x00' + xmp.encode())
    # As macOS frames the packet: a byte-order mark in the xpacket header, a NUL at the end.
    macos = xmp.replace('begin=""', 'begin="\ufeff"')
    write('dynamic', 'solar-macos.xmp', b'\x00' + macos.encode() + b'\x00')
    # Apple's Mojave shape: integers beside reals, a key veil does not know (o), no ap; the
    # wrapper's bits 3 and 4: an element, framed as macOS does.
    mojave = {'si': [{'i': 0, 'z': 270.93, 'a': -0.34, 'o': 1},
                     {'i': 1, 'z': 90, 'a': 10, 'o': 1}, {'i': 2, 'z': 53.51, 'a': -38.05, 'o': 0}]}
    data = plistlib.dumps(mojave, fmt=plistlib.FMT_BINARY)
    write('dynamic', 'mojave-shape.plist', bytes([1 | 8 | 16]) + data)


if __name__ == '__main__':
    makers = {'png': png_seeds, 'gst': gst_seeds, 'stills': stills_seeds,
              'command': command_seeds, 'colour': colour_seeds, 'dynamic': dynamic_seeds}
    for name in sys.argv[1:] or makers:
        makers[name]()
    for kind in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, kind))
        size = sum(os.path.getsize(os.path.join(CORPUS, kind, f)) for f in files)
        print(f'{kind}: {len(files)} seeds, {size} bytes')
