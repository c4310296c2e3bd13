#!/usr/bin/env python3
"""
GNOME timed backgrounds: `output <name> veil <file.xml>` on veil-tinywl (headless, pixman),
with the wall clock the test moves (veil-tinywl --fake-clock and its `fake_clock` command, the
clock veil's scene reads through its private header), seen with grim.

The XML is written here: three flat-colour pictures A, B, C named relative to the XML's
directory, static slots and transitions, one of them long (600 s: veil steps it in 256ths) and
one short (6 s: drawn every frame). The compositor runs in UTC (TZ=UTC0) and the start time is
turned into seconds here with calendar.timegm. At a slot's boundary the screenshot is exactly
its picture; midway through a transition it is old*(1-a) + new*a for one a, judged against the
share of the slot elapsed (computed here from the durations, quantised to the 256 steps of a
long fade); after the cycle it wraps. A change due while the clock runs comes from veil's timer.
Files with impossible times, a missing picture, or hostile XML (a billion laughs, an external
entity, deep nesting, a huge file) are refused with the file named, and the wallpaper stays.
"""
import calendar
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('timed')
OUT = 'HEADLESS-1'
W, H = 640, 360
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media

A = (230, 210, 150)
B = (20, 30, 70)
C = (90, 160, 60)
BASE = (200, 40, 40)


def flat(color):
    return np.broadcast_to(np.array(color, np.uint8), (H, W, 3)).copy()


for name, colour in (('a.png', A), ('b.png', B), ('c.png', C), ('base.png', BASE)):
    vt.make_png(os.path.join(media, name), flat(colour))
base_png = os.path.join(media, 'base.png')

START = calendar.timegm((2024, 3, 1, 6, 0, 0))
# (kind, seconds, from, to): static A 100, A->B 600 (stepped), static B 100, B->C 6 (every
# frame), static C 100, C->A 600.
SLOTS = [('static', 100, 'a.png', 'a.png'), ('transition', 600, 'a.png', 'b.png'),
         ('static', 100, 'b.png', 'b.png'), ('transition', 6, 'b.png', 'c.png'),
         ('static', 100, 'c.png', 'c.png'), ('transition', 600, 'c.png', 'a.png')]
CYCLE = sum(s[1] for s in SLOTS)
COLOURS = {'a.png': A, 'b.png': B, 'c.png': C}


def slot_start(i):
    return START + sum(s[1] for s in SLOTS[:i])


def xml_text(slots, start='<year>2024</year><month>3</month><day>1</day>'
             '<hour>6</hour><minute>0</minute><second>0</second>'):
    parts = ['<?xml version="1.0"?>\n<background>\n', f'  <starttime>{start}</starttime>\n']
    for kind, seconds, frm, to in slots:
        if kind == 'static':
            parts.append(f'  <static><duration>{seconds}.0</duration><file>{to}</file>'
                         '</static>\n')
        else:
            parts.append(f'  <transition type="overlay"><duration>{seconds}.0</duration>'
                         f'<from>{frm}</from><to>{to}</to></transition>\n')
    parts.append('</background>\n')
    return ''.join(parts)


def write(name, text):
    path = os.path.join(media, name)
    with open(path, 'w' if isinstance(text, str) else 'wb') as f:
        f.write(text)
    return path


good_xml = write('timed.xml', xml_text(SLOTS))


def timed(c):
    return c.veil(OUT).get('timed')


def set_clock(c, seconds):
    ok, err = c.msg(f'fake_clock {seconds}')
    t.check(ok, f'fake_clock {seconds - START:+.0f} s from the start accepted', err)


def wait_slot(c, slot, what):
    """The status's timed show at slot (counted from 1), playing."""
    return c.wait_until(lambda: (lambda v: v if v and v.get('slot') == slot and
                                 v.get('state') == 'playing' else None)(timed(c)),
                        f'{what}: timed slot {slot}', timeout=20)


