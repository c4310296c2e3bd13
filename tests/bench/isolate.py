#!/usr/bin/env python3
"""
Time from command to first frame of a 1080p PNG (or, with --media gif, of a 1080p animated GIF),
decoded in veil-decoder against in the compositor's process (docs/measurements.md, "Decoding in
a helper process").

Two veil-tinywl run side by side, one per mode (VEIL_DECODER=process / inprocess); commands
alternate between them (A, B, A, B, ...) and, on each, between two 1080p PNGs (testsrc2 frames,
made here with ffmpeg). Each time is from just before the IPC command is sent to the moment
`veilctl status --watch --json` prints the output shown with the new file: the frame is on
veil's scene nodes then. Commands are --pause seconds apart (1). Prints the medians, p95 and
maxima, and the load.

    tools/devroot python3 tests/bench/isolate.py --compositor build/examples/veil-tinywl \
        --veilctl build/clients/veilctl/veilctl --outdir build/bench-isolate [--runs 30] [--pause 1]
(VEIL_DECODER_HELPER=build/helper/veil-decoder when veil is not installed.)
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
RUNS = 30
PAUSE = 1.0
MEDIA = 'png'
for flag in ('--runs', '--pause', '--media'):
    if flag in sys.argv:
        i = sys.argv.index(flag)
        value = sys.argv[i + 1]
        if flag == '--runs':
            RUNS = int(value)
        elif flag == '--pause':
            PAUSE = float(value)
        else:
            MEDIA = value
        del sys.argv[i:i + 2]
if MEDIA not in ('png', 'gif'):
    sys.exit(f'--media png or gif, not {MEDIA}')
import veiltest as vt  # noqa: E402

t = vt.Test('isolate-bench')
OUT = 'HEADLESS-1'
files = []
for i, start in enumerate((0, 7)):
    if MEDIA == 'png':
        path = os.path.join(t.media, f'still-1080p-{i}.png')
        args = ['-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=1', '-ss', str(start),
                '-frames:v', '1']
    else:
        # 30 frames at 10 fps, decoded on the fly (too large to keep): the first is timed.
        path = os.path.join(t.media, f'anim-1080p-{i}.gif')
        # (palettegen reads its whole input first: the source must end.)
        args = ['-f', 'lavfi', '-i', f'testsrc2=size=1920x1080:rate=10:duration={start + 3}',
                '-ss', str(start), '-frames:v', '30',
                '-vf', 'split[a][b];[a]palettegen[p];[b][p]paletteuse']
    subprocess.run(['ffmpeg', '-v', 'error', '-y'] + args + [path], check=True)
    files.append(path)


def percentile(values, p):
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def first_frame(c, watch, path):
    return watch.shown_after(c, OUT, f'{vt.quote(path)} fill', path)[0]


modes = ('process', 'inprocess')
times = {m: [] for m in modes}
first = {}  # the first command of each compositor
load = [open('/proc/loadavg').read().split()[0]]
with t.compositor(outputs=1, name='process', env={'VEIL_DECODER': 'process'}) as a, \
        t.compositor(outputs=1, name='inprocess', env={'VEIL_DECODER': 'inprocess'}) as b:
    comps = {'process': a, 'inprocess': b}
    watches = {m: vt.StatusWatch(t.veilctl, c.client_env) for m, c in comps.items()}
    try:
        for m, c in comps.items():
            ok, err = c.msg(f'output {OUT} resolution 1920x1080')
            c.wait_mode(OUT, 1920, 1080)
            # Also the warm-up (caches, GStreamer's registry): not in the medians.
            first[m] = first_frame(c, watches[m], files[1])
        for i in range(RUNS):
            for m in (modes if i % 2 == 0 else modes[::-1]):
                # A user's commands come seconds apart: the spare helper, started 500 ms
                # after a decode (source/remote/spare.h), is waiting by then.
                time.sleep(PAUSE)
                times[m].append(first_frame(comps[m], watches[m], files[i % 2]))
    finally:
        for w in watches.values():
            w.stop()
load.append(open('/proc/loadavg').read().split()[0])


def helper_peak_rss(path):
    """
    Runs veil-decoder once on path, as the compositor does (socketpair, the file's descriptor,
    a 1920x1080 cover), and returns the peak resident memory of its largest process, in KiB:
    getrusage(RUSAGE_CHILDREN) in a fresh Python, whose only child is the helper.
    """
    code = r"""
import array, os, resource, socket, struct, subprocess, sys
helper, path = sys.argv[1], sys.argv[2]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p = subprocess.Popen(['sh', '-c', 'exec "$0" 3<&%d %d<&-' % (b.fileno(), b.fileno()), helper],
                     pass_fds=(b.fileno(),))
b.close()
fd = os.open(path, os.O_RDONLY)
# magic, version, op (decode), kind (PNG), anim (none), the size to cover, nothing released,
# a video's playing and fps, no dmabuf formats, no memory (struct veil_wire_request, wire.h
# version 5: 140 bytes)
a.sendmsg([struct.pack('<IIIIIiiI64xii32xi', 0x6c696576, 5, 0, 1, 0, 1920, 1080, 0, 0, 0,
                       -1)],
          [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [fd]))])
msg, anc, _, _ = a.recvmsg(512, socket.CMSG_SPACE(16))
p.wait()
status = struct.unpack('<i', msg[8:12])[0]
print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
    helper = os.environ.get('VEIL_DECODER_HELPER', '/usr/local/libexec/veil-decoder')
    r = subprocess.run([sys.executable, '-c', code, helper, path], capture_output=True,
                       text=True, check=True)
    status, rss = r.stdout.split()
    if int(status) != 0:
        raise RuntimeError(f'veil-decoder: status {status}')
    return int(rss)
for m in modes:
    v = times[m]
    print(f'{m:10s} n={len(v)} median {percentile(v, 50):.1f} ms  p95 {percentile(v, 95):.1f} ms'
          f'  max {max(v):.1f} ms')
print('the first command of a session: ' +
      ', '.join(f'{m} {first[m]:.1f} ms' for m in modes))
print(f'load (1 min) before {load[0]}, after {load[1]}')
if MEDIA == 'png':
    rss = [helper_peak_rss(files[0]) for _ in range(5)]
    print(f'veil-decoder peak RSS on a 1080p PNG (KiB, 5 runs): {sorted(rss)}')
