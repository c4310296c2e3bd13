#!/usr/bin/env python3
"""
GNOME timed background XMLs as Debian ships them: every `gnome-background.xml` of desktop-base
(fetched by apt at test time, tests/veiltest/debfiles.py), as its themes write them: no
<starttime>, one <static> whose <file> lists <size> choices of SVG pictures named by absolute
paths. Each is read by veil's own reader (tests/tools/timed-xml-parse over module/show/timed_xml.c):
it must parse, start where GNOME starts one without <starttime> (the epoch), and name pictures
the package has. One (moonlight's lock screen, four sizes up to 1920x1200) is then shown
through the real command path in veil-tinywl at 1280x720, its absolute paths moved to where the
package was extracted (the only change to the file): veil takes it for a package of those sizes,
the status must name the size GNOME's rule picks for the output (worked out here), and the
screen is compared with rsvg-convert's rendering of that picture (librsvg's own tool, the
independent reference).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from veiltest import debfiles  # noqa: E402
import veiltest as vt  # noqa: E402

t = vt.Test('timed-debian')
OUT = 'HEADLESS-1'
W, H = 1280, 720
PREFIX = '/usr/share/desktop-base/'
tool = os.environ.get('VEIL_TEST_TIMED_XML_PARSE')
if not tool or not os.access(tool, os.X_OK):
    # Not a skip: meson gives it whenever it builds this test.
    sys.exit('timed-xml-parse not given (VEIL_TEST_TIMED_XML_PARSE)')

# Every gnome-background.xml, and the pictures of the theme played.
LOCK = PREFIX.strip('/') + '/moonlight-theme/lockscreen'
members = [m for m in debfiles.members('desktop-base')
           if m.endswith('/gnome-background.xml') and m.startswith(PREFIX.strip('/'))]
root = debfiles.extract('desktop-base', *members)
xmls = sorted(os.path.join(root, m) for m in members)


all_members = set(debfiles.members('desktop-base'))


with t.case("desktop-base's XMLs through veil's reader"):
    t.check(len(xmls) >= 10, f"desktop-base has {len(xmls)} gnome-background.xml files")
    r = subprocess.run([tool, *xmls], capture_output=True, text=True, env={'TZ': 'UTC0'})
    results = [json.loads(line) for line in r.stdout.splitlines()]
    t.check(len(results) == len(xmls), f'{len(results)} results for {len(xmls)} files',
            r.stderr)
    parsed = 0
    for res in results:
        name = os.path.relpath(res['file'], root)
        if not t.check(res['ok'], f'{name}: parsed', res.get('error', '')):
            continue
        parsed += 1
        t.check(res['start'] == 0, f'{name}: no <starttime>: starts at the epoch, as GNOME',
                str(res['start']))
        missing = [p for p in res['pictures'] if p.lstrip('/') not in all_members]
        t.check(res['slots'] >= 1 and not missing,
                f'{name}: {res["slots"]} slots, every picture in the package', str(missing))
    print(f'desktop-base: {parsed} of {len(xmls)} gnome-background.xml parsed')

# Moonlight's lock screen: one <static> whose <file> lists four sizes and no <starttime>, which
# veil shows as a package of those sizes (module/package: each output the size that fits it).
# The choice is worked out here by GNOME's rule as the docs give it: among the pictures at least
# as large as the output, the aspect ratio nearest, then the width nearest.
source = os.path.join(root, LOCK, 'gnome-background.xml')
xml = os.path.join(t.media, 'moonlight-lock.xml')
with open(source) as f:
    text = f.read()
with open(xml, 'w') as f:
    f.write(text.replace(PREFIX, os.path.join(root, PREFIX.strip('/')) + '/'))
sizes = [(int(w), int(h), path) for w, h, path in
         re.findall(r'<size width="(\d+)" height="(\d+)">([^<]+)</size>', text)]
t.check(len(sizes) == 4, f"moonlight's lock screen lists {len(sizes)} sizes")
debfiles.extract('desktop-base', *(path.lstrip('/') for _, _, path in sizes))
covering = [s for s in sizes if s[0] >= W and s[1] >= H] or sizes
best = min(covering, key=lambda s: (abs(s[0] / s[1] - W / H), abs(s[0] - W)))
picture = os.path.join(root, best[2].lstrip('/'))
reference = os.path.join(t.media, 'moonlight-lock-reference.png')
# `fill`: the picture scaled to cover 1280x720 and its middle shown.
scaled_h = round(W * best[1] / best[0])
subprocess.run(['rsvg-convert', '-w', str(W), '-h', str(scaled_h), '-o', reference, picture],
               check=True)
top = (scaled_h - H) // 2
expected = vt.read_image(reference)[top:top + H]

with t.compositor(env={'TZ': 'UTC0'}) as c:
    with t.case("moonlight-lock's gnome-background.xml played"):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(xml)} fill')
        t.check(ok, '`veil moonlight-lock.xml fill` accepted', err)
        seen = [None]

        def playing():
            seen[0] = c.veil(OUT)
            return ((seen[0].get('package') or {}).get('picture') == picture and
                    seen[0].get('file') == picture)
        c.check_until(playing, f'the XML shows {os.path.basename(picture)}, the size that '
                      f'fits {W}x{H}', timeout=120)
        v = seen[0]
        t.check(not v.get('error'), 'no error', str(v.get('error')))
        t.compare(c.settled_screenshot(OUT), expected,
                  "moonlight-lock against rsvg-convert", tolerance=16, mean_tolerance=1,
                  ignore_edges=1, max_bad_fraction=0.001)

t.finish()
