#!/usr/bin/env python3
"""
gst-libs.py: which libraries a GStreamer decode of a clip maps, and who needs them.

    tools/devroot python3 tests/bench/gst-libs.py CLIP [--seconds 8]

Runs `gst-launch-1.0 filesrc ! decodebin ! videoconvert ! fakesink sync=true` (what
veil-decoder's pipeline loads, and the anchor's client), reads its /proc/PID/smaps after
--seconds and splits the PSS (and private dirty pages) of its shared libraries by `ldd`'s sets: libavcodec and what it
links; what only libgstlibav.so links beside (libavfilter, libavformat and theirs); the rest
(GStreamer, GLib, the plugins). Prints MiB per set and the largest files of each.
"""
import argparse
import glob
import os
import re
import subprocess
import time


def needs(path):
    """path and every library ldd says it loads (real paths)."""
    out = subprocess.run(['ldd', path], capture_output=True, text=True, check=True).stdout
    return {os.path.realpath(m) for m in re.findall(r'=> (/\S+)', out)} | {os.path.realpath(path)}


def library_pss(pid):
    """
    {real path of a .so: [PSS, Private_Dirty] in KiB} from /proc/pid/smaps. PSS moves with what
    other processes map; the private dirty pages (relocated data) are this process's alone.
    """
    by, name = {}, None
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', line):
                parts = line.split()
                name = (os.path.realpath(parts[5])
                        if len(parts) > 5 and parts[5].startswith('/') and '.so' in parts[5]
                        else None)
            elif name is not None and line.startswith(('Pss:', 'Private_Dirty:')):
                kib = by.setdefault(name, [0, 0])
                kib[0 if line.startswith('Pss:') else 1] += int(line.split()[1])
    return by


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('clip')
    p.add_argument('--seconds', type=float, default=8.0)
    cfg = p.parse_args()
    plugin = glob.glob('/usr/lib/*/gstreamer-1.0/libgstlibav.so')[0]
    codec = glob.glob('/usr/lib/*/libavcodec.so.*[0-9]')[0]
    sets = [('libavcodec and what it links', needs(codec)),
            ('only for libgstlibav.so (libavfilter, libavformat and theirs)', needs(plugin)),
            ('the rest (GStreamer, GLib, the plugins)', None)]
    proc = subprocess.Popen(['gst-launch-1.0', '-q', 'filesrc', f'location={cfg.clip}', '!',
                             'decodebin', '!', 'videoconvert', '!', 'fakesink', 'sync=true'])
    try:
        time.sleep(cfg.seconds)
        by = library_pss(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    groups = {label: {} for label, _ in sets}
    for path, kib in by.items():
        label = next(label for label, members in sets if members is None or path in members)
        groups[label][path] = kib
    def mib(files, i):
        return f'{sum(k[i] for k in files.values()) / 1024:.1f}'
    print(f'{cfg.clip}: libraries in {len(by)} files, PSS {mib(by, 0)} MiB, private dirty '
          f'{mib(by, 1)} MiB')
    for label, files in groups.items():
        top = sorted(files.items(), key=lambda kv: -kv[1][0])[:6]
        print(f'{label}: {len(files)} files, PSS {mib(files, 0)} MiB, private dirty '
              f'{mib(files, 1)} MiB; ' +
              ', '.join(f'{os.path.basename(n)} {k[0] / 1024:.1f}' for n, k in top))


if __name__ == '__main__':
    main()
