#!/usr/bin/env python3
"""
Apple dynamic wallpapers: a HEIC with apple_desktop:solar, h24 or apr metadata (written here by
tests/tools/make-dynamic-heic: libheif's encoder, libplist's plist_to_bin, an XMP packet) played
by veil-tinywl (headless, pixman) on a clock the test moves (--fake-clock), seen with grim.

The sun is computed here with NOAA's spreadsheet equations, written out in this file (its
azimuth by NOAA's acos formula, not util/sun.c's atan2), and the image due is picked by the rule
the docs give: the entry nearest the sun's altitude, one on the other side of solar noon
(azimuth below 180: morning) counted 10 degrees farther. Apple's own Mojave and Catalina plists
(../shared/conformance/apple-plists, read with Python's plistlib) are wrapped into files whose
XMP is as macOS writes it (a byte-order mark in the xpacket header, a NUL at the end; the
attribute form and Equinox's element form) and played at known sun positions; a file with too few
images for Apple's plist, and an XMP of 10 MB or padded to 1500 KiB, are refused, and one padded
to 300 KiB (past the probe's first 256 KiB) plays; a monochrome image with a grey ICC
profile of its own (linear light) shows as the profile says; a file of 8 images in 12 x 12
tiles (1161 items, past libheif's default limit of 1000) plays. Four images at known sun
positions at four times and places; a crossing between two images found here by bisection and
checked midway through its minute's fade; an h24 table at its boundaries; light and dark
following `veil scheme`; the compositor's place (veil_scene_set_location through veil-tinywl's
`location`); files with a garbage plist and impossible values refused naming the file, the
wallpaper kept.
"""
import base64
import calendar
import json
import math
import os
import plistlib
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('dynamic')
OUT = 'HEADLESS-1'
W, H = 320, 180
# HEVC 4:4:4 at quality 100: a level or two off the colour encoded. The images are the output's
# size: nothing scaled, nothing of the renderer's edge sampling in the comparison.
NEAR = dict(tolerance=4, ignore_border=0)
EXACT = dict(tolerance=0, ignore_border=0)
FADE_S = 60  # without `transition`, a dynamic wallpaper's fade
media = t.media
tool = os.environ.get('VEIL_TEST_MAKE_DYNAMIC_HEIC')
if not tool or not os.access(tool, os.X_OK):
    # Not a skip: meson gives it whenever it builds this test.
    sys.exit('make-dynamic-heic not given (VEIL_TEST_MAKE_DYNAMIC_HEIC)')

NIGHT = (20, 30, 80)
MORNING = (230, 150, 60)
NOON = (120, 200, 240)
EVENING = (200, 70, 110)
COLOURS = [NIGHT, MORNING, NOON, EVENING]
BASE = (40, 160, 40)

# (altitude, azimuth, image): night on both sides, noon on both sides of the meridian.
SOLAR = [(-30.0, 20.0, 0), (5.0, 70.0, 1), (60.0, 170.0, 2), (60.0, 190.0, 2),
         (5.0, 290.0, 3), (-30.0, 340.0, 0)]
H24 = [(0.25, 1), (0.5, 2), (0.75, 3), (0.9, 0)]


def hexes(colours):
    return ['%02x%02x%02x' % c for c in colours]


def make(name, *args, colours=COLOURS, size=(W, H)):
    path = os.path.join(media, name)
    r = subprocess.run([tool, *args, path, str(size[0]), str(size[1]), *hexes(colours)],
                       capture_output=True)
    if r.returncode != 0:
        raise vt.Failure(f'make-dynamic-heic {name}: {r.stderr.decode(errors="replace")}')
    return path


def flat(colour):
    return np.broadcast_to(np.array(colour, np.uint8), (H, W, 3)).copy()


