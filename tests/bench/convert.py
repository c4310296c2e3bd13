#!/usr/bin/env python3
"""
convert.py: what turning decoded video into a pixman format costs, choice by choice.

    tools/devroot python3 tests/bench/convert.py                # 1080p30 and 1080p60, 3 rounds
    tools/devroot python3 tests/bench/convert.py --rates 30 --rounds 5 --duration 20
    tools/devroot python3 tests/bench/convert.py --per-frame    # the conversion alone, CPU
                                                                # time per frame

On the software path (pixman) veil's pipeline is decodebin ! videoconvert ! appsink with BGRx
(or XRGB8888) caps; what veil adds to a plain decode is mostly that conversion. This tool runs
the same decode with each way of converting, as gst-launch-1.0 pipelines ending in
`fakesink sync=true` (paced like veil's appsink, nothing displayed), and measures each process's
CPU from /proc over --duration seconds after --warmup:

  floor        decodebin ! fakesink                      (no conversion: the floor)
  veil         videoconvert n-threads=2 ! BGRx           (what veil builds today)
  threads-1    videoconvert n-threads=1 ! BGRx           (no pool thread)
  queue        queue ! videoconvert n-threads=1 ! BGRx   (the conversion on a thread of its own)
  chroma-none  videoconvert n-threads=2 chroma-mode=none ! BGRx  (chroma not filtered:
               nearest-neighbour chroma; a visible change on sharp colour edges)
  rgb16        videoconvert n-threads=2 ! RGB16          (pixman's r5g6b5: half the bytes to
               write, 64 levels of green and 32 of red and blue: banding on gradients)

With --per-frame the conversion is measured alone instead: the clip's first --frames frames,
decoded once to a raw I420 file (kept in the clips directory), go through each choice as fast
as it runs (`filesrc ! rawvideoparse ! CHOICE ! fakesink sync=false`), and the CPU time of the
whole gst-launch-1.0 process (getrusage of the child: user and system, every thread) is
divided by the frames; the floor is the same without a conversion, and is subtracted. This is
work per frame, not a share of a core over time: it does not depend on what else the machine
runs as much, and a difference of a tenth of a millisecond shows.

Runs are interleaved in rounds (every choice once per round, in a rotated order: a drift of the
machine lands on each alike) after waiting for the machine to be quiet; the report gives each
choice's median CPU in % of one core, its rounds, and its difference from the floor and from
veil's, with the load average. The clips are clips.py's h264-1080p30.mp4 and h264-1080p60.mp4
(made in BUILD/bench/clips when missing), played from a copy repeated without re-encoding that
outlasts a run. Results in <out>/report.txt and results.json.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402
import clips

CHOICES = {
    'floor': '',
    'veil': 'videoconvert n-threads=2 ! video/x-raw,format=BGRx',
    'threads-1': 'videoconvert n-threads=1 ! video/x-raw,format=BGRx',
    'queue': 'queue max-size-buffers=2 ! videoconvert n-threads=1 ! video/x-raw,format=BGRx',
    'chroma-none': 'videoconvert n-threads=2 chroma-mode=none ! video/x-raw,format=BGRx',
    'rgb16': 'videoconvert n-threads=2 ! video/x-raw,format=RGB16',
}
CLIPS = {30: 'h264-1080p30.mp4', 60: 'h264-1080p60.mp4'}


def pipeline(path, convert):
    middle = f'{convert} ! ' if convert else ''
    return (f'filesrc location={bl.quote(path)} ! decodebin ! {middle}'
            'fakesink sync=true qos=false')


def raw_copy(src, frames):
    """The clip's first frames decoded once to I420, for --per-frame."""
    dst = os.path.join(os.path.dirname(src), f'raw-{frames}f-{os.path.basename(src)}.i420')
    if not os.path.exists(dst):
        subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y', '-i', src, '-frames:v',
                        str(frames), '-pix_fmt', 'yuv420p', '-f', 'rawvideo', dst + '.part'],
                       check=True)
        os.replace(dst + '.part', dst)
    return dst


