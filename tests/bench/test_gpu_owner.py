#!/usr/bin/env python3
"""
The GPU owner's bench (tests/bench/gpu-owner) run here, where there is no GPU: headless, on
pixman and on the importing renderer, briefly, with a small H.264 clip made by ffmpeg. Its
report must be complete (every field docs/measurements.md asks people to send back, none empty)
and say what is true of each path: pixman gets BGRx made by videoconvert and no dmabuf; the
importing renderer gets the decoder's I420 as dmabufs from veil's pool, no videoconvert, no copy.
Both in the compositor's process (VEIL_DECODER_VIDEO=inprocess): the path a GPU renderer takes,
which pixman's report is there to compare with (on pixman videos play in veil-decoder by
default: tests/bench/video-isolate.py measures that). Exits 77 (skipped) without veil-tinywl or ffmpeg.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

# Every field of report.json, as docs/measurements.md ("Measure on your machine") lists them.
REQUIRED = ['where', 'backend', 'renderer', 'drm_node', 'gpus', 'hardware_decoders', 'udmabuf',
            'outputs', 'clip', 'decoder', 'hardware', 'format', 'copies', 'elements',
            'render_path', 'cpu_pct', 'cpu_median_pct', 'cpu_main_pct', 'cpu_decode_side_pct',
            'threads', 'wakeups_per_s', 'wakeups_per_frame', 'frames_per_s', 'decoded_per_s',
            'dropped', 'clip_fps', 'dmabufs_max', 'dmabuf_mib_max', 'rss_mib', 'load_before',
            'load_after', 'others_pct', 'loaded', 'seconds', 'build', 'machine', 'date']
# The lines of report.txt, by their label.
LABELS = ['GPUs:', 'Renderer:', 'Clip:', 'Decoder:', 'Elements:', 'Render path:', 'CPU (',
          'Threads (%):', 'Wake-ups of the main thread:', 'Frames:', 'Memory:',
          'Load average before:']

passed = failed = 0


def check(ok, what, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print(f'ok: {what}')
    else:
        failed += 1
        print(f'FAIL: {what}' + (f': {detail}' if detail else ''))
    return ok


def run_bench(args, renderer, clip):
    out = os.path.join(args.out, renderer)
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, args.gpu_owner, clip, '--where', 'headless', '--renderer', renderer,
            '--size', '640x360', '--warmup', '1', '--duration', '4', '--probe-seconds', '1',
            '--build', args.build, '--out', out]
    if args.compositor:
        argv += ['--compositor', args.compositor]
    print('$ ' + ' '.join(argv))
    env = dict(os.environ, VEIL_DECODER_VIDEO='inprocess')
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=240, env=env)
    print(proc.stdout + proc.stderr)
    check(proc.returncode == 0, f'{renderer}: gpu-owner exits 0', str(proc.returncode))
    report, text = {}, ''
    try:
        with open(os.path.join(out, 'report.json')) as f:
            report = json.load(f)
        with open(os.path.join(out, 'report.txt')) as f:
            text = f.read()
    except (OSError, ValueError) as e:
        check(False, f'{renderer}: report.json and report.txt are written', str(e))
    return report, text


def check_complete(renderer, report, text):
    missing = [k for k in REQUIRED if k not in report]
    empty = [k for k in REQUIRED if k in report and report[k] is None]
    check(not missing, f'{renderer}: report.json has every field', f'missing {missing}')
    check(not empty, f'{renderer}: no field is empty', f'empty {empty}')
    absent = [label for label in LABELS if not any(line.startswith(label)
                                                   for line in text.splitlines())]
    check(not absent, f'{renderer}: report.txt has every line', f'missing {absent}')


def check_values(renderer, r):
    check(r.get('where') == 'headless' and r.get('backend') == 'headless',
          f'{renderer}: headless', f'{r.get("where")}, {r.get("backend")}')
    check(r.get('renderer') == renderer, f'{renderer}: the renderer veil-tinywl made',
          str(r.get('renderer')))
    mode = (r.get('outputs') or {}).get('HEADLESS-1') or {}
    check((mode.get('width'), mode.get('height')) == (640, 360), f'{renderer}: the output',
          str(r.get('outputs')))
    # veil's own decoder over libavcodec (decode/video/avcodec_decoder.c), ranked above avdec.
    check(r.get('decoder') == 'veilavdec' and r.get('hardware') is False,
          f'{renderer}: the software H.264 decoder', f'{r.get("decoder")} {r.get("hardware")}')
    check('veilavdec' in (r.get('elements') or []), f'{renderer}: the decoder is an element',
          str(r.get('elements')))
    check((r.get('frames_per_s') or 0) > 1, f'{renderer}: frames are shown',
          str(r.get('frames_per_s')))
    check((r.get('wakeups_per_s') or 0) > 0, f'{renderer}: wake-ups are counted',
          str(r.get('wakeups_per_s')))
    threads = r.get('threads') or {}
    check(len(threads) >= 2, f'{renderer}: CPU per thread', str(threads))
    cpu, main, side = r.get('cpu_pct') or 0, r.get('cpu_main_pct'), r.get('cpu_decode_side_pct')
    check(cpu > 0 and main is not None and side is not None and abs(main + side - cpu) < 2,
          f'{renderer}: main thread + decode side = the process', f'{main} + {side} vs {cpu}')
    # The headless backend scans out an output-sized buffer as it is; veil-tinywl turns that
    # off on the importing renderer, so that every frame is imported.
    want = ('direct scan-out' if renderer == 'pixman' else
            f'composited by the renderer ({renderer})')
    check(r.get('render_path', '').startswith(want), f'{renderer}: render path: {want}',
          str(r.get('render_path')))
    check(r.get('copies') == 0, f'{renderer}: no frame copied', str(r.get('copies')))
    if renderer == 'pixman':
        check(r.get('format') == 'BGRx', 'pixman: BGRx', str(r.get('format')))
        check('videoconvert' in (r.get('elements') or []), 'pixman: videoconvert converts',
              str(r.get('elements')))
        check(r.get('dmabufs_max') == 0, 'pixman: no dmabuf', str(r.get('dmabufs_max')))
        check(r.get('drm_node') == 'none', 'pixman: no DRM node', str(r.get('drm_node')))
    else:
        check(r.get('format') in ('I420', 'NV12'), 'import: the decoder\'s YUV',
              str(r.get('format')))
        check('videoconvert' not in (r.get('elements') or []), 'import: no videoconvert',
              str(r.get('elements')))
        check((r.get('dmabufs_max') or 0) >= 2 and (r.get('dmabuf_mib_max') or 0) > 0,
              'import: frames held in dmabufs, with their memory',
              f'{r.get("dmabufs_max")} ({r.get("dmabuf_mib_max")} MiB)')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--gpu-owner', required=True)
    p.add_argument('--build', required=True)
    p.add_argument('--compositor')
    p.add_argument('--out', required=True)
    args = p.parse_args()
    binary = args.compositor or os.path.join(args.build, 'examples', 'tinywl', 'veil-tinywl')
    if not os.path.exists(binary) or shutil.which('ffmpeg') is None:
        print('veil-tinywl or ffmpeg missing: skipped')
        return 77
    os.makedirs(args.out, exist_ok=True)
    clip = os.path.join(args.out, 'h264-640x360.mp4')
    if not os.path.exists(clip):
        subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i',
                        'testsrc2=size=640x360:rate=30', '-t', '4', '-c:v', 'libx264',
                        '-pix_fmt', 'yuv420p', clip], check=True)
    for renderer in ('pixman', 'import'):
        report, text = run_bench(args, renderer, clip)
        if report:
            check_complete(renderer, report, text)
            check_values(renderer, report)
    print(f'{passed} passed, {failed} failed')
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == '__main__':
    sys.exit(main())