# --- The sun, after NOAA's solar calculator spreadsheet -------------------------------------
def sun(lat, lon, when):
    """(elevation, azimuth) in degrees, geometric, at unix time when."""
    jd = when / 86400.0 + 2440587.5
    jc = (jd - 2451545.0) / 36525.0
    l0 = (280.46646 + jc * (36000.76983 + jc * 0.0003032)) % 360.0
    m = 357.52911 + jc * (35999.05029 - 0.0001537 * jc)
    e = 0.016708634 - jc * (0.000042037 + 0.0000001267 * jc)
    rm = math.radians(m)
    c = (math.sin(rm) * (1.914602 - jc * (0.004817 + 0.000014 * jc)) +
         math.sin(2 * rm) * (0.019993 - 0.000101 * jc) + math.sin(3 * rm) * 0.000289)
    omega = math.radians(125.04 - 1934.136 * jc)
    app = l0 + c - 0.00569 - 0.00478 * math.sin(omega)
    obliq0 = 23 + (26 + (21.448 - jc * (46.815 + jc * (0.00059 - jc * 0.001813))) / 60) / 60
    obliq = obliq0 + 0.00256 * math.cos(omega)
    decl = math.asin(math.sin(math.radians(obliq)) * math.sin(math.radians(app)))
    y = math.tan(math.radians(obliq / 2)) ** 2
    rl0 = math.radians(l0)
    eqt = 4 * math.degrees(y * math.sin(2 * rl0) - 2 * e * math.sin(rm) +
                           4 * e * y * math.sin(rm) * math.cos(2 * rl0) -
                           0.5 * y * y * math.sin(4 * rl0) - 1.25 * e * e * math.sin(2 * rm))
    minutes = (when % 86400) / 60.0
    tst = (minutes + eqt + 4 * lon) % 1440.0
    ha = tst / 4 - 180 if tst / 4 >= 0 else tst / 4 + 180
    phi = math.radians(lat)
    cz = (math.sin(phi) * math.sin(decl) +
          math.cos(phi) * math.cos(decl) * math.cos(math.radians(ha)))
    zen = math.acos(max(-1.0, min(1.0, cz)))
    ca = ((math.sin(phi) * math.cos(zen)) - math.sin(decl)) / (math.cos(phi) * math.sin(zen))
    a = math.degrees(math.acos(max(-1.0, min(1.0, ca))))
    az = (a + 180) % 360 if ha > 0 else (540 - a) % 360
    return 90 - math.degrees(zen), az


def solar_pick(lat, lon, when, table=SOLAR):
    """(image, margin, elevation, azimuth): the rule of the docs, and how far the runner-up
    with another image is (degrees)."""
    elev, az = sun(lat, lon, when)

    def score(s):
        return abs(s[0] - elev) + (0 if (s[1] < 180) == (az < 180) else 10)
    ranked = sorted(table, key=score)
    best = ranked[0]
    other = [s for s in ranked if s[2] != best[2]]
    margin = score(other[0]) - score(best) if other else 90
    return best[2], margin, elev, az


def crossing(lat, lon, lo, hi):
    """The first second in [lo, hi] whose image differs from lo's."""
    first = solar_pick(lat, lon, lo)[0]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if solar_pick(lat, lon, mid)[0] == first:
            lo = mid
        else:
            hi = mid
    return hi


def set_clock(c, seconds):
    ok, err = c.msg(f'fake_clock {seconds}')
    t.check(ok, f'fake_clock {seconds}', err)


def dynamic(c):
    return (c.veil(OUT).get('timed') or {})


def shows(c, colour, label, mode=None):
    """The status plays the file (in mode), no fade runs, the screen is colour."""
    c.wait_until(lambda: dynamic(c).get('state') == 'playing' and
                 (mode is None or dynamic(c).get('dynamic') == mode) and
                 c.veil(OUT).get('transition') is None, f'{label}: playing, settled', timeout=20)
    t.compare(c.settled_screenshot(OUT), flat(colour), label, **NEAR)


