#!/usr/bin/env python3
"""
anim-gif.py: CPU per frame and peak memory of decoding an animated GIF with giflib (veil's
decode/anim_gif.c, through the anim-decode program) against GStreamer's avdec_gif (the pipeline
veil used for GIFs before: filesrc ! decodebin ! videoconvert ! BGRA ! fakesink, unsynced).

    tests/bench/anim-gif.py --build BUILDDIR [--size 640x480] [--frames 300]

Two GIFs of the same content are made with ffmpeg (testsrc2, a palette per frame as ffmpeg
writes them), of 50 and of --frames frames; each decoder decodes each once in its own process.
CPU per frame is the difference of the two runs' user + system time over the difference of
frames, so that starting (GStreamer's registry, plugin loading) is left out; peak memory is
the long run's maximum resident set (ru_maxrss of the child). /proc/loadavg is printed beside
the figures: on a busy machine, CPU times are what the process used, not wall time.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def child_usage(argv):
    """User + system seconds and peak resident KiB of one child process, its own (wait4)."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            sys.exit(f'{argv[0]} failed: {err.read().decode(errors="replace")}')
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True,
                    help='veil build directory (with tests/bench/anim-decode)')
    ap.add_argument('--size', default='640x480')
    ap.add_argument('--frames', type=int, default=300)
    args = ap.parse_args()
    tool = os.path.join(args.build, 'tests', 'bench', 'anim-decode')
    with tempfile.TemporaryDirectory() as d:
        gifs = {}
        for n in (50, args.frames):
            path = os.path.join(d, f'{n}.gif')
            subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i',
                            f'testsrc2=s={args.size}:r=25', '-frames:v', str(n), '-loop', '0',
                            path], check=True)
            gifs[n] = path
        size_mib = os.path.getsize(gifs[args.frames]) / 2**20
        results = {}
        for name in ('giflib', 'avdec_gif'):
            cpu = {}
            for n, path in gifs.items():
                if name == 'giflib':
                    argv = [tool, path]
                else:
                    argv = ['gst-launch-1.0', '-q', 'filesrc', f'location={path}', '!',
                            'decodebin', '!', 'videoconvert', '!',
                            'video/x-raw,format=BGRA', '!', 'fakesink', 'sync=false']
                cpu[n], rss = child_usage(argv)
            per_frame = (cpu[args.frames] - cpu[50]) / (args.frames - 50)
            results[name] = (per_frame, cpu[args.frames], rss)
        with open('/proc/loadavg') as f:
            load = f.read().split()[:3]
        print(f'{args.frames} frames of {args.size} (GIF of {size_mib:.1f} MiB); '
              f'load average {" ".join(load)}')
        for name, (per_frame, total, rss) in results.items():
            print(f'{name:10s} {per_frame * 1000:7.2f} ms CPU per frame, {total:6.2f} s for '
                  f'the whole file, peak RSS {rss / 1024:6.1f} MiB')


if __name__ == '__main__':
    main()
