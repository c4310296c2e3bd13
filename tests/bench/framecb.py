#!/usr/bin/env python3
"""
framecb.py: a tiny Wayland client that asks for a frame callback every frame and prints when
each came, to see the compositor's late output frames from outside (stall.py runs it).

    WAYLAND_DISPLAY=... python3 tests/bench/framecb.py [--size 64]

It speaks the Wayland wire protocol itself (stdlib only): wl_compositor, wl_shm and xdg-shell,
one xdg_toplevel (app_id veil-framecb) with a size x size XRGB8888 buffer. After each
wl_callback.done it asks for the next callback, damages the surface and commits at once, so
the compositor has a frame to draw at every refresh. For every callback it prints one line:

    done <callback time, ms> <client monotonic when read, ns> <client monotonic of the commit
    that asked for it, ns>

The callback time is the compositor's (CLOCK_MONOTONIC in ms, as wlroots sends it): a gap of
more than 1.5 refresh periods between two callbacks is a late frame, unless the client itself
committed late (the third field tells). It prints `ready` once the first callback came and
runs until stdin closes or SIGTERM.
"""

import argparse
import mmap
import os
import select
import signal
import socket
import struct
import sys
import time

# Object ids, in the order they are made: libwayland wants a client's new ids without gaps.
DISPLAY, REGISTRY, SYNC, COMPOSITOR, SHM, WM_BASE, POOL, BUFFER, SURFACE, XDG_SURFACE, \
    TOPLEVEL = range(1, 12)
FIRST_CALLBACK = TOPLEVEL + 1

XRGB8888 = 1


def string(s):
    b = s.encode() + b'\0'
    return struct.pack('<I', len(b)) + b + b'\0' * (-len(b) % 4)


class WaylandError(Exception):
    pass


class Conn:
    def __init__(self, env=None):
        env = os.environ if env is None else env
        rt = env['XDG_RUNTIME_DIR']
        name = env.get('WAYLAND_DISPLAY', 'wayland-0')
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(name if name.startswith('/') else os.path.join(rt, name))
        self.buf = b''

    def send(self, obj, opcode, args=b'', fd=None):
        msg = struct.pack('<II', obj, ((8 + len(args)) << 16) | opcode) + args
        if fd is None:
            self.sock.sendall(msg)
        else:
            self.sock.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                       struct.pack('<i', fd))])

    def events(self, timeout):
        """[(object, opcode, args bytes)] read within timeout (may be empty)."""
        r, _, _ = select.select([self.sock], [], [], timeout)
        if r:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError('the compositor closed the connection')
            self.buf += data
        out = []
        while len(self.buf) >= 8:
            obj, word = struct.unpack('<II', self.buf[:8])
            size = word >> 16
            if len(self.buf) < size:
                break
            out.append((obj, word & 0xffff, self.buf[8:size]))
            self.buf = self.buf[size:]
        return out

    def bind(self, wanted, timeout=None):
        """
        Binds the globals wanted, {interface: (object id, highest version)}: new ids in order
        after DISPLAY, REGISTRY and SYNC. Returns {interface: version bound}. Raises
        WaylandError on a protocol error, a global missing, or (with a timeout) no event for
        that long.
        """
        self.send(DISPLAY, 1, struct.pack('<I', REGISTRY))    # get_registry
        self.send(DISPLAY, 0, struct.pack('<I', SYNC))         # sync: the globals are in
        bound = {}
        synced = False
        while not synced:
            events = self.events(5.0 if timeout is None else timeout)
            if not events and timeout is not None:
                raise WaylandError(f'no answer from the compositor within {timeout} s')
            for obj, op, args in events:
                if obj == REGISTRY and op == 0:
                    name, iface, version = parse_global(args)
                    if iface in wanted and iface not in bound:
                        bound[iface] = (name, min(wanted[iface][1], version))
                elif obj == SYNC and op == 0:
                    synced = True
                elif obj == DISPLAY and op == 0:
                    raise WaylandError(f'protocol error {args!r}')
        if set(bound) != set(wanted):
            raise WaylandError(f'the compositor lacks {sorted(set(wanted) - set(bound))}')
        for iface in sorted(wanted, key=lambda i: wanted[i][0]):  # in the order of their ids
            name, version = bound[iface]
            self.send(REGISTRY, 0, struct.pack('<I', name) + string(iface) +
                      struct.pack('<II', version, wanted[iface][0]))
        return {iface: version for iface, (_, version) in bound.items()}