def midway(c, old, new, label):
    """A fade runs and the screen is a blend of old and new at a share of 0.5 (its first step
    drawn a moment after the status says it runs: waited for, a few seconds at most)."""
    c.wait_until(lambda: (c.veil(OUT).get('transition') or {}).get('kind') == 'fade',
                 f'{label}: a fade runs', timeout=20)
    found = [None, '']

    def blended():
        found[0], found[1] = vt.blend_of(vt.grab(c, OUT), old, new, max_off=4.0)
        return found[0]
    try:
        c.wait_until(blended, f'{label}: a blend on screen', timeout=5)
    except vt.Failure:
        pass
    a = found[0]
    t.check(a is not None and abs(a - 0.5) <= 0.06,
            f'{label}: midway through the fade, a blend at {a} (0.5 expected)', found[1])


def refused(c, path, parts, label):
    """The file is refused: the error names it (and says parts); the base picture stays."""
    c.refused_file(OUT, f'{vt.quote(path)} fill location 51.48 0', path, parts, label)
    v = c.veil(OUT)
    t.check(v.get('file') == base_png and v.get('timed') is None,
            f'{label}: the wallpaper stays', f'{v.get("file")} {v.get("timed")}')
    t.compare(c.settled_screenshot(OUT), flat(BASE), label, **EXACT)


base_png = os.path.join(media, 'base.png')
vt.make_png(base_png, flat(BASE))
solar_heic = make('solar.heic', *sum((['-s', f'{a},{z},{i}'] for a, z, i in SOLAR), []),
                  '-a', '1,0')
h24_heic = make('h24.heic', *sum((['-t', f'{d},{i}'] for d, i in H24), []))
apr_heic = make('apr.heic', '-a', '2,0')
garbage = os.path.join(media, 'garbage.bin')
with open(garbage, 'wb') as f:
    f.write(b'bplist00' + bytes(range(256)) * 3)
garbage_heic = make('garbage.heic', '-k', 'solar', '-p', garbage)
bad_alt_heic = make('bad-altitude.heic', '-s', '200,90,1', '-s', '5,70,2')
bad_index_heic = make('bad-index.heic', '-s', '5,70,7')
bad_time_heic = make('bad-time.heic', '-t', '1.5,1')
big_xmp = os.path.join(media, 'big.xmp')
with open(big_xmp, 'w') as f:
    f.write('<x:xmpmeta xmlns:x="adobe:ns:meta/">' + ' ' * (10 << 20) + '</x:xmpmeta>')
big_xmp_heic = make('big-xmp.heic', '-x', big_xmp)


