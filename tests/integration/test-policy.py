#!/usr/bin/env python3
"""
Frame rate and battery policies on a real video (a 30 fps H.264 clip with B-frames, made by
ffmpeg): `veil fps 15` shows about half the frames and `fps off` all of them again (the
output's frame counter over a few seconds); `veil battery pause` pauses the video when a fake
sysfs power_supply tree (veil-tinywl's --power-supply, read every 200 ms here: --power-poll) says the mains went
offline and resumes it when it comes back, the status saying why ("paused": "battery"), and a
user's pause is told apart ("paused": "command"); `veil battery fps 10` caps the video on
battery only; the compositor's own word (veil_scene_set_on_battery, veil-tinywl's
`power_source` command) overrides sysfs from then on; malformed words are refused with a
sentence and change nothing.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import veiltest as vt  # noqa: E402

t = vt.Test('policy')
OUT = 'HEADLESS-1'
SECONDS = 3.0  # each rate measurement

video = os.path.join(t.media, 'clip-30fps.mp4')
# 4 s at 30 fps, libx264's default B-frames (veryfast: 3, with a pyramid).
vt._ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30', '-t', '4',
            '-c:v', 'libx264', '-preset', 'veryfast', '-g', '60', '-pix_fmt', 'yuv420p',
            video])
os.chmod(video, 0o644)

# A fake /sys/class/power_supply: an AC adapter, a battery, and a mouse's battery (scope
# Device), which says nothing about the machine.
supply = t.path('power_supply')
for name, attrs in {'AC': {'type': 'Mains', 'online': '1'},
                    'BAT0': {'type': 'Battery', 'status': 'Charging', 'capacity': '80'},
                    'hidpp_battery_0': {'type': 'Battery', 'scope': 'Device',
                                        'online': '1'}}.items():
    os.makedirs(os.path.join(supply, name))
    for attr, value in attrs.items():
        with open(os.path.join(supply, name, attr), 'w') as f:
            f.write(value + '\n')


def set_online(value):
    """Flips the adapter's `online` as the kernel would: the file is replaced whole."""
    tmp = os.path.join(supply, 'AC', '.online')
    with open(tmp, 'w') as f:
        f.write(f'{value}\n')
    os.rename(tmp, os.path.join(supply, 'AC', 'online'))


def counters(c):
    v = c.veil(OUT)
    src = v.get('source') or {}
    return v.get('frames', 0), src.get('frames', 0)


def rate(c, seconds=SECONDS):
    """Frames a second put on the output, over a few seconds of wall time."""
    a, t0 = counters(c)[0], time.monotonic()
    time.sleep(seconds)
    b, t1 = counters(c)[0], time.monotonic()
    return (b - a) / (t1 - t0)


def wait_still(c, what):
    last = [None]

    def pred():
        cur = counters(c)
        same = cur == last[0]
        last[0] = cur
        return same
    c.wait_until(pred, f'the frame counters to stop ({what})', interval=0.5)


