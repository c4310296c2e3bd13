#!/usr/bin/env python3
"""
What the user set, kept across real restarts of veil-tinywl (headless, pixman), driven with the
real swaymsg and seen with grim. veil-tinywl keeps it in $XDG_STATE_HOME/veil/veil-tinywl.json:
- a picture set at run time is written down (path, size, mtime, mode, colour); a start with
  `output HEADLESS-1 veil restore <fallback>` shows it again (screenshot), the status says
  restored: true;
- a slideshow moved with `next` comes back at the same picture and position, and goes on;
- a file changed between two runs is not restored: the fallback shows, the status says why;
- hostile state files (empty, not JSON, truncated, 2 MiB, nested 100000 deep, wrong types,
  another version, a directory) are each ignored with a log line naming the file, the fallback
  shown;
- a state file that cannot be written (its name is a directory) costs a log line, nothing else;
- the compositor killed (SIGKILL) at random points while settings change, 30 times: the state
  file is always absent or whole JSON of version 1, never torn.
The pictures are flat colours at the output's size, so that each screenshot is exactly one.
"""
import json
import os
import random
import shutil
import signal
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('state')
OUT = 'HEADLESS-1'
W, H = 1280, 720  # the headless default: the same after each restart
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media
KILLS = 30


def hexc(c):
    return '#%02x%02x%02x' % tuple(c)


def flat_png(path, c):
    return vt.make_png(path, np.broadcast_to(np.array(c, np.uint8), (H, W, 3)).copy())


state_home = t.path('state-home')
state_file = os.path.join(state_home, 'veil', 'veil-tinywl.json')
ENV = {'XDG_STATE_HOME': state_home}

A, B, FB = (10, 120, 200), (200, 40, 40), (30, 200, 60)
pic_a = flat_png(os.path.join(media, 'a.png'), A)
pic_b = flat_png(os.path.join(media, 'b.png'), B)
fallback = flat_png(os.path.join(media, 'fallback.png'), FB)
show_dir = os.path.join(media, 'show')
os.makedirs(show_dir)
slides = {}
for i in range(1, 6):
    c = (40 * i, 255 - 40 * i, (90 * i) % 256)
    slides[flat_png(os.path.join(show_dir, f's{i}.png'), c)] = c


def config(*lines):
    path = t.path(f'conf-{random.getrandbits(32):08x}')
    with open(path, 'w') as f:
        f.write(''.join(line + '\n' for line in lines))
    return path


RESTORE = f'output {OUT} veil restore {vt.quote(fallback)} fill'


def read_state():
    try:
        with open(state_file) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def entry(state):
    return ((state or {}).get('outputs') or {}).get(OUT) or {}


def screen_is(c, col, label):
    return t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(col), W, H), label,
                     **EXACT)


def log_text(c):
    with open(c.log_path, 'rb') as f:
        return f.read().decode('utf-8', 'replace')


def shown_file(c):
    s = c.veil(OUT).get('slideshow')
    return s.get('file') if isinstance(s, dict) else None


with t.compositor(outputs=1, env=ENV, name='first') as c:
    with t.case('a picture set at run time is written down'):
        t.check(os.path.isdir(os.path.dirname(state_file)),
                'veil-tinywl made $XDG_STATE_HOME/veil')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_a)} fit #123456')
        t.check(ok, 'a picture at run time', err)
        c.wait_veil(OUT, 'shown', file=pic_a)
        st = os.stat(pic_a)
        s = c.wait_until(lambda: (entry(read_state()).get('file') or {}).get('path') == pic_a
                         and read_state(), 'the state file names the picture')
        e = entry(s)
        t.check(s.get('version') == 1, 'version 1', str(s))
        t.check(e.get('file') == {'path': pic_a, 'size': st.st_size,
                                  'mtime_ns': st.st_mtime_ns},
                'path, size and mtime', str(e))
        t.check(e.get('mode') == 'fit' and e.get('color') == '#123456', 'mode and colour',
                str(e))
        t.check(os.listdir(os.path.dirname(state_file)) == ['veil-tinywl.json'],
                'no temporary file left beside it', str(os.listdir(os.path.dirname(state_file))))
        t.check(c.veil(OUT).get('restored') is None, 'no restore, no "restored" in the status')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_a)} fill')
        t.check(ok, 'fill', err)
        c.wait_until(lambda: entry(read_state()).get('mode') == 'fill', 'the state says fill')