def padded(name, padding):
    """SOLAR's plist in an XMP packet padded with white space (as XMP writers leave room to
    edit in place) to padding bytes: a HEIC of it."""
    plist = plistlib.dumps({'si': [{'a': a, 'z': z, 'i': i} for a, z, i in SOLAR]},
                           fmt=plistlib.FMT_BINARY)
    text = ('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
            '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n'
            ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
            '  <rdf:Description rdf:about=""\n'
            '    xmlns:apple_desktop="http://ns.apple.com/namespace/1.0/"\n'
            f'    apple_desktop:solar="{base64.b64encode(plist).decode()}"/>\n'
            ' </rdf:RDF>\n</x:xmpmeta>\n' + (' ' * 99 + '\n') * (padding // 100) +
            '<?xpacket end="w"?>')
    xmp = os.path.join(media, name + '.xmp')
    with open(xmp, 'w') as f:
        f.write(text)
    return make(name + '.heic', '-x', xmp)


# Past the 256 KiB the probe on the compositor's thread reads, under veil's 1 MiB; and past it.
padded_300k_heic = padded('padded-300k', 300 << 10)
padded_1500k_heic = padded('padded-1500k', 1500 << 10)

# Apple's own plists, from ../shared/conformance (never copied into the project).
conformance = os.environ.get('VEIL_TEST_CONFORMANCE') or ''
APPLE = {}
for kind, n_images in (('mojave', 16), ('catalina', 8)):
    b64 = os.path.join(conformance, 'apple-plists', f'apple-{kind}-solar.b64')
    if not os.path.exists(b64):
        sys.exit(f'{b64} is missing: Apple\'s plists are read from ../shared/conformance')
    with open(b64) as f:
        table = plistlib.loads(base64.b64decode(f.read().strip()))
    entries = [(float(e['a']), float(e['z']), int(e['i'])) for e in table['si']]
    colours = [((37 * k + 20) % 256, (91 * k + 60) % 256, (53 * k + 200) % 256)
               for k in range(n_images)]
    APPLE[kind] = (b64, entries, colours, table.get('ap'))
# Mojave's packet in the attribute form, Catalina's in Equinox's element form: both as macOS
# frames it.
mojave_b64, MOJAVE, MOJAVE_COLOURS, _ = APPLE['mojave']
catalina_b64, CATALINA, CATALINA_COLOURS, CATALINA_AP = APPLE['catalina']
mojave_heic = make('mojave.heic', '-k', 'solar', '-b', mojave_b64, '-m',
                   colours=MOJAVE_COLOURS)
catalina_heic = make('catalina.heic', '-k', 'solar', '-b', catalina_b64, '-m', '-e',
                     colours=CATALINA_COLOURS)
# Catalina's plist names images 0 to 7: a file of 7 lacks one.
catalina7_heic = make('catalina-7.heic', '-k', 'solar', '-b', catalina_b64, '-m',
                      colours=CATALINA_COLOURS[:7])
# A colour primary and a monochrome second (grey 100 in linear light, by its own profile).
GREY = 100
grey_heic = make('grey.heic', '-a', '0,1', '-g', '1', '-m', colours=[MORNING, (GREY, 0, 0)])
grey_srgb = 12.92 * GREY / 255 if GREY / 255 <= 0.0031308 else \
    1.055 * (GREY / 255) ** (1 / 2.4) - 0.055
GREY_SHOWN = (round(255 * grey_srgb),) * 3
# Apple's files are grids of tiles, an item each: 8 images of 12 x 12 tiles make 1161 items,
# which libheif refuses by default (1000): heif-info, which keeps the defaults, says so.
grid_heic = make('grid.heic', '-a', '3,5', '-m', '-G', '12', colours=MOJAVE_COLOURS[:8],
                 size=(192, 192))
grid_info = subprocess.run(['heif-info', grid_heic], capture_output=True, text=True)

DAY = calendar.timegm((2024, 6, 21, 0, 0, 0))
LONDON = (51.48, 0.0)
# Four times and places: (label, lat, lon, unix time).
SCENES = [('london-night', *LONDON, DAY + 30 * 60),
          ('london-noon', *LONDON, DAY + 12 * 3600),
          ('sydney-morning', -33.87, 151.21, DAY + 3600),
          ('new-york-evening', 40.71, -74.01, DAY + 24 * 3600 + 30 * 60)]

with t.compositor(args=['--fake-clock', str(DAY)], env={'TZ': 'UTC0'}) as c:
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        t.check(ok, f'output {OUT} resolution {W}x{H}', err)
        c.wait_mode(OUT, W, H)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(base_png)} fill')
        t.check(ok, '`veil base.png fill` accepted', err)
        c.wait_veil(OUT, 'shown', file=base_png)

    with t.case('location words out of range'):
        for words, part in (('location 91 0', 'latitude'), ('location 0 -181', 'longitude'),
                            ('location north 0', 'latitude')):
            ok, err = c.msg(f'output {OUT} veil {vt.quote(solar_heic)} fill {words}')
            t.check(not ok and part in (err or ''), f'`{words}` refused', err)

    with t.case('hostile and impossible metadata'):
        refused(c, garbage_heic, ['apple_desktop:solar', 'property list'], 'garbage-plist')
        refused(c, bad_alt_heic, ['altitude'], 'altitude-200')
        refused(c, bad_index_heic, ['image 7'], 'image-out-of-range')
        refused(c, bad_time_heic, ['time of day'], 'time-1.5')
        refused(c, big_xmp_heic, ['XMP', '1024 KiB'], 'xmp-10-mb')
        refused(c, catalina7_heic, ['image 7', '0 to 6'], "catalina's plist, 7 images")
        refused(c, padded_1500k_heic, ['XMP', '1024 KiB'], 'xmp-padded-to-1500-kib')

    with t.case('an XMP padded to 300 KiB plays'):
        label, lat, lon, when = SCENES[1]
        image, margin, elev, az = solar_pick(lat, lon, when)
        set_clock(c, when)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(padded_300k_heic)} fill '
                        f'location {lat} {lon}')
        t.check(ok, 'padded-300k: accepted', err)
        shows(c, COLOURS[image], f'padded-300k: {label} (image {image})',
              mode=f'solar ({lat:.2f}, {lon:.2f})')
        ok, err = c.msg(f'output {OUT} veil {vt.quote(base_png)} fill')
        t.check(ok, 'base.png again', err)
        c.wait_veil(OUT, 'shown', file=base_png)

    for label, lat, lon, when in SCENES:
        with t.case(f'solar: {label}'):
            image, margin, elev, az = solar_pick(lat, lon, when)
            t.check(margin > 2, f'{label}: the sun ({elev:.1f}, {az:.1f}) is {margin:.1f} '
                    'degrees from a tie')
            set_clock(c, when)
            ok, err = c.msg(f'output {OUT} veil {vt.quote(solar_heic)} fill '
                            f'location {lat} {lon}')
            t.check(ok, f'{label}: accepted', err)
            shows(c, COLOURS[image], f'{label} (image {image})',
                  mode=f'solar ({lat:.2f}, {lon:.2f})')
            # The image by its index: in veil-decoder unless the test asks for the other.
            process = (c.veil(OUT).get('source') or {}).get('process')
            isolated = (os.environ.get('VEIL_DECODER') != 'inprocess' and
                        os.environ.get('VEIL_TEST_DECODER_PROCESS') == '1')
            want = 'veil-decoder' if isolated else 'in process'
            t.check(process == want, f'{label}: decoded {want}', str(process))

    # Apple's plists at known sun positions: London at the June solstice (sunrise about 03:43
    # UTC, noon 12:02, sunset 20:21), Sydney at the same moment (its winter) and Tromso's
    # midnight sun.
    APPLE_SCENES = [('london-dawn', *LONDON, DAY + 3 * 3600 + 50 * 60),
                    ('london-morning', *LONDON, DAY + 6 * 3600 + 30 * 60),
                    ('london-noon', *LONDON, DAY + 12 * 3600),
                    ('london-evening', *LONDON, DAY + 19 * 3600 + 40 * 60),
                    ('london-night', *LONDON, DAY + 23 * 3600 + 30 * 60),
                    ('sydney-afternoon', -33.87, 151.21, DAY + 5 * 3600),
                    ('sydney-night', -33.87, 151.21, DAY + 13 * 3600),
                    ('tromso-midnight', 69.65, 18.96, DAY + 23 * 3600)]
    for kind, path, table, colours in (('mojave', mojave_heic, MOJAVE, MOJAVE_COLOURS),
                                       ('catalina', catalina_heic, CATALINA,
                                        CATALINA_COLOURS)):
        with t.case(f"Apple's {kind} plist"):
            for label, lat, lon, when in APPLE_SCENES:
                image, margin, elev, az = solar_pick(lat, lon, when, table)
                t.check(margin > 1, f'{kind} {label}: the sun ({elev:.1f}, {az:.1f}) is '
                        f'{margin:.1f} degrees from a tie')
                # Never a night picture in daylight: Apple's entries below -6 degrees are
                # night ones.
                t.check(elev <= 0 or table[[e[2] for e in table].index(image)][0] > -6,
                        f'{kind} {label}: a daylight picture in daylight ({elev:.1f})')
                set_clock(c, when)
                ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill '
                                f'location {lat} {lon}')
                t.check(ok, f'{kind} {label}: accepted', err)
                shows(c, colours[image], f'{kind} {label}: image {image} (sun {elev:.1f}, '
                      f'{az:.1f})', mode=f'solar ({lat:.2f}, {lon:.2f})')
        if CATALINA_AP and kind == 'catalina':
            with t.case("Apple's catalina plist without a place: its ap"):
                ok, err = c.msg(f'output {OUT} veil {vt.quote(path)} fill')
                t.check(ok, 'accepted', err)
                shows(c, colours[CATALINA_AP['l']], 'catalina, no place: light',
                      mode='appearance (no location)')

    with t.case("a file of 1161 items, as Apple's are"):
        said = grid_info.stdout + grid_info.stderr
        t.check('Security limit exceeded' in said and '1161 items' in said,
                "heif-info (libheif's default limits) refuses it", said.strip()[-200:])
        ok, err = c.msg(f'output {OUT} veil {vt.quote(grid_heic)} fill')
        t.check(ok, 'accepted', err)
        shows(c, MOJAVE_COLOURS[3], 'grid file: light image 3', mode='appearance (no location)')

    with t.case('a monochrome picture with its own grey profile'):
        ok, err = c.msg(f'output {OUT} veil scheme light')
        t.check(ok, '`veil scheme light`', err)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(grey_heic)} fill')
        t.check(ok, 'accepted', err)
        shows(c, MORNING, 'light: the colour picture', mode='appearance (no location)')
        ok, err = c.msg(f'output {OUT} veil scheme dark')
        t.check(ok, '`veil scheme dark`', err)
        c.wait_until(lambda: c.veil(OUT).get('scheme') == 'dark', 'dark', timeout=10)
        shows(c, GREY_SHOWN, f'dark: grey {GREY} in linear light as sRGB {GREY_SHOWN[0]}')
        ok, err = c.msg(f'output {OUT} veil scheme light')
        t.check(ok, '`veil scheme light`', err)

    with t.case('solar: a crossing midway'):
        lat, lon = LONDON
        # Morning to noon: somewhere between 05:00 and 11:00 UTC.
        first = solar_pick(lat, lon, DAY + 5 * 3600)[0]
        at = crossing(lat, lon, DAY + 5 * 3600, DAY + 11 * 3600)
        nxt = solar_pick(lat, lon, at)[0]
        t.check(first != nxt, f'a change from image {first} to {nxt} at {at - DAY} s')
        set_clock(c, at - 3 * FADE_S)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(solar_heic)} fill location {lat} {lon}')
        t.check(ok, 'accepted', err)
        shows(c, COLOURS[first], 'before the crossing')
        set_clock(c, at - FADE_S // 2)
        midway(c, COLOURS[first], COLOURS[nxt], 'the crossing')
        set_clock(c, at + 5)
        shows(c, COLOURS[nxt], 'after the crossing')

    with t.case('h24 at its boundaries'):
        set_clock(c, DAY + 3600)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(h24_heic)} fill')
        t.check(ok, 'h24 accepted', err)
        # Before 0.25 of the day: the last entry's image, from the day before.
        shows(c, COLOURS[0], 'h24 01:00', mode='h24')
        for d, image in H24:
            boundary = DAY + round(d * 86400)
            prev = [i for dd, i in H24 if dd < d]
            before = prev[-1] if prev else H24[-1][1]
            set_clock(c, boundary - FADE_S - 2)
            shows(c, COLOURS[before], f'h24 {d}: before the fade')
            set_clock(c, boundary - FADE_S // 2)
            midway(c, COLOURS[before], COLOURS[image], f'h24 {d}')
            set_clock(c, boundary)
            shows(c, COLOURS[image], f'h24 {d}: at the boundary')

    with t.case('appearance without a location'):
        set_clock(c, DAY + 12 * 3600)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(apr_heic)} fill')
        t.check(ok, 'apr accepted', err)
        shows(c, COLOURS[2], 'light', mode='appearance (no location)')
        ok, err = c.msg(f'output {OUT} veil scheme dark')
        t.check(ok, '`veil scheme dark`', err)
        c.wait_until(lambda: c.veil(OUT).get('scheme') == 'dark', 'dark', timeout=10)
        shows(c, COLOURS[0], 'dark')
        ok, err = c.msg(f'output {OUT} veil scheme light')
        t.check(ok, '`veil scheme light`', err)
        shows(c, COLOURS[2], 'light again')
        # veilctl hands over a descriptor: veil finds the file's path and plays it the same.
        ok, err = c.msg(f'output {OUT} veil #000000 solid_color')
        t.check(ok, 'a colour between', err)
        rc, err = c.veilctl('-o', OUT, 'set', apr_heic, 'fill')
        t.check(rc == 0, '`veilctl set apr.heic fill` exits 0', err)
        shows(c, COLOURS[2], 'through veilctl: light', mode='appearance (no location)')
        t.check(dynamic(c).get('file') == apr_heic, 'the status names the file', str(dynamic(c)))
        # A solar file without a place: its appearance (light: image 1).
        ok, err = c.msg(f'output {OUT} veil {vt.quote(solar_heic)} fill')
        t.check(ok, 'solar without a place accepted', err)
        shows(c, COLOURS[1], 'solar file, no place: light', mode='appearance (no location)')

    with t.case("the compositor's place"):
        ok, err = c.msg('location 51.48 0')
        t.check(ok, '`location 51.48 0` (veil_scene_set_location)', err)
        when = DAY + 30 * 60
        set_clock(c, when)
        image = solar_pick(*LONDON, when)[0]
        shows(c, COLOURS[image], "solar at the compositor's place", mode='solar (51.48, 0.00)')