def at_picture(c, colour, label, slot, transition_expected=False):
    wait_slot(c, slot, label)
    c.wait_until(lambda: (c.veil(OUT).get('transition') is None) != transition_expected,
                 f'{label}: no transition running', timeout=20)
    t.compare(c.settled_screenshot(OUT), flat(colour), label, **EXACT)


def judge_blend(c, slot, old, new, what):
    """Mid-transition: a blend whose share is the share of the slot elapsed (in 256ths)."""
    wait_slot(c, slot, what)
    c.wait_until(lambda: (c.veil(OUT).get('transition') or {}).get('kind') == 'fade',
                 f'{what}: a fade runs', timeout=20)
    shot = vt.grab(c, OUT)
    v = timed(c)
    p = v.get('slot_progress') if v else None
    a, why = vt.blend_of(shot, old, new)
    t.check(a is not None, f'{what}: a blend of the two pictures', why)
    if a is None or p is None:
        return
    quantised = math.floor(p * 256) / 256
    t.check(abs(a - quantised) <= 0.02,
            f'{what}: the blend ({a:.3f}) is the share of the slot elapsed ({p:.3f}, '
            f'{quantised:.3f} in 256ths)')


def count_wakeups(c, seconds):
    """Wake-ups of the compositor's main thread over seconds, no IPC meanwhile."""
    w0 = vt.proc.wakeups(c.proc.pid)
    time.sleep(seconds)
    return vt.proc.wakeups(c.proc.pid) - w0


def refused(c, path, parts, label):
    """The file is refused: the error names it (and says parts); the base picture stays."""
    c.refused_file(OUT, f'{vt.quote(path)} fill', path, parts, label)
    t.check(c.responsive(), f'{label}: the compositor still answers')
    v = c.veil(OUT)
    t.check(v.get('file') == base_png and v.get('timed') is None,
            f'{label}: the wallpaper stays, no timed show', f'{v.get("file")} {v.get("timed")}')
    t.compare(c.settled_screenshot(OUT), flat(BASE), label, **EXACT)