def per_frame(path, convert, frames, log_path):
    """CPU ms a frame of a gst-launch-1.0 run over the raw file, as fast as it goes."""
    middle = f'{convert} ! ' if convert else ''
    argv = ['gst-launch-1.0', 'filesrc', f'location={path}', 'blocksize=3110400', '!',
            'rawvideoparse', 'width=1920', 'height=1080', 'format=i420', 'framerate=30/1',
            '!'] + middle.split() + ['fakesink', 'sync=false']
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log_path, 'w') as log:
        subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, env=bl.base_env(),
                       check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return 1000.0 * cpu / frames


def interleave(cfg, choices, measure_one, label):
    """
    Every choice once a round, in an order rotated each round, after waiting for a quiet
    machine: {choice: [{'value': measure_one(choice, round), 'busy_before': %}, ...]}.
    """
    per = {c: [] for c in choices}
    for rnd in range(cfg.rounds):
        order = choices[rnd % len(choices):] + choices[:rnd % len(choices)]
        for c in order:
            _, busy = bl.wait_quiet(cfg.quiet_wait)
            value = measure_one(c, rnd)
            per[c].append({'value': value, 'busy_before': busy})
            bl.say(f'  {label}round {rnd + 1}: {c:12s} {value:7.3f} '
                   f'(others {busy:.0f} % of a core before)')
    return per


def load_line(before, after):
    return ('Load average before: ' + ' '.join(f'{v:.2f}' for v in before) + '; after: ' +
            ' '.join(f'{v:.2f}' for v in after))


def loaded_line(per, choices):
    """The LOADED warning for the choices with a run after others used a quarter of a core."""
    loaded = [c for c in choices if any(r['busy_before'] > 25 for r in per[c])]
    return (f'LOADED: other programs used over 25 % of a core before a run of: '
            f'{", ".join(loaded)}' if loaded else None)


def finish(cfg, lines, results):
    """Writes results.json and report.txt, prints the report."""
    with open(os.path.join(cfg.out, 'results.json'), 'w') as f:
        json.dump(results, f, indent=1)
    report = '\n'.join(line for line in lines if line is not None) + '\n'
    with open(os.path.join(cfg.out, 'report.txt'), 'w') as f:
        f.write(report)
    print(report, end='')
    print(f'convert: results in {cfg.out}')
    return 0


def run_per_frame(cfg, choices, clip_dir):
    lines = ['veil convert.py --per-frame: CPU time per 1920x1080 frame, I420 from a raw file, '
             f'{cfg.frames} frames a run, {cfg.rounds} rounds interleaved']
    lines += bl.machine_lines()
    load_before = bl.loadavg()
    path = raw_copy(os.path.join(clip_dir, CLIPS[30]), cfg.frames)
    per = interleave(cfg, choices, lambda c, rnd: per_frame(
        path, CHOICES[c], cfg.frames, os.path.join(cfg.out, f'frame-{c}-{rnd}.log')),
        'ms a frame, ')
    load_after = bl.loadavg()
    lines.append(load_line(load_before, load_after))
    med = {c: bl.median([r['value'] for r in per[c]]) for c in choices}
    lines.append('')
    lines.append('| choice | CPU a frame, median | rounds | conversion (− floor) | '
                 'at 30 fps | at 60 fps |')
    lines.append('|---|---|---|---|---|---|')
    for c in choices:
        rounds = ', '.join(f'{r["value"]:.3f}' for r in per[c])
        conv = med[c] - med['floor'] if 'floor' in med else None
        lines.append(f'| {c} | {med[c]:.3f} ms | {rounds} | '
                     + (f'{conv:+.3f} ms | {conv * 3:.2f} % | {conv * 6:.2f} % |'
                        if conv is not None else '– | – | – |'))
    lines.append(loaded_line(per, choices))
    return finish(cfg, lines, {'per_frame': per, 'load_before': load_before,
                               'load_after': load_after})


def cpu_ticks(pid):
    _, ut, st, _, _ = bl.proc_stat(pid)
    return ut + st


