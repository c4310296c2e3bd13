#!/usr/bin/env python3
"""
The real veilctl against veil-tinywl on the headless backend (two outputs), checked with grim
and with the compositor's own IPC status (swaymsg): every command, its exit status (0 done,
1 usage or connection, 2 refused by the compositor) and its message, status in text and JSON,
status updates (--watch), and bad input — a pipe, a socket, a FIFO, a huge sparse file, a PNG
claiming 100000x100000 pixels, non-media descriptors — each of which must fail with exit
status 2 and a message, leave the screen pixel-identical and the compositor answering. A client
of another user is refused.

veiltest (tests/veiltest/) starts the compositor, takes screenshots and makes the expected
pictures with ffmpeg.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))

# veiltest parses --compositor and --outdir; --veilctl is ours.
_parser = argparse.ArgumentParser(add_help=False)
_parser.add_argument('--veilctl')
_args, _rest = _parser.parse_known_args()
sys.argv = [sys.argv[0]] + _rest

from veiltest import fault as fl  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('veilctl')
VEILCTL = os.path.abspath(_args.veilctl) if _args.veilctl else None
if not VEILCTL or not os.access(VEILCTL, os.X_OK):
    print(f'SKIP: veilctl is not built ({VEILCTL})')
    print('0 passed, 0 failed, 1 skipped')
    sys.exit(vt.SKIP)

OUT1, OUT2 = 'HEADLESS-1', 'HEADLESS-2'
W, H = 1280, 720  # the headless default
TIMEOUT = 60
STATUS_ROUNDS = 200
media = t.media


def m(name):
    return os.path.join(media, name)


good_png = vt.make_png(m('good.png'), vt.quadrant_pixels(800, 600))
other_png = vt.make_png(m('other.png'), vt.quadrant_pixels(1000, 500))
text = vt.make_text(m('text.png'))
random_bytes = vt.make_random(m('random.png'))
empty = vt._write(m('empty.png'), b'')
huge_png = vt.make_huge_png(m('huge-100000x100000.png'))
fifo = m('fifo.png')
os.mkfifo(fifo, 0o644)
# A huge file: 64 GiB that take no room (sparse), the first bytes a PNG signature.
huge_sparse = m('huge-sparse.png')
with open(huge_sparse, 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n')
    f.truncate(64 << 30)
os.chmod(huge_sparse, 0o644)
video = m('video.mp4')
vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=4', '-c:v', 'libx264',
            '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', video])
os.chmod(video, 0o644)


def ctl(c, *args, stdin=subprocess.DEVNULL, env=None, timeout=TIMEOUT, prefix=()):
    """Runs veilctl; returns (exit status, stdout, stderr)."""
    argv = list(prefix) + [VEILCTL] + list(args)
    try:
        r = subprocess.run(argv, env=env if env is not None else c.client_env, stdin=stdin,
                           capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise vt.Failure(f'veilctl {" ".join(args)} did not finish in {timeout} s')
    out = r.stdout.decode('utf-8', 'replace')
    err = r.stderr.decode('utf-8', 'replace').strip()
    vt._say(f'   $ veilctl {" ".join(args)} -> {r.returncode}' + (f': {err}' if err else ''))
    return r.returncode, out, err


def status(c, output=None):
    rc, out, err = ctl(c, 'status', '--json', *(['-o', output] if output else []))
    if rc != 0:
        raise vt.Failure(f'veilctl status failed ({rc}): {err}')
    return json.loads(out)


def wait_status(c, output, **fields):
    def pred():
        s = status(c).get(output)
        if s is None:
            return None
        return s if all(s.get(k) == v for k, v in fields.items()) else None
    return c.wait_until(pred, f'veilctl status of {output} with {fields}')


def expect_ok(c, *args, **kwargs):
    rc, out, err = ctl(c, *args, **kwargs)
    t.check(rc == 0 and err == '', f'`veilctl {" ".join(args)}` exits 0 quietly',
            f'exit {rc}: {err}')
    return rc, out, err


with t.compositor(outputs=2) as c:
    with t.case('before any wallpaper'):
        s = status(c)
        t.check(set(s) == {OUT1, OUT2}, 'status lists both outputs', str(s))
        t.check(all(v['kind'] == 'none' and v['state'] == 'off' for v in s.values()),
                'nothing is shown', str(s))
        bare = {o: c.settled_screenshot(o) for o in (OUT1, OUT2)}

    with t.case('set, every output'):
        expect_ok(c, 'set', good_png)
        for o in (OUT1, OUT2):
            v = wait_status(c, o, state='shown', file=good_png)
            t.check(v['kind'] == 'image' and v['mode'] == 'fill' and v['setting'] == '*',
                    f'{o}: image, fill, the setting for every output', str(v))
            t.check((v.get('width'), v.get('height')) == (800, 600),
                    f'{o}: the image\'s own size', str(v))
            t.check(bool(v.get('decoder')), f'{o}: a decoder is named', str(v))
            ipc = c.veil(o)
            t.check(ipc.get('file') == good_png and ipc.get('mode') == 'fill',
                    f'{o}: the compositor\'s IPC status agrees', str(ipc))
            shot = c.settled_screenshot(o)
            t.compare(shot, vt.expect_fill(good_png, W, H), f'fill-{o}', tolerance=16,
                      mean_tolerance=3, ignore_edges=4)
        fill_shot = shot

    with t.case('set -o, fit with a colour'):
        expect_ok(c, 'set', '-o', OUT2, other_png, 'fit', '#ff00ff')
        v = wait_status(c, OUT2, state='shown', file=other_png)
        t.check(v['mode'] == 'fit' and v['color'] == '#ff00ff' and v['setting'] == OUT2,
                'fit, #ff00ff, the output\'s own setting', str(v))
        shot = c.settled_screenshot(OUT2)
        expected = vt.expect_fit(other_png, W, H, '#ff00ff')
        t.compare_structure(shot, expected, 'fit', bars=(255, 0, 255))
        t.compare(shot, expected, 'fit', tolerance=16, mean_tolerance=3, ignore_edges=4)
        t.compare(c.screenshot(OUT1), fill_shot, 'the other output is unchanged')

    with t.case('solid colour, then text status'):
        expect_ok(c, 'set', '-o', OUT1, '#203040', 'solid_color')
        wait_status(c, OUT1, kind='color', mode='solid_color', color='#203040')
        t.compare(c.settled_screenshot(OUT1), vt.expect_solid('#203040', W, H), 'solid')
        rc, out, err = expect_ok(c, 'status')
        t.check(f'{OUT1}: color, shown' in out and f'{OUT2}: image, shown' in out and
                other_png in out and '1000x500' in out, 'the text status says it', out)

    with t.case('off'):
        expect_ok(c, 'off', '-o', OUT1)
        wait_status(c, OUT1, kind='off', state='off')
        t.compare(c.settled_screenshot(OUT1), bare[OUT1], 'off shows what is below')
        expect_ok(c, 'set', '-o', OUT1, good_png, 'fill')
        wait_status(c, OUT1, state='shown', file=good_png)
        baseline = c.settled_screenshot(OUT1)
        t.compare(baseline, fill_shot, 'back to the fill wallpaper')

    with t.case('a video: pause and resume'):
        expect_ok(c, 'set', '-o', OUT2, video, 'stretch')
        v = wait_status(c, OUT2, kind='video', state='shown')
        c.wait_until(lambda: status(c)[OUT2]['frames'] > 5, 'video frames on the output')
        expect_ok(c, 'pause', '-o', OUT2)
        wait_status(c, OUT2, state='paused')
        a = c.settled_screenshot(OUT2)
        time.sleep(0.7)
        t.compare(c.screenshot(OUT2), a, 'paused: the picture stands still')
        frames = status(c)[OUT2]['frames']
        expect_ok(c, 'resume')
        wait_status(c, OUT2, state='shown')
        c.wait_until(lambda: status(c)[OUT2]['frames'] > frames + 5,
                     'frames again after resume')
        time.sleep(0.3)
        t.check(not (c.screenshot(OUT2) == a).all(), 'resumed: the picture moves')

    with t.case('status --watch: a description per change, none per frame'):
        # Unbuffered: select() sees the pipe, and a line already read into Python's buffer
        # (two descriptions that came together) would wait there unseen.
        watch = subprocess.Popen([VEILCTL, 'status', '--watch', '--json'], env=c.client_env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, bufsize=0)
        lines = []

        def read_line(what):
            deadline = time.monotonic() + TIMEOUT
            import select
            while time.monotonic() < deadline:
                r, _, _ = select.select([watch.stdout], [], [], 0.5)
                if r:
                    line = watch.stdout.readline()
                    if not line:
                        raise vt.Failure(f'veilctl status --watch ended: '
                                         f'{watch.stderr.read().decode(errors="replace")}')
                    lines.append(json.loads(line))
                    return lines[-1]
            raise vt.Failure(f'no description for {what}')

        def read_until(what, pred):
            """Descriptions until one satisfies pred: a wallpaper loads before it shows."""
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:
                d = read_line(what)
                if pred(d):
                    return d
            raise vt.Failure(f'no description for {what}: {lines[-1] if lines else None}')

        def quiet(seconds):
            import select
            r, _, _ = select.select([watch.stdout], [], [], seconds)
            return not r

        try:
            # The video's palette (from its first frame) may come after the first line.
            first = read_until('the start', lambda d: d[OUT2].get('palette'))
            t.check(first[OUT2]['kind'] == 'video', 'the first description', str(first))
            t.check(quiet(1.0), 'a playing video sends no descriptions')
            ok, err = c.msg(f'output {OUT2} veil {vt.quote(other_png)} center')
            t.check(ok, 'a swaymsg command is accepted', err)
            d = read_until('a swaymsg command', lambda d: d[OUT2].get('file') == other_png)
            t.check(d[OUT2]['file'] == other_png and d[OUT2]['mode'] == 'center',
                    'a command through the compositor\'s IPC is described', str(d[OUT2]))
            # A picture's palette comes a moment after it shows (a worker computes it): one
            # description more, for that change. The next ones are read until they come.
            expect_ok(c, 'set', '-o', OUT2, '#00ff00', 'solid_color')
            d = read_until('a veilctl command', lambda d: d[OUT2]['kind'] == 'color')
            t.check(d[OUT2]['kind'] == 'color', 'a veilctl command is described', str(d[OUT2]))
            rc, _, _ = ctl(c, 'set', text)
            d = read_until('a failed command', lambda d: d[OUT1]['error'] and d[OUT2]['error'])
            t.check(rc == 2 and d[OUT1]['error'] and d[OUT2]['error'],
                    'a failure is described with its error', str(d))
            expect_ok(c, 'set', '-o', OUT1, good_png, 'fill')
            read_until('the good wallpaper again', lambda d: not d[OUT1]['error'])
        finally:
            watch.terminate()
            watch.wait(timeout=10)

    with t.case('the compositor\'s own words: options after the file, commands without one'):
        # veilctl passes them through (control protocol version 2); the compositor parses them.
        expect_ok(c, '-o', OUT2, 'transition', 'fade', '4000')
        v = status(c)[OUT2]
        t.check(v['kind'] == 'color' and v.get('transition') is None,
                '`transition fade 4000` changes nothing shown', str(v))
        expect_ok(c, 'set', '-o', OUT2, other_png, 'fit', '#ff00ff')
        mid = c.wait_until(lambda: (status(c)[OUT2].get('transition') or {}).get('kind'),
                           'a fade under way, seen in veilctl status --json')
        t.check(mid == 'fade', 'the default transition of the output is used', str(mid))
        rc, out, _ = expect_ok(c, 'status', '-o', OUT2)
        t.check('transition:' in out, 'the text status shows the transition', out)
        expect_ok(c, 'set', '-o', OUT2, good_png, 'stretch', 'transition', 'none')
        v = wait_status(c, OUT2, state='shown', file=good_png, mode='stretch')
        t.check(v.get('transition') is None, 'transition none: instant', str(v))
        t.check(v.get('nodes') == c.veil(OUT2).get('nodes'),
                'details agree with the compositor\'s IPC status', str(v))
        t.compare(c.settled_screenshot(OUT2), vt.expect_stretch(good_png, W, H), 'words-set',
                  tolerance=16, mean_tolerance=3, ignore_edges=4)
        for args, pattern in [
                (('-o', OUT2, 'transition', 'sideways'), r"'sideways'"),
                (('set', '-o', OUT2, good_png, 'fill', 'transition', 'fade', '99999'),
                 r'duration'),
                (('-o', OUT2, good_png), r'not a command')]:
            rc, _, err = ctl(c, *args)
            t.check(rc == 1 and re.search(pattern, err),
                    f'veilctl {" ".join(args)}: exit 1, /{pattern}/', f'exit {rc}: {err}')
        v = status(c)[OUT2]
        t.check(v['file'] == good_png and v['mode'] == 'stretch', 'refused words change nothing',
                str(v))
        expect_ok(c, '-o', OUT2, 'transition', 'none')

        # A directory is a slideshow, its words after it; next moves it on at once.
        show = m('show')
        os.makedirs(show)
        for name, src in (('1.png', good_png), ('2.png', other_png)):
            with open(src, 'rb') as f, open(os.path.join(show, name), 'wb') as g:
                g.write(f.read())
        expect_ok(c, 'set', '-o', OUT2, show, 'stretch', 'every', '1h', 'order', 'name')
        v = c.wait_until(lambda: ((status(c)[OUT2].get('slideshow') or {}).get('file') or '')
                         .endswith('1.png') and status(c)[OUT2], 'the show\'s first picture')
        t.check(v['slideshow'].get('directory') == show and v['mode'] == 'stretch',
                'the status names the directory', str(v.get('slideshow')))
        c.wait_until(lambda: (status(c)[OUT2].get('slideshow') or {}).get('ahead'),
                     'the next picture decoded ahead')
        expect_ok(c, '-o', OUT2, 'next')
        c.wait_until(lambda: status(c)[OUT2].get('file', '').endswith('2.png'),
                     'next shows the second picture')
        t.compare(c.settled_screenshot(OUT2), vt.expect_stretch(other_png, W, H), 'show-next',
                  tolerance=16, mean_tolerance=3, ignore_edges=4)
        rc, _, err = ctl(c, 'set', '-o', OUT2, good_png, 'every', '10m')
        t.check(rc == 2 and 'directory' in err, 'slideshow words with a file: refused', err)
        # What follows waits for OUT2 to show a stretched file: not this one.
        expect_ok(c, 'off', '-o', OUT2)
        wait_status(c, OUT2, kind='off')

    def unchanged(label):
        v = status(c)[OUT1]
        t.check(v['state'] == 'shown' and v['file'] == good_png and v['mode'] == 'fill',
                'the good wallpaper is still set', str(v))
        t.compare(c.screenshot(OUT1), baseline, f'{label}-unchanged', tolerance=0,
                  ignore_border=0)
        t.check(c.responsive(), 'the compositor answers IPC')
        return v

    def refused(label, args, pattern, stdin=subprocess.DEVNULL, timeout=TIMEOUT, took=None):
        start = time.monotonic()
        rc, out, err = ctl(c, *args, stdin=stdin, timeout=timeout)
        elapsed = time.monotonic() - start
        t.check(rc == 2, 'exit status 2: the compositor refused', f'exit {rc}: {err}')
        t.check(re.search(pattern, err, re.I), f'the message says /{pattern}/', repr(err))
        if took is not None:
            t.check(elapsed < took, f'refused within {took} s', f'{elapsed:.1f} s')
        v = unchanged(label)
        t.check(bool(v.get('error')), 'the status shows the error', str(v))
        return err

    with t.case('bad input: a pipe on standard input'):
        r, w = os.pipe()
        with open(good_png, 'rb') as f:
            data = f.read(60000)  # fits in the pipe: the writer never blocks
        os.write(w, data)
        os.close(w)
        err = refused('pipe', ['set', '-o', OUT1, '-'], r'not a regular file', stdin=r)
        t.check('pipe' in err or 'regular file' in err, 'veilctl says what to give instead',
                err)
        os.close(r)

    with t.case('bad input: a socket on standard input'):
        a, b = socket.socketpair()
        b.sendall(b'\x89PNG\r\n\x1a\n')
        refused('socket', ['set', '-o', OUT1, '-'], r'not a regular file', stdin=a.fileno())
        a.close()
        b.close()

    with t.case('bad input: a FIFO (no writer)'):
        refused('fifo', ['set', '-o', OUT1, fifo], r'not a regular file', timeout=20)

    with t.case('bad input: a huge sparse file'):
        refused('huge-sparse', ['set', '-o', OUT1, huge_sparse],
                r'png|corrupt|invalid|decod|truncat|image|signature|format', took=30)

    with t.case('bad input: a PNG claiming 100000x100000'):
        refused('huge-png', ['set', '-o', OUT1, huge_png], r'100000|too large|larger|limit')

    for label, path, pattern in [
            ('text file', text, r'not a png|not an image|unsupported|unknown|format|decod'),
            ('random bytes', random_bytes,
             r'not a png|not an image|unsupported|unknown|format|decod'),
            ('empty file', empty, r'empty'),
            ('/dev/null', '/dev/null', r'not a regular file')]:
        with t.case(f'bad input: {label}'):
            refused(label, ['set', '-o', OUT1, path], pattern)

    with t.case('bad input: standard input is /dev/null'):
        with open('/dev/null', 'rb') as f:
            refused('stdin-null', ['set', '-o', OUT1, '-'], r'not a regular file', stdin=f)

    with t.case('a regular file on standard input is named'):
        with open(other_png, 'rb') as f:
            expect_ok(c, 'set', '-o', OUT2, '-', 'stretch', stdin=f)
        v = wait_status(c, OUT2, state='shown', mode='stretch')
        t.check(v['file'] == other_png, 'labelled with its path', str(v))

    with t.case('unknown output'):
        rc, _, err = ctl(c, 'pause', '-o', 'NOPE-1')
        t.check(rc == 2 and 'NOPE-1' in err, 'pause -o NOPE-1: exit 2, names it', err)
        rc, _, err = ctl(c, 'status', '-o', 'NOPE-1')
        t.check(rc == 2 and 'NOPE-1' in err, 'status -o NOPE-1: exit 2, names it', err)
        unchanged('unknown-output')

    with t.case('usage errors: exit 1, nothing sent'):
        for args, pattern in [
                ((), r'usage'),
                (('sideways',), r'not a command'),
                (('set',), r'needs a file'),
                (('set', good_png, 'sideways'), r"'sideways'"),
                (('set', good_png, 'fit', '#12345z'), r'not a colour'),
                (('set', good_png, 'solid_color'), r'solid_color'),
                (('set', good_png, 'fit', '#ffffff', 'extra'), r"Unexpected word 'extra'"),
                (('off', 'now'), r'too many'),
                (('pause', '-o'), r'needs an output name'),
                (('status', '--bogus'), r'unknown option'),
                (('set', '--json', good_png), r'--json')]:
            rc, _, err = ctl(c, *args)
            t.check(rc == 1 and re.search(pattern, err, re.I),
                    f'veilctl {" ".join(args)}: exit 1, /{pattern}/', f'exit {rc}: {err}')
        rc, _, err = ctl(c, 'set', m('missing.png'))
        t.check(rc == 1 and 'missing.png' in err and 'No such file' in err,
                'a missing file: exit 1, named, before connecting', err)
        rc, _, err = ctl(c, 'set', '#203040')
        t.check(rc == 1 and 'solid_color' in err, 'a colour without solid_color: a hint', err)
        rc, out, _ = ctl(c, '--help')
        t.check(rc == 0 and 'veilctl set' in out, '--help: exit 0, usage on stdout')
        unchanged('usage')

    with t.case('no compositor: exit 1'):
        env = dict(c.client_env, WAYLAND_DISPLAY='veil-no-such-socket')
        rc, _, err = ctl(c, 'status', env=env)
        t.check(rc == 1 and 'WAYLAND_DISPLAY=veil-no-such-socket' in err,
                'a wrong WAYLAND_DISPLAY: exit 1, named', err)
        empty_dir = t.path('empty-runtime')
        os.makedirs(empty_dir, exist_ok=True)
        env = {k: v for k, v in c.client_env.items() if k != 'WAYLAND_DISPLAY'}
        env['XDG_RUNTIME_DIR'] = empty_dir
        rc, _, err = ctl(c, 'off', env=env)
        t.check(rc == 1 and 'WAYLAND_DISPLAY is not set' in err,
                'no WAYLAND_DISPLAY: exit 1, says so', err)

    with t.case('a client of another user is refused'):
        if not vt.can_run_as_other_user():
            vt._say('   (skipped: needs root and setpriv to run veilctl as another user)')
        else:
            with vt.socket_open_to_others(c) as sock:
                env = dict(c.client_env, WAYLAND_DISPLAY=sock, HOME='/')
                rc, _, err = ctl(c, 'set', '-o', OUT1, '#ff0000', 'solid_color', env=env,
                                 prefix=vt.OTHER_USER)
                # Hidden by the display filter (exit 1), or refused per command (exit 2).
                t.check((rc == 1 and 'does not offer' in err) or
                        (rc == 2 and 'does not let' in err),
                        'refused, with a message that says why', f'exit {rc}: {err}')
            unchanged('other-user')

    with t.case('status while descriptions follow each other: each printed whole'):
        # Pause and resume in a loop send a description each; a read of veilctl's may end
        # inside the description after the one it completes. veilctl printed that one half
        # received (an output without its details: 9 of 400 here): each must be whole.
        # Long paths make descriptions longer than one read (4 KiB).
        deep = m(os.path.join(*['d' * 240] * 6))
        os.makedirs(deep)
        long_video = os.path.join(deep, 'v' * 200 + '.mp4')
        os.link(video, long_video)
        expect_ok(c, 'set', '-o', OUT1, long_video, 'stretch')
        expect_ok(c, 'set', '-o', OUT2, long_video, 'stretch')
        wait_status(c, OUT2, kind='video', state='shown')
        stop = threading.Event()

        def toggle():
            # One IPC connection, as fast as the compositor answers.
            raw = fl.RawClient(c.swaysock)
            while not stop.is_set():
                for word in ('pause', 'resume'):
                    raw.request(0, f'output {OUT2} veil {word}')
        toggler = threading.Thread(target=toggle)
        toggler.start()
        halves = []
        try:
            for _ in range(STATUS_ROUNDS):
                for name, out in status(c).items():
                    if 'slideshow' not in out or 'palette' not in out:
                        halves.append(f'{name}: {sorted(out)}')
        finally:
            stop.set()
            toggler.join()
        t.check(not halves, f'{STATUS_ROUNDS} statuses during changes, each whole',
                f'{len(halves)} outputs without their details, first: {halves[:1]}')
        for out in (OUT1, OUT2):
            expect_ok(c, 'off', '-o', out)
            wait_status(c, out, kind='off')

    with t.case('a good command after all that'):
        expect_ok(c, 'set', '-o', OUT1, other_png, 'stretch')
        expect_ok(c, 'off', '-o', OUT2)
        v = wait_status(c, OUT1, state='shown', file=other_png, mode='stretch')
        t.check(v.get('error') is None, 'the error is cleared', str(v))
        shot = c.settled_screenshot(OUT1)
        t.compare(shot, vt.expect_stretch(other_png, W, H), 'recovered', tolerance=16,
                  mean_tolerance=3, ignore_edges=4)

t.finish()