with t.compositor(args=['--fake-clock', str(START)], env={'TZ': 'UTC0'}) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(base_png)} fill')
        t.check(ok, '`veil base.png fill` accepted', err)
        c.wait_veil(OUT, 'shown', file=base_png)

    with t.case('impossible times'):
        bad = write('bad-hour.xml', xml_text(SLOTS, '<year>2024</year><month>3</month>'
                                                  '<day>1</day><hour>25</hour>'))
        refused(c, bad, ['<hour>', '25'], 'hour-25')
        bad = write('bad-date.xml', xml_text(SLOTS, '<year>2023</year><month>2</month>'
                                                  '<day>29</day>'))
        refused(c, bad, ['2023-02-29 is not a date'], 'feb-29')
        bad = write('bad-duration.xml', xml_text([('static', -100, 'a.png', 'a.png')]))
        refused(c, bad, ["duration '-100.0'"], 'negative-duration')

    with t.case('a missing picture'):
        bad = write('missing.xml', xml_text(SLOTS[:2] + [('static', 100, 'b.png', 'gone.png')]))
        refused(c, bad, [os.path.join(media, 'gone.png')], 'missing-picture')

    with t.case('hostile XML'):
        laughs = ['<!ENTITY l0 "ha">'] + [
            f'<!ENTITY l{i} "' + f'&l{i - 1};' * 10 + '">' for i in range(1, 10)]
        bad = write('laughs.xml', '<?xml version="1.0"?>\n<!DOCTYPE background [\n' +
                    '\n'.join(laughs) + '\n]>\n' + xml_text(SLOTS).split('\n', 1)[1]
                    .replace('<file>a.png</file>', '<file>&l9;</file>'))
        refused(c, bad, [], 'billion-laughs')
        bad = write('xxe.xml', '<?xml version="1.0"?>\n<!DOCTYPE background [ <!ENTITY x '
                    'SYSTEM "file:///etc/passwd"> ]>\n' + xml_text(SLOTS).split('\n', 1)[1]
                    .replace('<file>a.png</file>', '<file>&x;</file>'))
        refused(c, bad, ['DOCTYPE'], 'external-entity')
        bad = write('deep.xml', '<background>' + '<a>' * 100000 + '</a>' * 100000 +
                    '</background>')
        refused(c, bad, ['not well-formed'], 'deep')
        bad = write('huge.xml', xml_text(SLOTS) + ' ' * (2 << 20))
        refused(c, bad, ['too large'], 'huge')
        bad = write('png.xml', open(base_png, 'rb').read())
        refused(c, bad, ['not well-formed'], 'not-xml')

    with t.case('the start: the first picture'):
        # The clock back at the start: the refusals above took seconds of it.
        set_clock(c, START)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_xml)} fill')
        t.check(ok, '`veil timed.xml fill` accepted', err)
        v = wait_slot(c, 1, 'start')
        t.check(v.get('file') == good_xml and v.get('slots') == len(SLOTS) and
                v.get('cycle_s') == CYCLE and v.get('slot_kind') == 'static',
                'the status names the file, its slots and cycle', str(v))
        t.check(abs(v.get('next_change_ms', 0) - 100000) < 3000,
                'the next change is due at the end of the first slot', str(v))
        t.check(c.veil(OUT).get('file') == os.path.join(media, 'a.png'),
                'a.png shows, found beside the XML', str(c.veil(OUT).get('file')))
        at_picture(c, A, 'start', 1)

    with t.case('the beginning of a long transition'):
        set_clock(c, slot_start(1))
        wait_slot(c, 2, 'transition start')
        c.wait_until(lambda: c.veil(OUT).get('file') == os.path.join(media, 'b.png'),
                     'b.png set', timeout=20)
        # At 0/256 of the fade the old picture alone shows.
        t.compare(c.settled_screenshot(OUT), flat(A), 'transition-start', **EXACT)

    with t.case('midway through a long transition'):
        set_clock(c, slot_start(1) + 300)
        judge_blend(c, 2, A, B, 'A to B at 300 of 600 s')
        # 600 s in 256 steps: one every 2.34 s, each a timer and a frame or two; drawn at
        # every frame it would be some 60 wake-ups a second.
        woke = count_wakeups(c, 7)
        t.check(woke <= 24, f'the long fade sleeps between its steps: {woke} wake-ups in 7 s')

    with t.case('a quarter into it'):
        set_clock(c, slot_start(1) + 150)
        judge_blend(c, 2, A, B, 'A to B at 150 of 600 s')

    with t.case('the boundary into the next static slot'):
        set_clock(c, slot_start(2))
        at_picture(c, B, 'static-b', 3)
        # The next change is 100 s away, its pictures decoded ahead: nothing wakes meanwhile.
        c.wait_until(lambda: timed(c).get('state') == 'playing', 'playing', timeout=10)
        time.sleep(1)
        woke = count_wakeups(c, 10)
        t.check(woke <= 2, f'between changes the main thread slept: {woke} wake-ups in 10 s')

    with t.case('a change at its time, from the timer'):
        set_clock(c, slot_start(3) - 2)
        set_at = time.monotonic()
        at_picture(c, B, 'before-b-to-c', 3)
        # Two seconds later the short fade starts; it lasts 6 s.
        c.check_until(lambda: (c.veil(OUT).get('transition') or {}).get('kind') == 'fade',
                      'the short fade starts on time', timeout=10)
        waited = time.monotonic() - set_at
        t.check(waited >= 1.5, f'not before its time ({waited:.2f} s after 2 s to go)')
        v = timed(c)
        t.check(v and v.get('slot') == 4, 'the status is in the fade slot', str(v))
        c.check_until(lambda: c.veil(OUT).get('transition') is None, 'the fade ends',
                      timeout=15)
        at_picture(c, C, 'after-b-to-c', 5)

    with t.case('the end of the cycle wraps'):
        set_clock(c, START + 3 * CYCLE + 50)
        at_picture(c, A, 'wrapped', 1)
        set_clock(c, slot_start(5) + 2 * CYCLE + 450)
        judge_blend(c, 6, C, A, 'C to A at 450 of 600 s, two cycles on')
        set_clock(c, START - CYCLE + slot_start(4) - START + 10)
        at_picture(c, C, 'a-cycle-before-the-start', 5)

    with t.case('another wallpaper ends the show'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(base_png)} fill')
        t.check(ok, '`veil base.png fill` accepted', err)
        c.wait_veil(OUT, 'shown', file=base_png)
        t.check(timed(c) is None, 'no timed show in the status', str(timed(c)))
        set_clock(c, slot_start(2))
        time.sleep(0.5)
        t.compare(c.settled_screenshot(OUT), flat(BASE), 'ended', **EXACT)

    with t.case('veilctl set plays the XML'):
        # veilctl sends a descriptor; veil finds the XML's path from it, to find its pictures.
        set_clock(c, slot_start(2) + 10)
        rc, err = c.veilctl('-o', OUT, 'set', good_xml, 'fill')
        t.check(rc == 0, '`veilctl set timed.xml fill` exits 0', err)
        v = wait_slot(c, 3, 'veilctl')
        t.check(v.get('file') == good_xml, 'the status names the XML', str(v))
        at_picture(c, B, 'veilctl-static-b', 3)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(base_png)} fill')
        t.check(ok, '`veil base.png fill` accepted', err)
        c.wait_veil(OUT, 'shown', file=base_png)
        rc, err = c.veilctl('-o', OUT, 'set', os.path.join(media, 'nowhere.xml'))
        t.check(rc != 0 and 'nowhere.xml' in err, 'a missing XML is refused, named', err)
        t.check(c.veil(OUT).get('file') == base_png, 'the wallpaper stays',
                str(c.veil(OUT).get('file')))

    with t.case('words that do not fit a timed background'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_xml)} every 10s')
        t.check(not ok and 'every, order and recursive' in (err or ''),
                '`veil timed.xml every 10s` refused', err)
        # Whether dark fits is known once the XML is read, on a worker: said in the status.
        c.refused_file(OUT, f'{vt.quote(good_xml)} fill dark {vt.quote(base_png)}', good_xml,
                       ['dark names one picture'], '`veil timed.xml dark <png>`')
        t.check(c.veil(OUT).get('file') == base_png, 'the wallpaper stays',
                str(c.veil(OUT).get('file')))