with t.compositor(outputs=1, env=ENV, name='restored', config=config(RESTORE)) as c:
    with t.case('restore shows it again'):
        v = c.wait_veil(OUT, 'shown', file=pic_a)
        t.check(v.get('restored') is True, 'the status says restored', str(v))
        t.check(v.get('mode') == 'fill', 'in its mode', str(v))
        screen_is(c, A, 'restored-a')
        t.check('restored what was set before' in log_text(c), 'the log says restored')

    with t.case('a slideshow moved with next is written down'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(show_dir)} fill every 1h')
        t.check(ok, 'a slideshow', err)
        first = os.path.join(show_dir, 's1.png')
        c.wait_until(lambda: shown_file(c) == first and c.veil(OUT).get('file') == first,
                     'the first picture')
        t.check(c.veil(OUT).get('restored') is None,
                'a command after the restore: the status no longer says restored',
                str(c.veil(OUT).get('restored')))
        for i in range(2):
            c.wait_until(lambda: (c.veil(OUT).get('slideshow') or {}).get('ahead'),
                         'the next picture decoded ahead')
            before = shown_file(c)
            ok, err = c.msg(f'output {OUT} veil next')
            t.check(ok, 'next', err)
            c.wait_until(lambda: shown_file(c) != before, 'a step')
        third = os.path.join(show_dir, 's3.png')
        t.check(shown_file(c) == third, 's3 after two steps', str(shown_file(c)))
        s = c.wait_until(lambda: (entry(read_state()).get('slideshow') or {}).get('file') ==
                         third and read_state(), 'the state names s3')
        sh = entry(s)['slideshow']
        t.check(sh.get('directory') == show_dir and sh.get('position') == 3 and
                sh.get('order') == 'name' and sh.get('every') == 3600,
                'directory, position, order, interval', str(sh))

with t.compositor(outputs=1, env=ENV, name='restored-show', config=config(RESTORE)) as c:
    with t.case('the slideshow comes back at its place'):
        third = os.path.join(show_dir, 's3.png')
        c.wait_until(lambda: shown_file(c) == third and c.veil(OUT).get('file') == third,
                     'the slideshow at s3')
        v = c.veil(OUT)
        t.check(v.get('restored') is True and v['slideshow'].get('position') == 3,
                'restored, position 3', str(v))
        screen_is(c, slides[third], 'restored-s3')
        c.wait_until(lambda: (c.veil(OUT).get('slideshow') or {}).get('ahead'),
                     'the next picture decoded ahead')
        ok, err = c.msg(f'output {OUT} veil next')
        t.check(ok, 'next', err)
        fourth = os.path.join(show_dir, 's4.png')
        c.wait_until(lambda: shown_file(c) == fourth, 'next goes on to s4')
    with t.case('set b, then b changes while the compositor is stopped'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_b)} fill')
        t.check(ok, 'b', err)
        c.wait_until(lambda: (entry(read_state()).get('file') or {}).get('path') == pic_b,
                     'the state names b')

