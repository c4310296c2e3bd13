#!/usr/bin/env python3
"""
package-memory.py: the memory a KDE Plasma wallpaper package costs on three outputs of different
shapes (1920x1080, 3840x1080, 1080x1920 by transform 90), against one picture of it on the same
three outputs. PSS (/proc/PID/smaps_rollup) of veil-tinywl and its veil-decoder helpers, before
the wallpaper and once every output shows it (a helper that answered is reaped within 2.5 s: the
figure is read after 4 s). The package is Plasma's Coast (plasma-workspace-wallpapers, fetched
by apt into the test cache: its 1440x2960, 5120x2880 and 7680x2160 PNGs).

    tools/devroot python3 tests/bench/package-memory.py --compositor build/examples/veil-tinywl
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from veiltest import bench as bl  # noqa: E402
from veiltest import debfiles  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('package-memory')
COAST = 'usr/share/wallpapers/Coast'
coast = os.path.join(debfiles.extract('plasma-workspace-wallpapers', COAST), COAST)
one = os.path.join(coast, 'contents', 'images', '5120x2880.png')
OUTS = ('HEADLESS-1', 'HEADLESS-2', 'HEADLESS-3')


def pss(c):
    pids = [c.proc.pid] + list(bl.descendants(c.proc.pid))
    return sum(bl.pss_kib(p) for p in pids) / 1024.0


def run(what, words):
    with t.compositor(outputs=3) as c:
        for cmd in ('output HEADLESS-1 resolution 1920x1080',
                    'output HEADLESS-2 resolution 3840x1080', 'output HEADLESS-2 pos 1920 0',
                    'output HEADLESS-3 resolution 1920x1080', 'output HEADLESS-3 transform 90',
                    'output HEADLESS-3 pos 5760 0'):
            c.msg(cmd)
        c.wait_mode('HEADLESS-3', 1920, 1080, transform='90')
        time.sleep(1)
        before = pss(c)
        ok, err = c.msg(f'output * veil {vt.quote(words)} fill')
        t.check(ok, f'{what} accepted', err)
        files = set()
        for out in OUTS:
            files.add(c.wait_veil(out, 'shown').get('file'))
        time.sleep(4)
        after = pss(c)
        print(f'{what}: PSS {before:.1f} MiB before, {after:.1f} MiB shown '
              f'(+{after - before:.1f}); {len(files)} file(s) decoded: '
              + ', '.join(sorted(os.path.basename(f) for f in files)))
        return after - before


package = run('Coast (package)', coast)
single = run('Coast 5120x2880.png (one picture)', one)
print(f'package - one picture: {package - single:+.1f} MiB')
t.finish()