# The start time is local time: an hour east of UTC (TZ for the compositor), 06:00 local is
# 05:00 UTC, so 05:00:50 UTC is 50 s into the first slot (in UTC it would be in C to A's fade).
with t.compositor(args=['--fake-clock', str(START - 3600 + 50)], env={'TZ': 'XXX-1'},
                  name='zone') as c:
    with t.case('the start time in the compositor\'s time zone'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_xml)} fill')
        t.check(ok, '`veil timed.xml fill` accepted', err)
        at_picture(c, A, 'zone-utc+1', 1)

# The state file keeps the XML, not the picture of the moment: a restore plays it again.
state_home = t.path('state-home')
state_file = os.path.join(state_home, 'veil', 'veil-tinywl.json')
ENV = {'TZ': 'UTC0', 'XDG_STATE_HOME': state_home}


def state_entry():
    try:
        with open(state_file) as f:
            return json.load(f).get('outputs', {}).get(OUT) or {}
    except (OSError, ValueError):
        return {}


with t.compositor(args=['--fake-clock', str(START + 400)], env=ENV, name='kept') as c:
    with t.case('the state file names the XML'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(good_xml)} fill transition fade 300')
        t.check(ok, '`veil timed.xml fill transition fade 300` accepted', err)
        wait_slot(c, 2, 'kept')
        e = c.check_until(lambda: (lambda e: e if (e.get('file') or {}).get('path') ==
                                   good_xml else None)(state_entry()),
                          'the state file names timed.xml', timeout=20)
        t.check(e and (e.get('transition') or {}).get('ms') == 300,
                "the command's transition is kept, not a step's fade", str(e))

