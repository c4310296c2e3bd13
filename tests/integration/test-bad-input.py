#!/usr/bin/env python3
"""
Bad input through the real swaymsg while a good wallpaper is shown: every bad file and every
malformed command must fail (swaymsg exits non-zero with an error that names the problem),
leave the screen pixel-identical, set the output's status error, and leave the compositor
alive and answering.

Unreadable file: permission bits do not stop root, so when the test runs as root the compositor
is started as nobody (uid/gid 65534) with setpriv, and the file is root's with mode 000: its
open() fails with EACCES for real. Every other case behaves the same for nobody. When the test
does not run as root, the compositor runs as the same user and mode 000 is enough.
"""
import os
import subprocess
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('bad-input')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default
SCALED = dict(tolerance=8, mean_tolerance=1, ignore_edges=4)
media = t.media

good_png = vt.make_png(os.path.join(media, 'good.png'), vt.quadrant_pixels(800, 600))
good_jpg = vt.make_jpeg(os.path.join(media, 'good.jpg'), vt.quadrant_pixels(640, 480))
other_png = vt.make_png(os.path.join(media, 'other.png'), vt.quadrant_pixels(1000, 500))


def m(name):
    return os.path.join(media, name)


missing = m('does-not-exist.png')
directory = m('a-directory.png')
os.mkdir(directory)
os.chmod(directory, 0o755)
unreadable = m('unreadable.png')
with open(good_png, 'rb') as src, open(unreadable, 'wb') as dst:
    dst.write(src.read())
os.chmod(unreadable, 0o000)
corrupt = vt.make_corrupt_png(m('corrupt-idat.png'), good_png)
truncated = vt.make_truncated(m('truncated.png'), good_png)
truncated_jpg = vt.make_truncated(m('truncated.jpg'), good_jpg, 0.5)
huge = vt.make_huge_png(m('huge-100000x100000.png'))
text = vt.make_text(m('text.png'))
random_bytes = vt.make_random(m('random.png'))
empty = vt._write(m('empty.png'), b'')
fifo = m('fifo.png')
os.mkfifo(fifo, 0o644)
os.chmod(fifo, 0o644)
long_name = '/' + '/'.join(['d' * 200] * 25) + '.png'  # > PATH_MAX (4096)
# Sound and no picture: refused from its type, before any decoder is built.
audio = m('tone.ogg')
subprocess.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1',
                '-c:a', 'libvorbis', audio], check=True)

# The formats with decoders of their own, cut short. A WebP says its length in its RIFF header:
# refused at once. An AVIF or HEIC cut in its picture data has a sound header (its meta box):
# only decoding finds the data missing, and the status says so.
decoders = vt.still_decoders()
quad_small = vt.quadrant_pixels(320, 240)
cut_avif = cut_heic = cut_webp = None
if 'heif' in decoders and vt.have_encoder('libaom-av1'):
    cut_avif = vt.make_truncated(m('truncated.avif'), vt.make_avif(m('good.avif'), quad_small))
if 'heif' in decoders and vt.have_encoder('heif-enc'):
    cut_heic = vt.make_truncated(m('truncated.heic'), vt.make_heic(m('good.heic'), quad_small))
if 'webp' in decoders and vt.have_encoder('libwebp'):
    cut_webp = vt.make_truncated(m('truncated.webp'), vt.make_webp(m('good.webp'), quad_small))

user = (65534, 65534) if os.geteuid() == 0 else None

# (name, words after `veil`, pattern the error must match, file it must name or None). Where the
# path itself is the problem (missing, unreadable, empty, a FIFO) the error must name it; where
# the content is, naming the problem is enough. (A directory is a slideshow: an empty one is
# below, with the late errors.)
FILE_CASES = [
    ('missing file', vt.quote(missing), r'no such file|not found|does not exist', missing),
    ('unreadable file', vt.quote(unreadable), r'permission denied|not readable|permission',
     unreadable),
    ('PNG claiming 100000x100000', vt.quote(huge), r'100000|too large|larger|limit', None),
    ('text file named .png', vt.quote(text),
     r'not a png|not an image|unsupported|unknown|format|recogni|type|decod', None),
    ('random bytes', vt.quote(random_bytes),
     r'not a png|not an image|unsupported|unknown|format|recogni|type|decod', None),
    ('empty file', vt.quote(empty), r'empty', empty),
    ('FIFO', vt.quote(fifo), r'not a regular file|fifo|pipe|regular', fifo),
    ('name longer than PATH_MAX', vt.quote(long_name), r'too long', None),
    ('audio file, no picture', vt.quote(audio), r'sound|no picture|no video', audio),
]
if cut_webp:
    FILE_CASES.append(('truncated WebP', vt.quote(cut_webp), r'WebP.*truncat', cut_webp))

