#!/usr/bin/env python3
"""
Slideshows on one output of veil-tinywl (headless, pixman), driven with the real swaymsg and
seen with grim: `veil <directory>` in name order (natural: 2 before 10), mtime order, and
shuffled (every picture once per cycle), `next` and `previous`, a bad file passed over, a file
added during the show, a directory emptied during the show, the interval's timer, a step
deferred while the output is disabled, a fade between two pictures, and the words refused.
The pictures are flat colours at the output's size, so that each screenshot is exactly one of
them (or, mid-fade, a blend of two computed here).
"""
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('slideshow')
OUT = 'HEADLESS-1'
W, H = 640, 360
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media


def colour(i):
    """A distinct flat colour per picture number."""
    return ((37 * i + 40) % 256, (91 * i + 20) % 256, (53 * i + 200) % 256)


def hexc(c):
    return '#%02x%02x%02x' % tuple(c)


def flat_png(path, c):
    return vt.make_png(path, np.broadcast_to(np.array(c, np.uint8), (H, W, 3)).copy())


def make_dir(name, files):
    """A directory with {file name: colour number}; returns its path and {path: colour}."""
    d = os.path.join(media, name)
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o755)
    colours = {}
    for fname, i in files.items():
        p = os.path.join(d, fname)
        flat_png(p, colour(i))
        colours[p] = colour(i)
    return d, colours


def show_of(c):
    return c.veil(OUT).get('slideshow')


def shown_file(c):
    s = show_of(c)
    return s.get('file') if isinstance(s, dict) else None


def screen_is(c, col, label):
    return t.compare(c.settled_screenshot(OUT), vt.expect_solid(hexc(col), W, H), label,
                     **EXACT)


def wait_file(c, path, what, timeout=10):
    return c.wait_until(lambda: shown_file(c) == path and c.veil(OUT).get('file') == path and
                        show_of(c), what, timeout=timeout)


def wait_ahead(c):
    """
    The picture after the one on screen is decoded: the next step is at once. And the shown
    picture's palette is made: its result, when it comes, wakes the compositor once.
    """
    return c.wait_until(lambda: (show_of(c) or {}).get('ahead') and c.veil(OUT).get('palette'),
                        'a picture decoded ahead, the palette of the one shown', timeout=10)


def step(c, word, colours, label):
    """
    `veil next` once the next picture is ready: on screen at the reply. `veil previous`: the
    picture before is not kept decoded, so it comes once it is.
    """
    wait_ahead(c)
    before = shown_file(c)
    ok, err = c.msg(f'output {OUT} veil {word}')
    t.check(ok, f'`veil {word}` accepted', err)
    if word == 'previous':
        c.wait_until(lambda: shown_file(c) != before, 'the picture before', timeout=10)
        path = shown_file(c)
        t.check(path in colours, f'{label}: a picture of the show', path)
    else:
        path = shown_file(c)
        t.check(path in colours and path != before,
                f'{label}: another picture of the show at once after the reply', path)
    if path in colours:
        screen_is(c, colours[path], f'{label}-{os.path.basename(path)}')
    return path


def log_text(c):
    with open(c.log_path, 'rb') as f:
        return f.read().decode('utf-8', 'replace')