args = ['--power-supply', supply, '--power-poll', '200']
with t.compositor(outputs=1, args=args) as c:
    with t.case('plays at 30 fps'):
        ok, err = c.msg(f'output {OUT} veil {vt.quote(video)} fill')
        t.check(ok, 'video accepted', err)
        c.wait_veil(OUT, 'shown', file=video)
        c.wait_until(lambda: counters(c)[0] >= 10, 'ten frames on the output')
        full = rate(c)
        t.check(24 <= full <= 33, 'about 30 frames a second uncapped', f'{full:.1f}')
        v = c.veil(OUT)
        t.check(v.get('paused') is False, 'status paused: false', str(v.get('paused')))
        t.check('fps' not in v or v.get('fps') is None, 'no cap in the status', str(v))

    with t.case('fps 15'):
        ok, err = c.msg(f'output {OUT} veil fps 15')
        t.check(ok, '`veil fps 15` accepted', err)
        time.sleep(0.5)
        capped = rate(c)
        t.check(11 <= capped <= 17, 'about half the frames at fps 15', f'{capped:.1f}')
        t.check(c.veil(OUT).get('fps') == 15, 'status fps 15', str(c.veil(OUT).get('fps')))
        t.check(c.veil(OUT).get('state') == 'shown', 'still shown')
        t.check(c.veil(OUT).get('error') is None, 'no error', str(c.veil(OUT).get('error')))

    with t.case('fps off'):
        ok, err = c.msg(f'output {OUT} veil fps off')
        t.check(ok, '`veil fps off` accepted', err)
        time.sleep(0.5)
        full = rate(c)
        t.check(24 <= full <= 33, 'about 30 frames a second again', f'{full:.1f}')
        t.check(c.veil(OUT).get('fps') is None, 'no cap in the status',
                str(c.veil(OUT).get('fps')))

    with t.case('fps * and an output of its own'):
        ok, err = c.msg(f'output {OUT} veil fps 10')
        t.check(ok, '`output HEADLESS-1 veil fps 10` accepted', err)
        ok, err = c.msg('output * veil fps 20')
        t.check(ok, '`output * veil fps 20` accepted', err)
        # `*` replaces the outputs' own caps, as `* transition` does.
        c.check_until(lambda: c.veil(OUT).get('fps') == 20, 'the output follows *: fps 20')
        ok, err = c.msg('output * veil fps off')
        t.check(ok, '`output * veil fps off` accepted', err)
        c.check_until(lambda: c.veil(OUT).get('fps') is None, 'no cap once * is off')

    with t.case('battery pause with sysfs'):
        ok, err = c.msg(f'output {OUT} veil battery pause')
        t.check(ok, '`veil battery pause` accepted', err)
        time.sleep(0.6)  # three polls: still on mains
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('paused') is False,
                'plays on while the mains are online', str(v))
        set_online(0)
        v = c.wait_veil(OUT, 'paused')
        t.check(v.get('paused') == 'battery', 'status paused: "battery"', str(v.get('paused')))
        wait_still(c, 'on battery')
        a = counters(c)
        time.sleep(1.0)
        b = counters(c)
        t.check(a == b, 'no frame decoded or shown on battery', f'{a} -> {b}')
        set_online(1)
        v = c.wait_veil(OUT, 'shown')
        t.check(v.get('paused') is False, 'status paused: false on mains', str(v.get('paused')))
        c.check_until(lambda: counters(c)[1] >= b[1] + 10, 'decoding again on mains')

    with t.case('a user pause is not the battery'):
        set_online(0)
        c.wait_veil(OUT, 'paused', paused='battery')
        ok, err = c.msg(f'output {OUT} veil pause')
        t.check(ok, '`veil pause` accepted', err)
        c.check_until(lambda: c.veil(OUT).get('paused') == 'command',
                      'status paused: "command" (the user said so)')
        set_online(1)
        time.sleep(0.6)
        v = c.veil(OUT)
        t.check(v.get('state') == 'paused' and v.get('paused') == 'command',
                'mains back: still paused by the command', str(v))
        ok, err = c.msg(f'output {OUT} veil resume')
        t.check(ok, '`veil resume` accepted', err)
        c.wait_veil(OUT, 'shown', paused=False)

    with t.case('battery fps 10'):
        ok, err = c.msg(f'output {OUT} veil battery fps 10')
        t.check(ok, '`veil battery fps 10` accepted', err)
        time.sleep(0.5)
        on_mains = rate(c)
        t.check(24 <= on_mains <= 33, 'uncapped on mains', f'{on_mains:.1f}')
        set_online(0)
        c.wait_until(lambda: c.veil(OUT).get('fps') == 10, 'the cap on battery')
        time.sleep(0.5)
        on_battery = rate(c)
        t.check(7 <= on_battery <= 12, 'about 10 frames a second on battery',
                f'{on_battery:.1f}')
        t.check(c.veil(OUT).get('state') == 'shown', 'shown, not paused')
        # The lower of the two caps wins on battery.
        ok, err = c.msg(f'output {OUT} veil fps 15')
        t.check(ok, '`veil fps 15` accepted', err)
        t.check(c.veil(OUT).get('fps') == 10, 'fps 15 and battery fps 10: 10 on battery',
                str(c.veil(OUT).get('fps')))
        set_online(1)
        c.check_until(lambda: c.veil(OUT).get('fps') == 15, 'fps 15 on mains')
        ok, err = c.msg(f'output {OUT} veil fps off')
        t.check(ok, '`veil fps off` accepted', err)

    with t.case('the compositor says it (veil_scene_set_on_battery)'):
        ok, err = c.msg(f'output {OUT} veil battery pause')
        t.check(ok, '`veil battery pause` accepted', err)
        c.wait_veil(OUT, 'shown', paused=False)
        ok, err = c.msg('power_source battery')
        t.check(ok, '`power_source battery` (veil-tinywl) accepted', err)
        v = c.wait_veil(OUT, 'paused')
        t.check(v.get('paused') == 'battery', 'paused: "battery" on the compositor\'s word',
                str(v.get('paused')))
        # sysfs says mains (online 1) all along: veil no longer reads it.
        time.sleep(0.6)
        t.check(c.veil(OUT).get('paused') == 'battery', 'sysfs is not read any more')
        ok, err = c.msg('power_source mains')
        t.check(ok, '`power_source mains` accepted', err)
        v = c.wait_veil(OUT, 'shown', paused=False)
        set_online(0)
        time.sleep(0.6)
        t.check(c.veil(OUT).get('state') == 'shown',
                'sysfs offline changes nothing once the compositor spoke',
                str(c.veil(OUT).get('state')))
        set_online(1)

    with t.case('malformed words'):
        before = c.veil(OUT)
        for words, needle in [('fps', 'fps needs'),
                              ('fps 0', "Invalid frame rate '0'"),
                              ('fps 241', "Invalid frame rate '241'"),
                              ('fps 99999999999999999999', 'Invalid frame rate'),
                              ('fps fast', "Invalid frame rate 'fast'"),
                              ('fps -5', "Invalid frame rate '-5'"),
                              ('fps 15 now', "Unexpected word 'now'"),
                              ('battery', 'battery needs'),
                              ('battery sleep', "Unknown battery action 'sleep'"),
                              ('battery fps', 'needs a frame rate'),
                              ('battery fps x', "Invalid frame rate 'x'"),
                              ('battery pause now', "Unexpected word 'now'")]:
            ok, err = c.msg(f'output {OUT} veil {words}')
            t.check(not ok and needle in (err or ''), f'`veil {words}` refused: {needle}',
                    str(err))
        after = c.veil(OUT)
        t.check(after.get('file') == before.get('file') and after.get('state') == 'shown',
                'the video stays', str(after))
        t.check(after.get('fps') is None, 'no cap came of them', str(after.get('fps')))

t.finish()