# Files whose header is sound and whose data is not: the command is accepted (veil decodes after
# it answered), and the failure shows in the status, naming the file, with the screen unchanged.
LATE_CASES = [
    ('corrupt PNG (IDAT damaged, CRCs right)', corrupt,
     r'corrupt|invalid|damaged|decod|incorrect'),
    ('truncated PNG', truncated, r'truncat|end of (the )?file|incomplete|short'),
    ('truncated JPEG', truncated_jpg,
     r'truncat|end of (the )?(file|stream)|incomplete|corrupt|invalid|decod|premature'),
]
if cut_avif:
    LATE_CASES.append(('truncated AVIF', cut_avif, r'AVIF.*truncat|end of file'))
if cut_heic:
    LATE_CASES.append(('truncated HEIC', cut_heic, r'HEIC.*truncat|end of file'))

# Files other programs made (../shared/conformance, the AVIF and HEIF projects' test files),
# copied here so that the compositor's user reads them: refused, at the command or after it,
# with an image's sentence that says what happened.
CONFORMANCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                           'shared', 'conformance')
OTHERS_CASES = [
    # It declares 1024x768 and its AV1 data is cut: truncated, not "larger than veil's limit".
    ('AVIF cut by its makers', 'avif/truncated_elementary_stream.avif',
     r'^(?!.*larger).*AVIF.*truncated'),
    # mif2's predictively coded images (major brand mif2): an image, never a video.
    ('HEIF that libheif cannot decode', 'heif/C044.heic',
     r"^(?!.*(video|can't be played)).*HEIF image.*cannot decode"),
]

CMD_CASES = [
    ('unknown mode', f'{vt.quote(good_png)} sideways', r'unknown mode|sideways'),
    ('bad colour', f'{vt.quote(good_png)} fit #12345z', r'colou?r'),
    ('bad solid colour', '#zzzzzz solid_color', r'colou?r'),
    ('no arguments', '', r'missing|usage|file'),
    ('word after the colour', f'{vt.quote(good_png)} fit #ff00ff extra', r'unexpected|extra'),
    ('argument to pause', 'pause now', r'no arguments|takes no|unexpected|now'),
    ('unset variable', '$VEIL_NO_SUCH_VARIABLE/x.png', r'variable|not set|VEIL_NO_SUCH'),
]


