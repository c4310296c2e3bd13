#!/usr/bin/env python3
"""
A directory of pictures by the hour (module/show/hourly.c, the show kind that is one file):
`output <name> veil <directory>` on veil-tinywl (headless, pixman), driven by swaymsg, with the
wall clock the test moves (veil-tinywl --fake-clock and its `fake_clock` command), seen with
grim.

The directory holds 24 flat-colour PNGs, 00.png to 23.png, each its own colour. The compositor
runs in UTC (TZ=UTC0), the times are made here with calendar.timegm. The hour's picture shows
exactly; the change on the hour comes from veil's timer (not before its time), a clock moved
to another hour or across midnight shows that hour's. A directory short of an hour, or given
slideshow words, is a slideshow's; `dark` is refused; a directory whose hour due is not a
picture is refused naming that file, and the wallpaper stays. The state file keeps the
directory and the command's words: a compositor started later at another hour restores the
show, and shows that hour's picture.
"""
import calendar
import json
import os
import shutil
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('hourly')
OUT = 'HEADLESS-1'
W, H = 320, 180
EXACT = dict(tolerance=0, ignore_border=0)
media = t.media
BASE = (200, 40, 40)
DAY = calendar.timegm((2024, 3, 1, 0, 0, 0))
state_home = t.path('state-home')
state_file = os.path.join(state_home, 'veil', 'veil-tinywl.json')
ENV = {'TZ': 'UTC0', 'XDG_STATE_HOME': state_home}


def colour(hour):
    return ((37 * hour + 40) % 256, (91 * hour + 20) % 256, (53 * hour + 10) % 256)


def flat(c):
    return np.broadcast_to(np.array(c, np.uint8), (H, W, 3)).copy()


