#!/usr/bin/env python3
"""
GNOME timed background XMLs as Debian ships them: every `gnome-background.xml` of desktop-base
(fetched by apt at test time, tests/integration/debfiles.py), as its themes write them: no
<starttime>, one <static> whose <file> lists <size> choices of SVG pictures named by absolute
paths. Each is read by veil's own reader (tests/tools/timed-xml-parse over module/timed_xml.c):
it must parse, start where GNOME starts one without <starttime> (the epoch), and name pictures
the package has. One (moonlight's lock screen, its pictures 1920x1200 at most) is then played
through the real command path in veil-tinywl at 1280x720, its absolute paths moved to where the
package was extracted (the only change to the file), and the screen compared with
rsvg-convert's rendering of the picture its reader took (librsvg's own tool, the independent
reference).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import debfiles  # noqa: E402
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

# Moonlight's lock screen (its largest picture 1920x1200: the larger SVGs take GStreamer's
# rsvgdec over the decoder's 30 s here), its paths moved to the extracted package.
source = os.path.join(root, LOCK, 'gnome-background.xml')
xml = os.path.join(t.media, 'moonlight-lock.xml')
with open(source) as f:
    text = f.read()
with open(xml, 'w') as f:
    f.write(text.replace(PREFIX, os.path.join(root, PREFIX.strip('/')) + '/'))
res = json.loads(subprocess.run([tool, xml], capture_output=True, text=True,
                                env={'TZ': 'UTC0'}).stdout)
picture = res['pictures'][0] if res.get('ok') else None
debfiles.extract('desktop-base', os.path.relpath(picture, root))
reference = os.path.join(t.media, 'moonlight-lock-reference.png')
# `fill`: the 16:10 picture scaled to cover 1280x720 (1280x800) and its middle shown.
subprocess.run(['rsvg-convert', '-w', str(W), '-h', '800', '-o', reference, picture],
               check=True)
expected = vt.read_image(reference)[40:40 + H]

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
            return ((seen[0].get('timed') or {}).get('state') == 'playing' and
                    seen[0].get('file') == picture)
        c.check_until(playing, 'the XML plays its picture', timeout=60)
        v = seen[0]
        t.check(not v.get('error') and (v.get('timed') or {}).get('file') == xml,
                'the status names the XML, no error', str(v.get('error')))
        t.compare(c.settled_screenshot(OUT), expected,
                  "moonlight-lock against rsvg-convert", tolerance=16, mean_tolerance=1,
                  ignore_edges=1, max_bad_fraction=0.001)

t.finish()