with t.compositor(outputs=1, user=user) as c:
    markers = [os.path.join(c.runtime, 'pwned'), m('pwned')]
    CMD_CASES += [
        ('$(...) command substitution', f'"$(touch {markers[0]})"', r'command|substitution'),
        ('`...` command substitution', f'"`touch {markers[1]}`.png"', r'command|substitution'),
    ]

    with t.case('setup'):
        if user:
            with open(f'/proc/{c.proc.pid}/status') as f:
                uids = [ln.split()[1:] for ln in f if ln.startswith('Uid:')]
            t.check(uids and all(u == '65534' for u in uids[0]),
                    'the compositor runs as uid 65534', str(uids))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_png)} fill')
        t.check(ok, 'the good wallpaper is accepted', err)
        c.wait_veil(OUT, 'shown', file=good_png)
        baseline = c.settled_screenshot(OUT)
        t.compare(baseline, vt.expect_fill(good_png, W, H), 'baseline', **SCALED)

    def unchanged(label):
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('file') == good_png and
                v.get('mode') == 'fill', 'the good wallpaper is still set', str(v))
        shot = c.screenshot(OUT)
        t.compare(shot, baseline, f'{label}-unchanged', tolerance=0, ignore_border=0)
        t.check(c.responsive(), 'the compositor answers IPC')
        return v

    def bad(label, words, pattern, names=None, timeout=vt.IPC_TIMEOUT):
        cmd = f'output {OUT} veil {words}'.rstrip()
        ok, err = c.msg(cmd, timeout=timeout)
        t.check(not ok, f'`{cmd[:120]}` fails', 'it succeeded')
        t.check(re.search(pattern, err, re.I), f'error says /{pattern}/', repr(err))
        if names:
            base = os.path.basename(names)
            t.check(base in err, f'error names {base}', repr(err))
        v = unchanged(label)
        t.check(isinstance(v.get('error'), str) and v['error'],
                'status error is set', repr(v.get('error')))
        return err

    for label, words, pattern, names in FILE_CASES:
        with t.case(label):
            if label != 'FIFO':
                err = bad(label, words, pattern, names)
                vt._say(f'   error: {err}')
                continue
            # A FIFO with no writer: a blocking open() or read() would hang the compositor.
            # If it does, open the writing end to let it go on, and fail.
            try:
                err = bad(label, words, pattern, names, timeout=20)
                vt._say(f'   error: {err}')
            except vt.Failure as e:
                t.fail('the compositor does not block on a FIFO', str(e))
                try:
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                    os.close(fd)
                except OSError:
                    pass
                c.wait_until(c.responsive, 'the compositor to answer again', timeout=30)

    for label, path, pattern in LATE_CASES:
        with t.case(label):
            cmd = f'output {OUT} veil {vt.quote(path)} fill'
            ok, err = c.msg(cmd)
            t.check(ok, 'accepted: its header is sound, decoding comes after the reply', err)

            def failed():
                v = c.veil(OUT)
                return v if v.get('error') and v.get('loading') is None else None
            v = c.wait_until(failed, 'the decode to fail')
            t.check(re.search(pattern, v['error'], re.I), f'status error says /{pattern}/',
                    repr(v['error']))
            base = os.path.basename(path)
            t.check(base in v['error'], f'status error names {base}', repr(v['error']))
            unchanged(label)
            vt._say(f'   error: {v["error"]}')

    for label, name, pattern in OTHERS_CASES:
        with t.case(label):
            src = os.path.join(CONFORMANCE, name)
            if not os.path.exists(src):
                t.fail('the conformance file is there', src)
                continue
            path = m(os.path.basename(name))
            with open(src, 'rb') as f:
                vt._write(path, f.read())
            ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
            if ok:
                def failed():
                    v = c.veil(OUT)
                    return v if v.get('error') and v.get('loading') is None else None
                err = c.wait_until(failed, 'the decode to fail')['error']
            t.check(re.search(pattern, err or '', re.I), f'error says /{pattern}/', repr(err))
            t.check(os.path.basename(path) in (err or ''), 'the error names the file', repr(err))
            unchanged(label)
            vt._say(f'   error: {err}')

    with t.case('empty directory'):
        # A slideshow (test-slideshow.py): read on a worker after the reply, then reported.
        ok, err = c.msg(f'output {OUT} veil {vt.quote(directory)} fill')
        t.check(ok, 'accepted: a directory is a slideshow, read after the reply', err)
        v = c.wait_until(lambda: (lambda v: v if directory in (v.get('error') or '') else None)(
            c.veil(OUT)), 'the status to name the directory')
        t.check(re.search(r'no image or video', v['error']), 'it has nothing to show',
                repr(v['error']))
        unchanged('empty directory')
        vt._say(f'   error: {v["error"]}')

    for label, words, pattern in CMD_CASES:
        with t.case(label):
            err = bad(label, words, pattern)
            vt._say(f'   error: {err}')

    with t.case('no command ran'):
        for path in markers:
            t.check(not os.path.exists(path), f'{path} was not created')

    with t.case('a good command still works and clears the error'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(other_png)} stretch')
        t.check(ok, 'a good wallpaper is accepted after all the bad ones', err)
        v = c.wait_veil(OUT, 'shown', file=other_png, mode='stretch')
        t.check(v.get('error') is None, 'status error is cleared', repr(v.get('error')))
        shot = c.settled_screenshot(OUT)
        t.compare_structure(shot, vt.expect_stretch(other_png, W, H), 'recovered')
        t.compare(shot, vt.expect_stretch(other_png, W, H), 'recovered', **SCALED)

t.finish()
