#!/usr/bin/env python3
"""
regioncopy.py: a region of an output, copied by the compositor again and again into one
buffer, for the tools that poll the screen while they time the compositor (stall.py,
compare.py).

grim would do, but it costs the compositor more than what is measured: grim 1.5 asks for the
whole output (ext-image-copy-capture has no regions) and crops it itself, so every grab makes
the compositor write 8 MiB into a new shared-memory file of grim's, page by page (2,048 page
faults on its thread, 20 to 40 ms on the 2-core virtual machine of docs/measurements.md; seen
with `perf record -e page-faults -d` on stall.py's veil-tinywl). This client speaks
wlr-screencopy-unstable-v1 (wlroots, so sway and veil-tinywl) through framecb.py's wire code:
capture_output_region of just the region, into one wl_shm buffer kept for every grab, so after
the first grab the compositor writes size x size pixels into pages it has already mapped.

    with RegionCopy(env, (x, y, w, h)) as rc:
        pixels = rc.grab()      # h x w x 3 uint8, RGB

The region is in the coordinates of the first output (the tools run one at 0,0, scale 1).
"""

import mmap
import os
import struct

import numpy as np

from framecb import DISPLAY, Conn, WaylandError

SHM, OUTPUT, MANAGER = range(4, 7)  # after framecb's DISPLAY, REGISTRY, SYNC
FIRST_FREE = MANAGER + 1

# wl_shm formats whose bytes are B, G, R, X/A and R, G, B, X/A in memory.
BGRX = {0, 1}                      # ARGB8888, XRGB8888
RGBX = {0x34324241, 0x34324258}    # ABGR8888, XBGR8888
Y_INVERT = 1


class RegionCopyError(Exception):
    pass


class RegionCopy:
    def __init__(self, env, region, timeout=10.0):
        self.x, self.y, self.w, self.h = region
        self.timeout = timeout
        self.conn = Conn(env)
        self.next_id = FIRST_FREE
        self.buffer = None  # (wl_buffer id, (format, width, height, stride))
        self.pool_fd = None
        self.mem = None
        try:
            self._bind()
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.mem is not None:
            self.mem.close()
            self.mem = None
        if self.pool_fd is not None:
            os.close(self.pool_fd)
            self.pool_fd = None
        self.conn.sock.close()

    def _new_id(self):
        # Never reused: libwayland takes a client's new ids in order, gaps not allowed.
        i = self.next_id
        self.next_id += 1
        return i

    def _events(self):
        for obj, op, args in self.conn.events(self.timeout) or [(None, None, None)]:
            if obj is None:
                raise RegionCopyError(f'no answer from the compositor within {self.timeout} s')
            if obj == DISPLAY and op == 0:
                raise RegionCopyError(f'protocol error {args!r}')
            yield obj, op, args

    def _bind(self):
        try:
            versions = self.conn.bind({'wl_shm': (SHM, 1), 'wl_output': (OUTPUT, 1),
                                       'zwlr_screencopy_manager_v1': (MANAGER, 3)},
                                      self.timeout)
        except WaylandError as e:
            raise RegionCopyError(str(e)) from e
        self.version = versions['zwlr_screencopy_manager_v1']

    def _buffer_for(self, params):
        """The wl_buffer for these (format, width, height, stride): made once, kept."""
        if self.buffer is not None and self.buffer[1] == params:
            return self.buffer[0]
        fmt, w, h, stride = params
        if fmt not in BGRX | RGBX:
            raise RegionCopyError(f'the compositor offers wl_shm format 0x{fmt:08x} only')
        if self.buffer is not None:
            self.conn.send(self.buffer[0], 0)                  # wl_buffer.destroy
            self.mem.close()
            os.close(self.pool_fd)
        size = stride * h
        self.pool_fd = os.memfd_create('regioncopy', os.MFD_CLOEXEC)
        os.ftruncate(self.pool_fd, size)
        self.mem = mmap.mmap(self.pool_fd, size)
        pool, buffer = self._new_id(), self._new_id()
        self.conn.send(SHM, 0, struct.pack('<Ii', pool, size), fd=self.pool_fd)
        self.conn.send(pool, 0, struct.pack('<IiiiiI', buffer, 0, w, h, stride, fmt))
        self.conn.send(pool, 1)                                # the buffer keeps the pool
        self.buffer = (buffer, params)
        return buffer

    def grab(self):
        """The region's pixels now: h x w x 3 uint8, RGB."""
        frame = self._new_id()
        self.conn.send(MANAGER, 1, struct.pack('<IiIiiii', frame, 0, OUTPUT, self.x, self.y,
                                               self.w, self.h))  # capture_output_region
        params = None
        flags = 0
        try:
            while True:
                for obj, op, args in self._events():
                    if obj != frame:
                        continue
                    if op == 0:                                # buffer: a wl_shm offer
                        params = struct.unpack('<IIII', args[:16])
                        if self.version < 3:
                            self.conn.send(frame, 0, struct.pack('<I', self._buffer_for(params)))
                    elif op == 6:                              # buffer_done
                        if params is None:
                            raise RegionCopyError('the compositor offers no wl_shm buffer')
                        self.conn.send(frame, 0, struct.pack('<I', self._buffer_for(params)))
                    elif op == 1:                              # flags
                        flags, = struct.unpack('<I', args[:4])
                    elif op == 2:                              # ready
                        return self._pixels(params, flags)
                    elif op == 3:                              # failed
                        raise RegionCopyError('the compositor failed the copy')
        finally:
            try:
                self.conn.send(frame, 1)                       # destroy
            except OSError:
                pass  # the compositor is gone: the error above says so

    def _pixels(self, params, flags):
        fmt, w, h, stride = params
        rows = np.frombuffer(self.mem, np.uint8, count=stride * h).reshape(h, stride)
        px = rows[:, :w * 4].reshape(h, w, 4)
        rgb = px[..., [2, 1, 0]] if fmt in BGRX else px[..., :3]
        if flags & Y_INVERT:
            rgb = rgb[::-1]
        return np.ascontiguousarray(rgb)