def measure(path, convert, cfg, log_path):
    """One run: the process's CPU in % of one core over cfg.duration after cfg.warmup."""
    client = bl.GstClient(pipeline(path, convert), bl.base_env(), log_path).start()
    try:
        time.sleep(cfg.warmup)
        client.alive()
        t0, c0 = time.monotonic(), cpu_ticks(client.pid)
        time.sleep(cfg.duration)
        client.alive()
        t1, c1 = time.monotonic(), cpu_ticks(client.pid)
    finally:
        client.stop()
    return 100.0 * (c1 - c0) / bl.CLK_TCK / (t1 - t0)


def run(cfg):
    bl.need('gst-launch-1.0', 'ffmpeg', 'ffprobe')
    cfg.build = os.path.abspath(cfg.build)
    clip_dir = cfg.clips or os.path.join(cfg.build, 'bench', 'clips')
    names = [CLIPS[r] for r in ([30] if cfg.per_frame else cfg.rates)]
    clips.ensure(clip_dir, names, quiet=True)
    cfg.out = cfg.out or os.path.join(cfg.build, 'bench', f'convert-{bl.stamp()}')
    os.makedirs(cfg.out, exist_ok=True)
    choices = [c for c in cfg.choices.split(',') if c]
    for c in choices:
        if c not in CHOICES:
            raise bl.BenchError(f'unknown choice {c} (known: {", ".join(CHOICES)})')

    if cfg.per_frame:
        return run_per_frame(cfg, choices, clip_dir)
    load_before = bl.loadavg()
    results = {'choices': {}, 'load_before': load_before}
    for rate in cfg.rates:
        path = bl.long_copy(os.path.join(clip_dir, CLIPS[rate]), cfg.warmup + cfg.duration + 5,
                            clip_dir)
        results['choices'][str(rate)] = interleave(cfg, choices, lambda c, rnd: measure(
            path, CHOICES[c], cfg, os.path.join(cfg.out, f'{rate}-{c}-{rnd}.log')),
            f'% of a core, {rate} fps ')
    results['load_after'] = bl.loadavg()

    lines = ['veil convert.py: decode + conversion, gst-launch-1.0 to fakesink sync=true, '
             f'{cfg.rounds} rounds interleaved, {cfg.duration:.0f} s sampled after '
             f'{cfg.warmup:.0f} s']
    lines += bl.machine_lines()
    lines.append(load_line(load_before, results['load_after']))
    for rate in cfg.rates:
        per = results['choices'][str(rate)]
        med = {c: bl.median([r['value'] for r in per[c]]) for c in choices}
        lines.append('')
        lines.append(f'{CLIPS[rate]}: CPU in % of one core, median (rounds)')
        lines.append('| choice | CPU | rounds | − floor | − veil |')
        lines.append('|---|---|---|---|---|')
        for c in choices:
            rounds = ', '.join(f'{r["value"]:.2f}' for r in per[c])
            floor = f'{med[c] - med["floor"]:+.2f}' if 'floor' in med else '–'
            veil = f'{med[c] - med["veil"]:+.2f}' if 'veil' in med else '–'
            lines.append(f'| {c} | {med[c]:.2f} % | {rounds} | {floor} | {veil} |')
        lines.append(loaded_line(per, choices))
    return finish(cfg, lines, results)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip(),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__)
    p.add_argument('--rates', type=lambda s: [int(v) for v in s.split(',')], default=[30, 60],
                   help='clips by frame rate: 30, 60 or 30,60 (default)')
    p.add_argument('--choices', default=','.join(CHOICES))
    p.add_argument('--per-frame', action='store_true',
                   help='the conversion alone: CPU time a frame (see above)')
    p.add_argument('--frames', type=int, default=150, help='--per-frame: frames a run (150)')
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--warmup', type=float, default=5.0)
    p.add_argument('--duration', type=float, default=30.0)
    p.add_argument('--quiet-wait', type=float, default=60.0)
    p.add_argument('--build', default=bl.default_build())
    p.add_argument('--clips', help='reference clips (default BUILD/bench/clips)')
    p.add_argument('--out')
    return bl.run_tool('convert', run, p.parse_args())


if __name__ == '__main__':
    sys.exit(main())