restore = t.path('restore.conf')
with open(restore, 'w') as f:
    f.write(f'output {OUT} resolution {W}x{H}\n'
            f'output {OUT} veil restore {vt.quote(base_png)} fill\n')
with t.compositor(args=['--fake-clock', str(START + 50)], env=ENV, name='restored',
                  config=restore) as c:
    with t.case('restore plays the XML again'):
        c.wait_mode(OUT, W, H)
        v = wait_slot(c, 1, 'restored')
        t.check(v.get('file') == good_xml, 'the timed show of timed.xml', str(v))
        at_picture(c, A, 'restored', 1)

# A timed background whose first <static> lists <size> choices, as gnome-backgrounds and
# desktop-base write them, on three outputs of different shapes: each shows the size util/fit.c's
# rule picks for it (the aspect ratio first), named in its status, as a package's would be.
SHAPES = {'HEADLESS-1': ((640, 360), '16x9.png', (200, 60, 60)),
          'HEADLESS-2': ((1280, 360), '32x9.png', (60, 200, 60)),
          'HEADLESS-3': ((360, 640), '9x16.png', (60, 60, 200))}
SIZES = {'16x9.png': (1920, 1080), '32x9.png': (3840, 1080), '9x16.png': (1080, 1920)}
for (_, name, colour) in SHAPES.values():
    vt.make_png(os.path.join(media, name),
                np.broadcast_to(np.array(colour, np.uint8), (36, 64, 3)).copy())
sized_xml = write('sized.xml', xml_text([('static', 100, None, 'SIZES'),
                                         ('static', 100, 'b.png', 'b.png')]).replace(
    '<file>SIZES</file>', '<file>' + ''.join(
        f'<size width="{w}" height="{h}">{name}</size>' for name, (w, h) in SIZES.items()) +
    '</file>'))
with t.compositor(outputs=3, args=['--fake-clock', str(START + 50)], env={'TZ': 'UTC0'},
                  name='sized') as c:
    with t.case('<size> choices per output'):
        for cmd in ('output HEADLESS-1 resolution 640x360', 'output HEADLESS-1 pos 0 0',
                    'output HEADLESS-2 resolution 1280x360', 'output HEADLESS-2 pos 640 0',
                    'output HEADLESS-3 resolution 640x360', 'output HEADLESS-3 transform 90',
                    'output HEADLESS-3 pos 1920 0'):
            ok, err = c.msg(cmd)
            t.check(ok, cmd, err)
        c.wait_mode('HEADLESS-3', 640, 360, transform='90')
        ok, err = c.msg(f'output * veil {vt.quote(sized_xml)} fill')
        t.check(ok, '`output * veil sized.xml fill` accepted', err)
        for out, ((w, h), name, colour) in SHAPES.items():
            picture = os.path.join(media, name)
            v = c.wait_veil(out, 'shown', file=picture)
            p = v.get('package') or {}
            t.check(p.get('picture') == picture and
                    (p.get('why') or '').endswith(f'at least {w}x{h}'),
                    f'{out} ({w}x{h}): {name}, and why', json.dumps(p))
            shot = c.settled_screenshot(out)
            t.compare(shot, np.broadcast_to(np.array(colour, np.uint8), shot.shape),
                      f'sized-{out}', **EXACT)
    with t.case('the next slot: one picture for all'):
        set_clock(c, START + 150)
        for out in SHAPES:
            v = c.wait_veil(out, 'shown', file=os.path.join(media, 'b.png'))
            t.check(v.get('package') is None, f'{out}: no package', json.dumps(v))

t.finish()