def parse_global(args):
    name, n = struct.unpack('<II', args[:8])
    iface = args[8:8 + n - 1].decode()
    off = 8 + n + (-n % 4)
    version, = struct.unpack('<I', args[off:off + 4])
    return name, iface, version


def main():
    p = argparse.ArgumentParser(description='frame callback timestamps of a tiny window')
    p.add_argument('--size', type=int, default=64)
    a = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    c = Conn()
    try:
        c.bind({'wl_compositor': (COMPOSITOR, 4), 'wl_shm': (SHM, 1),
                'xdg_wm_base': (WM_BASE, 1)})
    except WaylandError as e:
        raise SystemExit(f'framecb: {e}')

    w = h = a.size
    stride = w * 4
    fd = os.memfd_create('framecb', 0)
    os.ftruncate(fd, stride * h)
    mem = mmap.mmap(fd, stride * h)
    mem[:] = b'\x40\x80\xc0\xff' * (w * h)
    c.send(SHM, 0, struct.pack('<Ii', POOL, stride * h), fd=fd)          # create_pool
    c.send(POOL, 0, struct.pack('<IiiiiI', BUFFER, 0, w, h, stride, XRGB8888))
    c.send(COMPOSITOR, 0, struct.pack('<I', SURFACE))                     # create_surface
    c.send(WM_BASE, 2, struct.pack('<II', XDG_SURFACE, SURFACE))          # get_xdg_surface
    c.send(XDG_SURFACE, 1, struct.pack('<I', TOPLEVEL))                   # get_toplevel
    c.send(TOPLEVEL, 3, string('veil-framecb'))                           # set_app_id
    c.send(SURFACE, 6)                                                    # commit

    callback = FIRST_CALLBACK
    configured = False
    commit_ns = None
    ready = False
    out = sys.stdout
    stdin_open = True
    while True:
        if stdin_open:
            r, _, _ = select.select([sys.stdin], [], [], 0)
            if r and not sys.stdin.buffer.read1(4096):
                return 0
        for obj, op, args in c.events(1.0):
            if obj == DISPLAY and op == 0:
                raise SystemExit(f'framecb: protocol error {args!r}')
            if obj == WM_BASE and op == 0:                                # ping
                c.send(WM_BASE, 3, args[:4])
            elif obj == XDG_SURFACE and op == 0:                          # configure
                c.send(XDG_SURFACE, 4, args[:4])                          # ack_configure
                if not configured:
                    configured = True
                    commit_ns = draw(c, callback, w, h)
            elif obj == TOPLEVEL and op == 1:                             # close
                return 0
            elif obj == callback and op == 0:                             # done
                now = time.monotonic_ns()
                ms, = struct.unpack('<I', args[:4])
                out.write(f'done {ms} {now} {commit_ns}\n')
                out.flush()
                if not ready:
                    out.write('ready\n')
                    out.flush()
                    ready = True
                callback += 1
                commit_ns = draw(c, callback, w, h)


def draw(c, callback, w, h):
    """The next frame: a callback, the buffer again, damage, commit. Returns when."""
    c.send(SURFACE, 3, struct.pack('<I', callback))                       # frame
    c.send(SURFACE, 1, struct.pack('<Iii', BUFFER, 0, 0))                 # attach
    c.send(SURFACE, 2, struct.pack('<iiii', 0, 0, w, h))                  # damage
    c.send(SURFACE, 6)                                                    # commit
    return time.monotonic_ns()


if __name__ == '__main__':
    try:
        sys.exit(main())
    except ConnectionError as e:
        sys.exit(f'framecb: {e}')