# The same name, other pixels and another size: not what was set.
time.sleep(0.01)
vt.make_png(pic_b, np.broadcast_to(np.array(A, np.uint8), (H // 2, W // 2, 3)).copy())

with t.compositor(outputs=1, env=ENV, name='changed', config=config(RESTORE)) as c:
    with t.case('a changed file falls back'):
        v = c.wait_veil(OUT, 'shown', file=fallback)
        t.check(v.get('restored') is False and 'changed' in (v.get('restore_reason') or ''),
                'restored: false, because b changed', str(v))
        screen_is(c, FB, 'changed-fallback')
        t.check('not restored' in log_text(c) and 'b.png' in log_text(c),
                'the log says why', vt._tail(c.log_path, 5))

video = os.path.join(media, 'clip.mp4')
vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=3', '-c:v', 'libx264',
            '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', video])

with t.compositor(outputs=1, env=ENV, name='video') as c:
    with t.case('a paused video is written down'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fit')
        t.check(ok, 'a video', err)
        c.wait_veil(OUT, 'shown', file=video, kind='video')
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, 'pause', err)
        c.wait_until(lambda: entry(read_state()).get('paused') is True and
                     (entry(read_state()).get('file') or {}).get('path') == video,
                     'the state says the video is paused')

with t.compositor(outputs=1, env=ENV, name='video-restored', config=config(RESTORE)) as c:
    with t.case('the video comes back paused'):
        v = c.wait_until(lambda: c.veil(OUT).get('file') == video and
                         c.veil(OUT).get('state') == 'paused' and c.veil(OUT),
                         'the video, paused')
        t.check(v.get('restored') is True and v.get('paused') == 'command',
                'restored, paused by the command', str(v))
        frames = c.veil(OUT).get('frames')
        time.sleep(0.5)
        t.check(c.veil(OUT).get('frames') == frames, 'no frame shown while paused',
                f"{frames} -> {c.veil(OUT).get('frames')}")

HOSTILE = {
    'empty': b'',
    'not-json': b'\x89PNG this is not a state file',
    'truncated': json.dumps({'version': 1, 'outputs': {OUT: {
        'mode': 'fill', 'color': '#000000',
        'file': {'path': pic_a, 'size': os.stat(pic_a).st_size,
                 'mtime_ns': os.stat(pic_a).st_mtime_ns}}}}).encode()[:-7],
    'huge': b'{"version":1,"outputs":{},"pad":"' + b'x' * (2 << 20) + b'"}',
    'nested': b'[' * 100000 + b']' * 100000,
    'wrong-types': json.dumps({'version': 1, 'outputs': {OUT: {
        'mode': 7, 'file': {'path': ['/etc/passwd']}}}}).encode(),
    'other-version': json.dumps({'version': 99, 'outputs': {}}).encode(),
    'not-a-path': json.dumps({'version': 1, 'outputs': {OUT: {
        'mode': 'fill', 'file': {'path': 'relative.png', 'size': 1, 'mtime_ns': 1}}}}).encode(),
}
for name, data in HOSTILE.items():
    with open(state_file, 'wb') as f:
        f.write(data)
    with t.compositor(outputs=1, env=ENV, name=f'hostile-{name}', config=config(RESTORE)) as c:
        with t.case(f'a hostile state file ({name}) falls back'):
            v = c.wait_veil(OUT, 'shown', file=fallback)
            t.check(v.get('restored') is False, f'{name}: restored false', str(v))
            if name == 'not-json':
                screen_is(c, FB, 'hostile-fallback')
            lines = [x for x in log_text(c).splitlines() if 'is ignored' in x]
            t.check(len(lines) == 1 and state_file in lines[0],
                    f'{name}: one log line naming the file', '\n'.join(lines) or
                    vt._tail(c.log_path, 5))
            t.check(c.responsive(), f'{name}: the compositor answers')

with t.case('a state file that cannot be written'):
    os.unlink(state_file)
    os.makedirs(state_file)  # rename() onto a directory fails
    with t.compositor(outputs=1, env=ENV, name='unwritable') as c:
        ok, err = c.msg(f'output {OUT} veil {vt.quote(pic_a)} fill')
        t.check(ok, 'a picture', err)
        c.wait_veil(OUT, 'shown', file=pic_a)
        c.wait_until(lambda: 'cannot keep the wallpapers' in log_text(c), 'a log line')
        ok, err = c.msg(f'output {OUT} veil #204060 solid_color')
        t.check(ok, 'commands go on working', err)
        c.wait_veil(OUT, 'shown', kind='color')
        screen_is(c, (0x20, 0x40, 0x60), 'unwritable-colour')
        time.sleep(1.5)  # a second write (debounced) fails too
        n = log_text(c).count('cannot keep the wallpapers')
        t.check(n == 1, 'one line for failures in a row', str(n))
    shutil.rmtree(state_file)

with t.case(f'killed {KILLS} times while writing: never a torn file'):
    rng = random.Random(31)
    seen_versions = 0
    for i in range(KILLS):
        # A write cut short leaves its temporary file, which the next start removes.
        with open(state_file + '.Xq3vZ1', 'w') as f:
            f.write('{"version": 1, "outp')
        c = vt.Compositor(t, outputs=1, env=ENV, name=f'kill-{i}', config=config(RESTORE))
        c.start()
        stop = threading.Event()

        def churn():
            k = 0
            while not stop.is_set():
                k += 1
                what = (f'{vt.quote(pic_a)} fit #{k % 256:02x}3040' if k % 3 else
                        f'#{k % 256:02x}0000 solid_color')
                try:
                    c.msg(f'output {OUT} veil {what}', timeout=5)
                except Exception:
                    return
                stop.wait(0.05)

        th = threading.Thread(target=churn, daemon=True)
        th.start()
        time.sleep(rng.uniform(0.2, 2.5))
        if i == 0:
            c.wait_until(lambda: not os.path.exists(state_file + '.Xq3vZ1'),
                         'a leftover temporary file removed at the start')
        c.proc.send_signal(signal.SIGKILL)
        c.proc.wait()
        stop.set()
        th.join()
        c.stopped = True
        c._cleanup()
        try:
            s = read_state()
            good = s is None or (s.get('version') == 1 and isinstance(s.get('outputs'), dict))
            seen_versions += s is not None
        except ValueError as e:
            good = False
            s = str(e)
        if not good:
            t.fail(f'kill {i}: the state file is whole JSON or absent', str(s)[:300])
            break
    else:
        t.check(True, f'{KILLS} kills: the state file was always absent or whole')
    t.check(seen_versions > 0, 'some runs wrote a state file before their kill',
            str(seen_versions))

t.finish()