def hours_dir(name, hours=range(24)):
    d = os.path.join(media, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for h in hours:
        vt.make_png(os.path.join(d, f'{h:02d}.png'), flat(colour(h)))
    return d


base_png = os.path.join(media, 'base.png')
vt.make_png(base_png, flat(BASE))
hours = hours_dir('hours')
# A hidden file is not a picture of the show, and does not make the directory a slideshow's.
open(os.path.join(hours, '.directory'), 'w').write('[Desktop Entry]\n')
short = hours_dir('short', range(23))
broken = hours_dir('broken')
open(os.path.join(broken, '13.png'), 'w').write('not a picture\n')


def hourly(c):
    return c.veil(OUT).get('hourly')


def set_clock(c, seconds):
    ok, err = c.msg(f'fake_clock {seconds}')
    t.check(ok, f'fake_clock at {time.strftime("%H:%M:%S", time.gmtime(seconds))}', err)


def at_hour(c, hour, label, timeout=20):
    """The status's hourly show at hour, its picture shown exactly."""
    want = os.path.join(hours, f'{hour:02d}.png')
    v = c.check_until(lambda: (lambda h: h if h and h.get('hour') == hour else None)(hourly(c)),
                      f'{label}: the status says hour {hour}', timeout=timeout)
    c.wait_veil(OUT, 'shown', file=want)
    t.compare(c.settled_screenshot(OUT), flat(colour(hour)), label, **EXACT)
    return v


def shows_base(c, label):
    v = c.veil(OUT)
    t.check(v.get('file') == base_png and v.get('hourly') is None,
            f'{label}: the wallpaper stays, no hourly show', f'{v.get("file")} {v.get("hourly")}')
    t.compare(c.settled_screenshot(OUT), flat(BASE), label, **EXACT)


def remembered():
    try:
        with open(state_file) as f:
            return ((json.load(f).get('outputs') or {}).get(OUT)) or None
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def set_base(c):
    ok, err = c.msg(f'output {OUT} veil {vt.quote(base_png)} fill')
    t.check(ok, '`veil base.png fill` accepted', err)
    c.wait_veil(OUT, 'shown', file=base_png)


with t.compositor(args=['--fake-clock', str(DAY + 6 * 3600 + 1800)], env=ENV) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        set_base(c)

    with t.case('the hour due'):
        set_clock(c, DAY + 6 * 3600 + 1800)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(hours)} fill')
        t.check(ok, '`veil <hours> fill` accepted', err)
        v = at_hour(c, 6, '06:30')
        t.check(v is not None and v.get('directory') == hours and
                abs(v.get('next_change_ms', 0) - 1800 * 1000) < 5000,
                'the status names the directory, the next change half an hour away', str(v))
        t.check(c.veil(OUT).get('slideshow') is None, 'no slideshow of it',
                str(c.veil(OUT).get('slideshow')))

    with t.case('the change on the hour, from the timer'):
        set_clock(c, DAY + 7 * 3600 - 2)
        set_at = time.monotonic()
        at_hour(c, 6, '06:59:58')
        at_hour(c, 7, '07:00 from the timer')
        waited = time.monotonic() - set_at
        t.check(waited >= 1.5, f'not before its time ({waited:.2f} s after 2 s to go)')

    with t.case('the clock moved, across midnight'):
        set_clock(c, DAY + 23 * 3600 + 600)
        at_hour(c, 23, '23:10')
        set_clock(c, DAY + 24 * 3600 + 5)
        at_hour(c, 0, '00:00:05 the next day')
        set_clock(c, DAY + 12 * 3600 + 59 * 60)
        at_hour(c, 12, '12:59 back in the day')

    with t.case('another wallpaper ends the show'):
        set_base(c)
        t.check(hourly(c) is None, 'no hourly show in the status', str(hourly(c)))
        set_clock(c, DAY + 13 * 3600)
        time.sleep(1)
        shows_base(c, 'base after the hour')

    for label, words, first in (
            ('a directory short of an hour is a slideshow', f'{vt.quote(short)} fill', short),
            ('slideshow words make a slideshow of the hours',
             f'{vt.quote(hours)} fill every 1h order name', hours)):
        with t.case(label):
            ok, err = c.msg(f'output {OUT} veil {words}')
            t.check(ok, f'`veil {os.path.basename(first)} ...` accepted', err)
            s = c.check_until(lambda: c.veil(OUT).get('slideshow'), 'a slideshow of it')
            t.check(s is not None and hourly(c) is None, 'a slideshow, no hourly show',
                    f'{s} {hourly(c)}')
            c.wait_veil(OUT, 'shown', file=os.path.join(first, '00.png'))
            set_base(c)

    with t.case('dark is refused'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(hours)} fill dark {vt.quote(base_png)}')
        t.check(not ok and hours in (err or '') and 'dark' in (err or ''),
                'refused, naming the directory and dark', err)
        shows_base(c, 'after dark')

    with t.case('the hour due is not a picture'):
        set_clock(c, DAY + 13 * 3600 + 60)
        bad = os.path.join(broken, '13.png')
        c.refused_file(OUT, f'{vt.quote(broken)} fill', bad, [], 'broken-13')
        t.check(c.responsive(), 'the compositor still answers')
        shows_base(c, 'after 13.png')

    with t.case('the state file keeps the directory and the words'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(hours)} fit transition wipe 300')
        t.check(ok, '`veil <hours> fit transition wipe 300` accepted', err)
        at_hour(c, 13, '13:01 fit')
        e = c.check_until(lambda: (lambda e: e if e and (e.get('file') or {}).get('path') ==
                                   hours else None)(remembered()),
                          'the state file names the directory')
        t.check(e is not None and e.get('mode') == 'fit' and
                (e.get('transition') or {}).get('kind') == 'wipe' and 'hourly' not in e,
                'with its mode and transition', str(e))
        c.stop()

RESTORE = f'output {OUT} veil restore {vt.quote(base_png)} fill'
conf = t.path('restore.conf')
with open(conf, 'w') as f:
    f.write(f'output {OUT} resolution {W}x{H}\n{RESTORE}\n')
with t.compositor(args=['--fake-clock', str(DAY + 18 * 3600 + 1200)], env=ENV,
                  config=conf) as c:
    with t.case('restored at another hour'):
        c.wait_mode(OUT, W, H)
        at_hour(c, 18, 'restored at 18:20')
        v = c.veil(OUT)
        t.check(v.get('restored') is True and v.get('mode') == 'fit',
                'the status says restored, in its mode', f'{v.get("restored")} {v.get("mode")}')