with t.compositor(outputs=1) as c:
    pid = c.proc.pid
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        ok, err = c.msg(f'output {OUT} veil #102030 solid_color')
        t.check(ok, 'a colour first', err)
        c.wait_veil(OUT, 'shown', kind='color')

    names, named = make_dir('named', {'img10.png': 10, 'img2.png': 2, 'img1.png': 1})
    bad = os.path.join(names, 'bad.png')
    vt.make_text(bad)
    p1, p2, p10 = (os.path.join(names, n) for n in ('img1.png', 'img2.png', 'img10.png'))

    with t.case('name order, a bad file passed over'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(names)} fill every 1h order name')
        t.check(ok, '`veil <directory> fill every 1h order name` accepted', err)
        s = wait_file(c, p1, 'the first picture by name')
        screen_is(c, named[p1], 'name-1')
        t.check(s.get('directory') == names and s.get('order') == 'name' and
                s.get('every') == 3600, 'the status names the directory, order, interval', str(s))
        t.check(s.get('position') == 1 and s.get('count') == 3,
                'position 1 of 3 (the bad file is not counted)', str(s))
        due = s.get('next_change_ms')
        t.check(isinstance(due, int) and 3590000 < due <= 3600000,
                'the next change is due in an hour', str(due))
        # Between steps nothing wakes the compositor (no IPC while it is counted).
        # Two windows, the quieter counted: a worker's result that comes late (the scan after
        # the step, under the sanitizers' load) lands in one; anything periodic is in both.
        wait_ahead(c)
        counts = []
        for _ in range(2):
            w0 = vt.proc.wakeups(pid)
            time.sleep(3)
            counts.append(vt.proc.wakeups(pid) - w0)
        woke = min(counts)
        t.check(woke <= 2, f'between steps the main thread slept: {woke} wake-ups in 3 s '
                f'(windows {counts})')
        t.check(step(c, 'next', named, 'name') == p2, 'next: img2 (natural order)')
        t.check(step(c, 'next', named, 'name') == p10, 'next: img10')
        t.check(show_of(c).get('position') == 3, 'position 3', str(show_of(c)))
        t.check(step(c, 'next', named, 'name') == p1, 'next after the last: img1 again')
        t.check(step(c, 'previous', named, 'name') == p10, 'previous: img10')
        t.check(step(c, 'previous', named, 'name') == p2, 'previous: img2')
        log = log_text(c)
        t.check(re.search(r'skipping: .*bad\.png', log) is not None,
                'the bad file is logged as skipped, named', vt._tail(c.log_path, 10))

    with t.case('a file added during the show appears'):
        p3 = os.path.join(names, 'img3.png')
        flat_png(p3, colour(3))
        named[p3] = colour(3)
        seen = []
        for _ in range(4):
            seen.append(step(c, 'next', named, 'added'))
            if seen[-1] == p3:
                break
        t.check(p3 in seen, 'img3 comes within a cycle, after img2', str(seen))
        c.check_until(lambda: show_of(c).get('count') == 4, 'the count says 4', timeout=5)
        # Removed again: passed over.
        os.unlink(p3)
        del named[p3]
        seen = [step(c, 'next', named, 'removed') for _ in range(4)]
        t.check(p3 not in seen, 'a removed file no longer comes', str(seen))

    with t.case('a file that fails to decode is passed over'):
        cdir, ccol = make_dir('corrupt', {'a.png': 61, 'c.png': 63})
        broken = os.path.join(cdir, 'b.png')
        vt.make_corrupt_png(broken, os.path.join(cdir, 'a.png'))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(cdir)} fill every 1h')
        t.check(ok, '`veil <directory> fill every 1h` accepted', err)
        wait_file(c, os.path.join(cdir, 'a.png'), 'a first')
        t.check(step(c, 'next', ccol, 'corrupt') == os.path.join(cdir, 'c.png'),
                'next: c, b (whose header is right) failed to decode')
        t.check(show_of(c).get('count') == 2, 'b is not counted once known bad',
                str(show_of(c)))
        t.check(c.veil(OUT).get('error') is None, 'no error on the output',
                str(c.veil(OUT).get('error')))
        t.check(re.search(r'skipping: .*b\.png', log_text(c)) is not None,
                'b is logged as skipped')

    with t.case('recursive'):
        rdir, rcol = make_dir('tree', {'r1.png': 71})
        sub, scol2 = make_dir(os.path.join('tree', 'sub'), {'r2.png': 72})
        hidden, _ = make_dir(os.path.join('tree', '.hidden'), {'r3.png': 73})
        rcol.update(scol2)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(rdir)} fill every 1h')
        t.check(ok, 'without recursive', err)
        wait_file(c, os.path.join(rdir, 'r1.png'), 'r1')
        c.check_until(lambda: show_of(c).get('count') == 1, 'one picture: sub/ left out')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(rdir)} fill every 1h recursive')
        t.check(ok, '`veil <directory> fill every 1h recursive` accepted', err)
        c.check_until(lambda: show_of(c).get('count') == 2 and show_of(c).get('recursive'),
                      'two pictures: sub/ read, .hidden/ not')
        seen = {step(c, 'next', rcol, 'recursive') for _ in range(2)}
        t.check(seen == {os.path.join(rdir, 'r1.png'), os.path.join(sub, 'r2.png')},
                'both shown', str(seen))

    with t.case('mtime order'):
        mdir, mcol = make_dir('bymtime', {'a.png': 21, 'b.png': 22, 'c.png': 23})
        now = time.time()
        for n, age in (('a.png', 100), ('b.png', 300), ('c.png', 200)):
            os.utime(os.path.join(mdir, n), (now - age, now - age))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(mdir)} fill order mtime every 1h')
        t.check(ok, '`veil <directory> fill order mtime every 1h` accepted', err)
        wait_file(c, os.path.join(mdir, 'b.png'), 'the oldest first')
        screen_is(c, mcol[os.path.join(mdir, 'b.png')], 'mtime-b')
        t.check(step(c, 'next', mcol, 'mtime') == os.path.join(mdir, 'c.png'), 'then c')
        t.check(step(c, 'next', mcol, 'mtime') == os.path.join(mdir, 'a.png'), 'then a')

    with t.case('shuffle: every picture once per cycle'):
        N = 6
        sdir, scol = make_dir('shuffled', {f's{i}.png': 30 + i for i in range(N)})
        ok, err = c.msg(f'output {OUT} veil {vt.quote(sdir)} stretch order shuffle every 1h')
        t.check(ok, '`veil <directory> stretch order shuffle every 1h` accepted', err)
        first = c.wait_until(lambda: shown_file(c) if shown_file(c) in scol else None,
                             'a first picture', timeout=10)
        screen_is(c, scol[first], 'shuffle-first')
        cycles = [[first]]
        for i in range(2 * N - 1):
            p = step(c, 'next', scol, 'shuffle')
            if len(cycles[-1]) == N:
                cycles.append([])
            cycles[-1].append(p)
            pos = show_of(c).get('position')
            t.check(pos == len(cycles[-1]), f'position {len(cycles[-1])} of {N}', str(pos))
        for k, cyc in enumerate(cycles):
            t.check(sorted(cyc) == sorted(scol), f'cycle {k}: each of the {N} pictures once',
                    str([os.path.basename(p) for p in cyc]))
        t.check(cycles[0] != sorted(scol) or cycles[1] != sorted(scol), 'not in name order')
        back = step(c, 'previous', scol, 'shuffle-back')
        t.check(back == cycles[1][-2], 'previous: the picture shown before', back)

    with t.case('the timer steps, a fade between two pictures'):
        fdir, fcol = make_dir('fading', {'f1.png': 41, 'f2.png': 42})
        f1, f2 = os.path.join(fdir, 'f1.png'), os.path.join(fdir, 'f2.png')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(fdir)} fill every 5s transition fade 3000')
        t.check(ok, '`veil <directory> fill every 5s transition fade 3000` accepted', err)
        s1 = wait_file(c, f1, 'f1 first')
        due1 = s1.get('next_change_ms')
        t.check(isinstance(due1, int) and 4000 < due1 <= 5000, 'due in 5 s', str(due1))
        due_at = time.monotonic() + (due1 or 5000) / 1000.0
        c.wait_until(lambda: c.veil(OUT).get('transition') is None, 'the first fade ends',
                     timeout=8)
        screen_is(c, fcol[f1], 'fade-f1')
        c.wait_until(lambda: shown_file(c) == f2, 'the timer steps to f2', timeout=10,
                     interval=0.02)
        seen_at = time.monotonic()
        # Well inside the 3 s fade however late the polling saw the step.
        time.sleep(0.8)
        before_grab = time.monotonic()
        shot = vt.grab(c, OUT)
        grabbed_at = (before_grab + time.monotonic()) / 2
        t.check(-0.1 < seen_at - due_at < 2.5,
                f'seen stepping {seen_at - due_at:+.2f} s after it was due (polling)')
        a, why = vt.blend_of(shot, fcol[f1], fcol[f2])
        t.check(a is not None, f'mid-fade: a blend of f1 and f2 (a {a})', why)
        if a is not None:
            # The fade's opacity grows linearly over its 3 s: when it began, from the pixels.
            began = grabbed_at - 3.0 * a - due_at
            t.check(-0.3 < began < 0.5, f'the step began {began:+.2f} s from when it was due')
        c.wait_until(lambda: c.veil(OUT).get('transition') is None, 'the fade ends', timeout=8)
        screen_is(c, fcol[f2], 'fade-f2')
        # Once per step: the next one is due an interval after this one.
        due = show_of(c).get('next_change_ms')
        t.check(isinstance(due, int) and 0 < due <= 5000, 'the next change is due', str(due))

    with t.case('a disabled output defers the step'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(fdir)} fill every 1s')
        t.check(ok, '`veil <directory> fill every 1s` accepted', err)
        wait_file(c, f1, 'f1 first')
        ok, err = c.msg(f'output {OUT} disable')
        t.check(ok, f'output {OUT} disable', err)
        c.check_until(lambda: show_of(c).get('state') == 'deferred', 'the step is deferred',
                      timeout=5)
        before = shown_file(c)
        time.sleep(2.5)
        t.check(shown_file(c) == before, 'no step while disabled', shown_file(c))
        t.check(show_of(c).get('state') == 'deferred', 'still deferred', str(show_of(c)))
        ok, err = c.msg(f'output {OUT} enable')
        t.check(ok, f'output {OUT} enable', err)
        c.wait_mode(OUT, W, H)
        c.check_until(lambda: shown_file(c) not in (None, before), 'shown again: it steps',
                      timeout=5)

    with t.case('an emptied directory is reported, the picture stays'):
        edir, ecol = make_dir('emptied', {'e1.png': 51, 'e2.png': 52})
        ok, err = c.msg(f'output {OUT} veil {vt.quote(edir)} fill every 1h')
        t.check(ok, '`veil <directory> fill every 1h` accepted', err)
        e1 = os.path.join(edir, 'e1.png')
        wait_file(c, e1, 'e1 first')
        wait_ahead(c)
        for n in ('e1.png', 'e2.png'):
            os.unlink(os.path.join(edir, n))
        ok, err = c.msg(f'output {OUT} veil next')
        t.check(ok, '`veil next` accepted', err)
        v = c.check_until(lambda: (lambda v: v if edir in (v.get('error') or '') else None)(
            c.veil(OUT)), 'the status error names the directory', timeout=5)
        t.check(v is not None and show_of(c).get('state') == 'empty', 'the show says empty',
                str(show_of(c)))
        screen_is(c, ecol[e1], 'emptied-stays')
        e3 = os.path.join(edir, 'e3.png')
        flat_png(e3, colour(53))
        ok, err = c.msg(f'output {OUT} veil next')
        t.check(ok, '`veil next` after a picture came back', err)
        c.check_until(lambda: shown_file(c) == e3, 'the new picture shows', timeout=5)
        c.check_until(lambda: c.veil(OUT).get('error') is None, 'the error is gone', timeout=5)
        screen_is(c, colour(53), 'emptied-e3')

    with t.case('an empty directory'):
        nodir = os.path.join(media, 'nothing')
        os.mkdir(nodir)
        os.chmod(nodir, 0o755)
        vt.make_text(os.path.join(nodir, 'notes.txt'))
        ok, err = c.msg(f'output {OUT} veil {vt.quote(nodir)}')
        t.check(ok, 'accepted: the directory is read on a worker', err)
        c.check_until(lambda: nodir in (c.veil(OUT).get('error') or ''),
                      'the status error names the directory', timeout=5)
        screen_is(c, colour(53), 'empty-stays')

    with t.case('words refused'):
        for words, want in ((f'{vt.quote(p1)} every 10m', 'not a directory'),
                            (f'{vt.quote(names)} order random', 'Unknown order'),
                            (f'{vt.quote(names)} every 0s', 'Invalid interval'),
                            (f'{vt.quote(names)} every 5 min', 'Unknown mode')):
            ok, err = c.msg(f'output {OUT} veil {words}')
            t.check(not ok and want in (err or ''), f'`veil {words}` refused: {want}', err)
        ok, err = c.msg(f'output {OUT} veil #203040 solid_color')
        t.check(ok, 'a colour ends the show', err)
        c.wait_veil(OUT, 'shown', kind='color')
        t.check(show_of(c) is None, 'no slideshow in the status', str(show_of(c)))
        ok, err = c.msg(f'output {OUT} veil next')
        t.check(not ok and 'no slideshow' in (err or ''), '`veil next` without a show', err)

t.finish()