# The state file keeps the HEIC and its location; a restore plays it again.
state_home = t.path('state-home')
state_file = os.path.join(state_home, 'veil', 'veil-tinywl.json')
ENV = {'TZ': 'UTC0', 'XDG_STATE_HOME': state_home}
when = DAY + 12 * 3600
with t.compositor(args=['--fake-clock', str(when)], env=ENV, name='kept') as c:
    with t.case('the state file keeps the file and its location'):
        ok, err = c.msg(f'output {OUT} resolution {W}x{H}')
        c.wait_mode(OUT, W, H)
        ok, err = c.msg(f'output {OUT} veil {vt.quote(solar_heic)} fill location 51.48 0')
        t.check(ok, 'accepted', err)
        shows(c, COLOURS[solar_pick(*LONDON, when)[0]], 'kept')

        def entry():
            try:
                with open(state_file) as f:
                    e = json.load(f).get('outputs', {}).get(OUT) or {}
            except (OSError, ValueError):
                return None
            return e if (e.get('file') or {}).get('path') == solar_heic else None
        e = c.check_until(entry, 'the state file names solar.heic', timeout=20)
        t.check(e and e.get('location') == [51.48, 0.0] and 'dark' not in e,
                'its location, and no dark picture of its own', str(e))
        t.check(c.veil(OUT).get('location') == [51.48, 0.0], "the status's location",
                str(c.veil(OUT).get('location')))

restore = t.path('restore.conf')
with open(restore, 'w') as f:
    f.write(f'output {OUT} resolution {W}x{H}\n'
            f'output {OUT} veil restore {vt.quote(base_png)} fill\n')
when = DAY + 30 * 60
with t.compositor(args=['--fake-clock', str(when)], env=ENV, name='restored',
                  config=restore) as c:
    with t.case('restore plays it again at its place'):
        c.wait_mode(OUT, W, H)
        shows(c, COLOURS[solar_pick(*LONDON, when)[0]], 'restored', mode='solar (51.48, 0.00)')

t.finish()
