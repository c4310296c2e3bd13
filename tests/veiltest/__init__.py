"""
veiltest: the one test library of veil's Python tests and benches (integration, fault, bench,
conformance, protocol, valgrind and the sway and labwc suites). This module holds Test, the one
Compositor and the picture helpers; beside it:

    veiltest.ipc       one sway-IPC connection (the benches' kept one, the fault tests' raw one)
    veiltest.proc      what is read of a process from /proc: CPU, RSS, PSS and smaps by kind,
                       threads, descriptors, wake-ups, the process tree with veil-decoder's
    veiltest.bench     the benches' sampling, statistics and reports (bench.Compositor())
    veiltest.fault     the fault tests' bounds on a compositor's resources, the raw IPC client
    veiltest.ws        a wallpaper per workspace, recorded frame by frame
    veiltest.load      the media and screens of the tests of wallpapers slow to load
    veiltest.anim      GIF and APNG written byte by byte
    veiltest.debfiles  files of Debian packages, fetched at test time
    veiltest.decode_still  veil's still decoders run on a file (tests/tools/decode-still)
    veiltest.patched   the sway and labwc suites' build of a compositor with veil's series

meson's test setups put tests/ on PYTHONPATH; a test run by hand wants PYTHONPATH=tests (the
benches in tests/bench add it themselves).

Everything here drives real programs: veil-tinywl on wlroots' headless backend with the pixman
renderer, sway's `swaymsg` for IPC, `grim` for screenshots (read as PPM from a pipe), ffmpeg for
computing the expected pictures. Nothing is mocked and no result is hard-coded: an expected
picture is made from the source image by an independent path (ffmpeg's scale/crop/pad filters,
or numpy arithmetic on pixels the test generated itself) and compared with a tolerance, since
pixman's interpolation is not ffmpeg's.

A test script:

    t = veiltest.Test('modes')            # parses --compositor PATH and --outdir DIR
    with t.compositor(outputs=1) as c:    # fails the test if it crashes or exits badly
        with t.case('stretch'):           # an exception inside fails the case, not the run
            ok, err = c.msg('output HEADLESS-1 veil ...')
            t.check(ok, 'command accepted', err)
            ...
    t.finish()                            # prints 'N passed, N failed' last, exits 0 or 1

It exits 77 (meson's "skipped") only when no compositor was given or it was not built.
"""

import contextlib
import json
import os
import queue
import random
import re
import selectors
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

import numpy as np

from .base import (EXIT_TIMEOUT, IPC_TIMEOUT, READY_TIMEOUT, WAIT_TIMEOUT, Failure,  # noqa: F401
                   describe_status, say as _say, tail as _tail)
from .ipc import Ipc
from .proc import (children, decoding_pids, descendants, fd_count, fd_targets,  # noqa: F401
                   other_threads_cpu, pidfd_count, proc_threads, thread_count)

SKIP = 77


class Test:
    """One test script: its arguments, its output directory and its pass/fail counts."""

    def __init__(self, name):
        import argparse
        parser = argparse.ArgumentParser(description=f'veil integration test: {name}')
        parser.add_argument('--compositor', help='path of veil-tinywl')
        parser.add_argument('--outdir', help='where logs, images and failures are kept')
        parser.add_argument('--veilctl', help='path of veilctl (the tests that use it)')
        args = parser.parse_args()
        self.veilctl = os.path.abspath(args.veilctl) if args.veilctl else None
        self.name = name
        self.passed = 0
        self.failed = 0
        if not args.compositor or not os.access(args.compositor, os.X_OK):
            _say(f'SKIP: veil-tinywl is not built ({args.compositor or "no --compositor"})')
            _say('0 passed, 0 failed, 1 skipped')
            sys.exit(SKIP)
        self.compositor_path = os.path.abspath(args.compositor)
        outdir = args.outdir or os.path.join(os.getcwd(), 'integration-' + name)
        self.outdir = os.path.abspath(outdir)
        # Each run starts clean, so that what is left there is this run's evidence.
        shutil.rmtree(self.outdir, ignore_errors=True)
        os.makedirs(self.outdir)
        os.chmod(self.outdir, 0o755)
        self.media = os.path.join(self.outdir, 'media')
        os.makedirs(self.media)
        os.chmod(self.media, 0o755)
        self._case = None
        _say(f'# {name}: compositor {self.compositor_path}, output in {self.outdir}')

    # --- counting ---

    def check(self, cond, what, detail=''):
        where = f'[{self._case}] ' if self._case else ''
        if cond:
            self.passed += 1
            _say(f'ok: {where}{what}')
        else:
            self.failed += 1
            _say(f'FAIL: {where}{what}' + (f': {detail}' if detail else ''))
        return bool(cond)

    def fail(self, what, detail=''):
        return self.check(False, what, detail)

    @contextlib.contextmanager
    def case(self, name):
        """A named group of checks; an exception in it fails the case and the run goes on."""
        outer = self._case
        self._case = name if outer is None else f'{outer}/{name}'
        _say(f'== {self._case}')
        try:
            yield
        except Failure as e:
            self.fail('aborted', str(e))
        except Exception:
            self.fail('aborted by an exception', traceback.format_exc())
        finally:
            self._case = outer

    def finish(self):
        _say(f'{self.passed} passed, {self.failed} failed')
        sys.exit(1 if self.failed or not self.passed else 0)

    def path(self, *parts):
        return os.path.join(self.outdir, *parts)

    def compositor(self, **kwargs):
        return Compositor(self, **kwargs)

    def trace_opens(self):
        """
        The compositors started from now on run under strace, which records every file they
        and their decoders open or try to open, each line led by the thread's id. Returns the
        trace's path, complete once the compositor is gone. LeakSanitizer cannot run under
        ptrace (in a sanitizer build it ends the traced compositor with a fatal error at exit):
        its leak check is left out for these compositors alone.
        """
        trace = self.path('open.trace')
        wrapper = self.path('veil-tinywl-traced')
        asan = os.environ.get('ASAN_OPTIONS')
        no_leak_check = (f'ASAN_OPTIONS={quote(asan + ":detect_leaks=0")} ' if asan is not None
                         else '')
        with open(wrapper, 'w') as f:
            f.write(f'#!/bin/sh\n{no_leak_check}exec strace -f -qq --seccomp-bpf '
                    f'-e trace=open,openat,openat2,execve '
                    f'-o {quote(trace)} {quote(self.compositor_path)} "$@"\n')
        os.chmod(wrapper, 0o755)
        self.compositor_path = wrapper
        return trace

    def show(self, c, output, path, words, label):
        """
        `output OUTPUT veil PATH WORDS` through c, then the status once it shows path (checked
        to hold no error) and the settled screenshot (kept as shot-LABEL.png); (None, None) when
        the command is refused.
        """
        ok, err = c.msg(f'output {output} veil {quote(path)} {words}')
        if not self.check(ok, f'{label}: accepted', err):
            return None, None
        v = c.wait_veil(output, 'shown', file=path)
        self.check(v.get('error') is None, f'{label}: no error', str(v.get('error')))
        shot = c.settled_screenshot(output)
        write_png(self.path(f'shot-{label}.png'), shot)
        return v, shot

    # --- comparisons (record a check, keep evidence on failure) ---

    def _evidence(self, label, actual, expected, diff):
        safe = re.sub(r'[^A-Za-z0-9_.-]+', '_', label).strip('_') or 'image'
        base = self.path('failures', safe)
        os.makedirs(os.path.dirname(base), exist_ok=True)
        paths = []
        for suffix, img in (('actual', actual), ('expected', expected), ('diff', diff)):
            if img is None:
                continue
            p = f'{base}-{suffix}.png'
            write_png(p, img)
            paths.append(p)
        return '\n    ' + '\n    '.join(paths)

    def compare(self, actual, expected, label, tolerance=0, mean_tolerance=None,
                ignore_border=1, ignore_edges=0, edge_threshold=24, max_bad_fraction=0.0):
        """
        Compares two HxWx3 uint8 pictures. Pixels farther than ignore_border from the frame and
        farther than ignore_edges from a sharp edge of the expected picture (neighbours that
        differ by more than edge_threshold) must differ by at most tolerance in every channel
        (a fraction max_bad_fraction of them may not); the mean absolute error over every
        pixel but the border must be at most mean_tolerance. On failure the actual and
        expected pictures and an amplified diff are written and their paths printed.
        """
        if actual.shape != expected.shape:
            ev = self._evidence(label, actual, None, None) + self._evidence(
                label + '-exp', expected, None, None)
            return self.fail(f'{label}: size',
                             f'actual {actual.shape[1]}x{actual.shape[0]}, expected '
                             f'{expected.shape[1]}x{expected.shape[0]}{ev}')
        diff = np.abs(actual.astype(np.int16) - expected.astype(np.int16)).max(axis=2)
        region = np.ones(diff.shape, bool)
        b = ignore_border
        if b > 0:
            region[:b, :] = region[-b:, :] = False
            region[:, :b] = region[:, -b:] = False
        checked = region.copy()
        if ignore_edges > 0:
            checked &= ~dilate(sharp_edges(expected, edge_threshold), ignore_edges)
        bad = (diff > tolerance) & checked
        n_checked = int(checked.sum())
        n_bad = int(bad.sum())
        mean = float(diff[region].mean()) if region.any() else 0.0
        worst = int(diff[checked].max()) if n_checked else 0
        problems = []
        if n_checked == 0:
            problems.append('no pixel left to compare')
        if n_bad > max_bad_fraction * n_checked:
            ys, xs = np.nonzero(bad)
            problems.append(f'{n_bad} of {n_checked} pixels differ by more than {tolerance} '
                            f'(worst {worst}; first at x={xs[0]} y={ys[0]}: actual '
                            f'{px(actual[ys[0], xs[0]])}, expected '
                            f'{px(expected[ys[0], xs[0]])})')
        if mean_tolerance is not None and mean > mean_tolerance:
            problems.append(f'mean error {mean:.2f} > {mean_tolerance}')
        summary = (f'mean error {mean:.2f}, worst {worst} where checked, {n_bad}/{n_checked} '
                   f'over {tolerance}')
        if problems:
            vis = np.clip(diff.astype(np.int32) * 4, 0, 255).astype(np.uint8)
            vis = np.stack([vis, vis, vis], axis=2)
            vis[~region] = (0, 0, 96)
            if ignore_edges > 0:
                vis[region & ~checked] //= 2
                vis[region & ~checked, 2] += 64
            vis[bad] = (255, 0, 0)
            ev = self._evidence(label, actual, expected, vis)
            return self.fail(f'{label}: pixels match', '; '.join(problems) + ev)
        return self.check(True, f'{label}: pixels match ({summary})')

    def compare_structure(self, actual, expected, label, slack=2, bars=None):
        """
        Checks the layout strictly: every pixel's colour class (see colour_class) must be the
        expected one except within slack pixels of a class boundary of the expected picture,
        each class's bounding box must be where the expected one is within slack pixels, and
        where bars (an (r, g, b)) are expected away from boundaries they must be that exact
        colour.
        """
        if actual.shape != expected.shape:
            return self.fail(f'{label}: structure', 'sizes differ')
        ca = colour_class(actual)
        ce = colour_class(expected)
        near = dilate(class_boundaries(ce), slack)
        # The outermost pixels of a scaled picture blend with what is below it (pixman samples
        # outside the buffer as transparent): the frame's own edge is near a boundary too.
        if slack > 0:
            near[:slack, :] = near[-slack:, :] = True
            near[:, :slack] = near[:, -slack:] = True
        wrong = (ca != ce) & ~near
        problems = []
        if wrong.any():
            ys, xs = np.nonzero(wrong)
            problems.append(f'{int(wrong.sum())} pixels of the wrong colour class away from '
                            f'edges (first at x={xs[0]} y={ys[0]}: class {ca[ys[0], xs[0]]}, '
                            f'expected {ce[ys[0], xs[0]]})')
        inner = (slice(slack, ce.shape[0] - slack), slice(slack, ce.shape[1] - slack))
        for cls in np.unique(ce):
            if cls < 0 or (ce == cls).sum() < 16:
                continue
            # Bounding boxes of the class's pixels that are not lone blends of two others.
            eb = bbox(solid_class(ce, cls)[inner], slack)
            ab = bbox(solid_class(ca, cls)[inner], slack)
            if eb is None:
                continue
            if ab is None:
                problems.append(f'class {CLASS_NAMES.get(int(cls), cls)} missing '
                                f'(expected at {eb})')
                continue
            off = max(abs(a - e) for a, e in zip(ab, eb))
            if off > slack:
                problems.append(f'class {CLASS_NAMES.get(int(cls), cls)} spans x {ab[0]}..'
                                f'{ab[2]} y {ab[1]}..{ab[3]}, expected x {eb[0]}..{eb[2]} '
                                f'y {eb[1]}..{eb[3]}')
        if bars is not None:
            bar_cls = int(colour_class(np.array([[bars]], np.uint8))[0, 0])
            where = (ce == bar_cls) & ~near
            if where.any():
                wrong_bar = where & np.any(actual != np.array(bars, np.uint8), axis=2)
                if wrong_bar.any():
                    ys, xs = np.nonzero(wrong_bar)
                    problems.append(f'{int(wrong_bar.sum())} bar pixels are not exactly '
                                    f'{bars} (first at x={xs[0]} y={ys[0]}: '
                                    f'{px(actual[ys[0], xs[0]])})')
            else:
                problems.append('the expected picture has no bars')
        if problems:
            vis = np.zeros(actual.shape, np.uint8)
            vis[near] = (40, 40, 40)
            vis[(ca != ce) & near] = (128, 128, 0)
            vis[wrong] = (255, 0, 0)
            ev = self._evidence(label + '-structure', actual, expected, vis)
            return self.fail(f'{label}: structure', '; '.join(problems) + ev)
        return self.check(True, f'{label}: structure (colour classes and edges within '
                                f'{slack} px)')


    def check_centered(self, actual, pixels, bars, label, slack=2):
        """
        center at a scale where the centred position is no whole number of logical pixels:
        veil keeps one frame pixel to one output pixel and may drop up to slack columns or
        rows and move the frame by as much. Checks that the bars are exactly the colour, that
        the frame is an exact crop of the source within slack pixels of its size, and that it
        is centred within slack pixels. The frame must be smaller than the output.
        """
        h, w = actual.shape[:2]
        ih, iw = pixels.shape[:2]
        problems = []
        inside = np.any(actual != np.array(bars, np.uint8), axis=2)
        box = bbox(inside)
        if box is None:
            return self.fail(f'{label}: centred 1:1', 'only bars on the screen' +
                             self._evidence(label, actual, None, None))
        x0, y0, x1, y1 = box
        aw, ah = x1 - x0 + 1, y1 - y0 + 1
        if not inside[y0:y1 + 1, x0:x1 + 1].all():
            problems.append(f'bar-coloured pixels inside the frame at {box}')
        if not (iw - slack <= aw <= iw and ih - slack <= ah <= ih):
            problems.append(f'frame shown {aw}x{ah}, source {iw}x{ih}')
        cx, cy = (w - iw) / 2, (h - ih) / 2
        if abs(x0 - cx) > slack or abs(y0 - cy) > slack:
            problems.append(f'frame at x={x0} y={y0}, centred would be x={cx} y={cy}')
        found = None
        if not problems:
            shown = actual[y0:y1 + 1, x0:x1 + 1]
            for sy in range(ih - ah + 1):
                for sx in range(iw - aw + 1):
                    if np.array_equal(shown, pixels[sy:sy + ah, sx:sx + aw]):
                        found = (sx, sy)
                        break
                if found:
                    break
            if found is None:
                problems.append('the frame is not an exact crop of the source (scaled?)')
        if problems:
            return self.fail(f'{label}: centred 1:1', '; '.join(problems) +
                             self._evidence(label, actual, None, None))
        return self.check(True, f'{label}: centred 1:1 ({aw}x{ah} of {iw}x{ih} at x={x0} '
                                f'y={y0}, source offset {found})')

    def check_tiling(self, actual, pixels, label, max_drop=2):
        """
        Tile at a scale where a frame's size is no whole number of logical pixels: veil keeps
        one frame pixel to one output pixel, so a tile may be narrower (or shorter) than the
        frame by up to max_drop pixels (its last columns or rows dropped) and the later tiles
        start that much earlier. Checks that the screen is made of such tiles from the top-left
        corner, exactly, without gaps.
        """
        fh, fw = pixels.shape[:2]
        h, w = actual.shape[:2]

        def spans(size, frame, fits):
            out, pos = [], 0
            while pos < size:
                for n in range(min(frame, size - pos), min(frame, size - pos) - max_drop - 1, -1):
                    if n > 0 and fits(pos, n):
                        break
                else:
                    return out, pos
                out.append((pos, n))
                pos += n
            return out, None

        # Columns along the first row of tiles, rows along the first column.
        cols, bad_x = spans(w, fw, lambda x, n: np.array_equal(
            actual[:min(fh - max_drop, h), x:x + n], pixels[:min(fh - max_drop, h), :n]))
        rows, bad_y = spans(h, fh, lambda y, n: np.array_equal(
            actual[y:y + n, :min(fw - max_drop, w)], pixels[:n, :min(fw - max_drop, w)]))
        problems = []
        if bad_x is not None:
            problems.append(f'no tile of width {fw}..{fw - max_drop} starts at x={bad_x}')
        if bad_y is not None:
            problems.append(f'no tile of height {fh}..{fh - max_drop} starts at y={bad_y}')
        expected = None
        if not problems:
            expected = np.zeros_like(actual)
            for y, hh in rows:
                for x, ww in cols:
                    expected[y:y + hh, x:x + ww] = pixels[:hh, :ww]
            if not np.array_equal(expected, actual):
                ys, xs = np.nonzero(np.any(expected != actual, axis=2))
                problems.append(f'{len(ys)} pixels differ from the tiles found (first at '
                                f'x={xs[0]} y={ys[0]})')
        widths = sorted({n for _, n in cols[:-1]})
        heights = sorted({n for _, n in rows[:-1]})
        if problems:
            diff = None
            if expected is not None:
                diff = (np.any(expected != actual, axis=2)[..., None] * np.array(
                    [255, 0, 0], np.uint8)).astype(np.uint8)
            ev = self._evidence(label, actual, expected, diff)
            return self.fail(f'{label}: 1:1 tiles', '; '.join(problems) + ev)
        return self.check(True, f'{label}: 1:1 tiles without gaps (widths {widths}, heights '
                                f'{heights})')


def base_env():
    """This process's environment without the session's display and IPC sockets."""
    env = dict(os.environ)
    for k in ('WAYLAND_DISPLAY', 'WAYLAND_SOCKET', 'DISPLAY', 'SWAYSOCK', 'I3SOCK'):
        env.pop(k, None)
    return env


def wait_until(predicate, what, timeout=WAIT_TIMEOUT, interval=0.05, alive=None):
    """
    Polls predicate() until it returns a true value, which is returned; an exception other than
    Failure counts as "not yet". alive(), when given, raises once what is waited on is gone.
    """
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            value = predicate()
            last = value
        except Failure:
            raise
        except Exception as e:  # a status not there yet
            value = None
            last = e
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f'waited {timeout:.0f} s for {what}; last: {last!r}'[:2000])
        if alive is not None:
            alive()
        time.sleep(interval)


def stop_process(proc, timeout=10.0, ipc=None):
    """Asks nicely (IPC exit when given), then SIGTERM, then SIGKILL; returns the status."""
    if proc is None:
        return None
    if proc.poll() is None and ipc is not None:
        try:
            ipc.command('exit')
        except Exception:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


class Compositor:
    """
    veil-tinywl (or sway) on wlroots' headless backend with the pixman renderer, in a private
    XDG_RUNTIME_DIR with its own XDG_STATE_HOME: the one compositor of the tests and benches.
    Its stderr goes to <outdir>/<name>.log.

    With a test (Test.compositor()): the binary is the test's --compositor; leaving the context
    stops it with SIGTERM and fails the test if it had died before, or exits with a bad status.

    Without (the benches: bench.Compositor()): binary and outdir are given; size sets each
    output's mode before any client starts (sway: in the config it writes, with
    sway_config_extra); one IPC connection stays open (.ipc); stop() asks for `exit` through it,
    then ends what the compositor left behind (swaybg). backend 'wayland' runs it nested in the
    session at parent_display, 'drm' on this seat's displays: the outputs are then the backend's
    (output_names, found after start()).
    """

    def __init__(self, test=None, outputs=1, config=None, user=None, name='compositor', env=None,
                 renderer=None, args=None, *, binary=None, outdir=None, kind=None, size=None,
                 debug=False, sway_config_extra=(), backend='headless', parent_display=None):
        self.test = test
        self.binary = binary or test.compositor_path
        # 'sway' or 'veil' (veil-tinywl); sway is also known by its file's name.
        self.is_sway = kind == 'sway' if kind else os.path.basename(self.binary) == 'sway'
        # More of veil-tinywl's options (--decoder-timeout MS, --power-supply DIR, ...).
        self.args = list(args or [])
        # veil-tinywl's --renderer: 'import' (the importing test renderer) or 'pixman'.
        self.renderer = renderer
        self.outputs_count = outputs
        self.size = size
        self.debug = debug
        self.sway_config_extra = list(sway_config_extra)
        self.backend = backend
        self.parent_display = parent_display
        self.config = config
        self.user = user  # (uid, gid) to run as, or None
        self.name = name
        self.extra_env = dict(env or {})
        self.proc = None
        self.pid = None
        self.ipc = None
        self.runtime = None
        self.log = None
        self.log_path = (test.path(f'{name}.log') if test is not None
                         else os.path.join(outdir, f'{name}.log'))
        self.output_names = [f'HEADLESS-{i + 1}' for i in range(outputs)]
        self.stdout_lines = []
        self.client_env = None
        self.swaysock = None
        self.wayland_display = None
        self.stopped = False
        self.exit_status = None

    def __enter__(self):
        try:
            self.start()
        except Failure as e:
            # Nothing can be tested without it: record why and end the script here.
            if self.proc is not None and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.stopped = True
            self._cleanup()
            if self.test is None:
                raise
            self.test.fail(f'{self.name} starts', str(e))
            self.test.finish()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.test is None:
            self.stop()
            return False
        if exc is not None and not isinstance(exc, (Failure, AssertionError)):
            self.test.fail('test body raised', ''.join(
                traceback.format_exception(exc_type, exc, tb)))
        elif isinstance(exc, (Failure, AssertionError)):
            self.test.fail('test body aborted', str(exc))
        self.stop()
        return True  # the failure is counted; the script goes on to finish()

    # --- life ---

    def _argv(self):
        argv = [self.binary]
        if self.is_sway:
            if self.config is None and self.size is not None:
                self.config = os.path.join(self.runtime, 'sway.config')
                w, h = self.size
                with open(self.config, 'w') as f:
                    for name in self.output_names:
                        f.write(f'output {name} resolution {w}x{h}\n')
                    f.write('xwayland disable\ndefault_border none\n'
                            'default_floating_border none\nfocus_on_window_activation none\n')
                    for line in self.sway_config_extra:
                        f.write(line + '\n')
            argv += ['-c', self.config or '/dev/null']
        else:
            if self.config:
                argv += ['-c', self.config]
            if self.renderer:
                argv += ['--renderer', self.renderer]
            argv += self.args
        if self.debug:
            argv += ['-d']
        if self.user is not None:
            argv = ['setpriv', f'--reuid={self.user[0]}', f'--regid={self.user[1]}',
                    '--clear-groups', '--'] + argv
        return argv

    def start(self):
        self.runtime = tempfile.mkdtemp(prefix='veil-it-' if self.test else 'veil-bench-')
        if self.user is not None:
            os.chown(self.runtime, self.user[0], self.user[1])
        self.swaysock = os.path.join(self.runtime, 'ipc.sock')
        env = base_env()
        env.update({
            'XDG_RUNTIME_DIR': self.runtime,
            'SWAYSOCK': self.swaysock,
            'WLR_BACKENDS': 'headless',
            'WLR_RENDERER': 'pixman',
            'WLR_HEADLESS_OUTPUTS': str(self.outputs_count),
            'WLR_LIBINPUT_NO_DEVICES': '1',
        })
        if self.backend != 'headless':
            for k in ('WLR_RENDERER', 'WLR_HEADLESS_OUTPUTS', 'WLR_LIBINPUT_NO_DEVICES'):
                env.pop(k)
            env['WLR_BACKENDS'] = {'wayland': 'wayland', 'drm': 'drm,libinput'}[self.backend]
            if self.backend == 'wayland':
                env['WAYLAND_DISPLAY'] = self.parent_display
        # veil-tinywl keeps what is set in $XDG_STATE_HOME/veil: this compositor's own, not
        # the home of whoever runs the tests (test-state.py gives one that outlives a run).
        env['XDG_STATE_HOME'] = os.path.join(self.runtime, 'state')
        # A value of None takes the variable out.
        for key, value in self.extra_env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        if self.user is not None:
            env['HOME'] = self.runtime
        argv = self._argv()
        self.log = open(self.log_path, 'wb')
        _say(f'# starting {shlex.join(argv)} (log {self.log_path})')
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL,
                stdout=self.log if self.is_sway else subprocess.PIPE, stderr=self.log,
                env=env, start_new_session=True)
        except OSError as e:
            raise Failure(f'cannot run {argv[0]}: {e}')
        self.pid = self.proc.pid
        if self.is_sway:
            self._wait_sway()
        else:
            self._wait_ready()
        self.client_env = base_env()
        self.client_env.update({'XDG_RUNTIME_DIR': self.runtime,
                                'WAYLAND_DISPLAY': self.wayland_display,
                                'SWAYSOCK': self.swaysock})
        _say(f'# ready: WAYLAND_DISPLAY={self.wayland_display} SWAYSOCK={self.swaysock}')
        if self.test is not None:
            return self
        self.ipc = Ipc(self.swaysock)
        if self.backend != 'headless':
            self.wait_until(lambda: self.ipc.outputs(), 'the backend\'s outputs')
            self.output_names = sorted(self.ipc.outputs())
            self.outputs_count = len(self.output_names)
        elif self.size is not None:
            if not self.is_sway:
                for name in self.output_names:
                    self.ipc.must(f'output {name} resolution {self.size[0]}x{self.size[1]}')
            self.wait_modes()
        return self

    def _wait_ready(self):
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + READY_TIMEOUT
        buf = b''
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f'no ready line within {READY_TIMEOUT:.0f} s; log tail:\n'
                              + _tail(self.log_path))
            if not sel.select(timeout=min(left, 1.0)):
                if self.proc.poll() is not None:
                    break
                continue
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                text = line.decode('utf-8', 'replace')
                self.stdout_lines.append(text)
                if text.startswith('ready '):
                    fields = dict(w.split('=', 1) for w in text.split()[1:] if '=' in w)
                    self.wayland_display = fields.get('WAYLAND_DISPLAY')
                    self.swaysock = fields.get('SWAYSOCK', self.swaysock)
                    if not self.wayland_display or not self.swaysock:
                        raise Failure(f'malformed ready line: {text!r}')
                    sel.close()
                    threading.Thread(target=self._drain, args=(buf,), daemon=True).start()
                    return
        sel.close()
        self.proc.wait(timeout=EXIT_TIMEOUT)
        raise Failure(f'compositor exited ({describe_status(self.proc.returncode)}) before '
                      f'its ready line; stdout {self.stdout_lines!r}; log tail:\n'
                      + _tail(self.log_path))

    def _wait_sway(self):
        """Until sway has its Wayland socket and answers on its IPC socket."""
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f'sway exited ({describe_status(self.proc.returncode)}); log:\n'
                              + _tail(self.log_path))
            names = sorted(n for n in os.listdir(self.runtime)
                           if re.fullmatch(r'wayland-\d+', n))
            socks = [n for n in os.listdir(self.runtime) if n.startswith('sway-ipc')]
            if names and not os.path.exists(self.swaysock) and socks:
                self.swaysock = os.path.join(self.runtime, socks[0])
            if names and os.path.exists(self.swaysock):
                try:
                    Ipc(self.swaysock, timeout=5).close()
                except OSError:
                    time.sleep(0.1)
                    continue
                self.wayland_display = names[0]
                if self.test is not None:
                    time.sleep(0.5)  # as the tests' sway always had: its outputs come next
                return
            time.sleep(0.1)
        raise Failure(f'sway was not ready after {READY_TIMEOUT:.0f} s; log:\n'
                      + _tail(self.log_path))

    def _drain(self, pending):
        """Keeps reading stdout after the ready line so that the compositor never blocks on it."""
        if pending:
            self.stdout_lines.append(pending.decode('utf-8', 'replace'))
        try:
            for line in self.proc.stdout:
                self.stdout_lines.append(line.decode('utf-8', 'replace').rstrip('\n'))
        except (OSError, ValueError):
            pass

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def require_alive(self, what='running'):
        """Raises Failure, with the log's tail, once the compositor has gone."""
        if not self.alive():
            status = describe_status(self.proc.returncode if self.proc else None)
            raise Failure(f'{what}: {self.name} is gone ({status}); log tail:\n'
                          + _tail(self.log_path))

    def _ask_exit(self):
        try:
            if self.ipc is not None:
                self.ipc.command('exit')
            else:
                subprocess.run(['swaymsg', '-s', self.swaysock, 'exit'], env=self.client_env,
                               capture_output=True, timeout=IPC_TIMEOUT)
        except (subprocess.TimeoutExpired, OSError, Failure):
            pass

    def stop(self, method=None):
        """
        Stops the compositor: SIGTERM (method 'term', a test's default) or the IPC `exit`
        command ('exit', a bench's default; a bench then sends SIGTERM after 10 s). A test
        records whether it had stayed up and exited cleanly. Returns its exit status.
        """
        if self.stopped or self.proc is None:
            return self.proc.returncode if self.proc else None
        self.stopped = True
        t = self.test
        method = method or ('term' if t is not None else 'exit')
        died_early = self.proc.poll() is not None
        kids = [] if died_early or t is not None else descendants(self.pid)
        if not died_early:
            if method == 'exit':
                self._ask_exit()
                if t is None:
                    try:
                        self.proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        self.proc.send_signal(signal.SIGTERM)
            else:
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=EXIT_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                if t is not None:
                    t.fail(f'{self.name} exits when asked ({method})',
                           f'still running after {EXIT_TIMEOUT:.0f} s, killed; log tail:\n'
                           + _tail(self.log_path))
                    self._cleanup()
                    return self.proc.returncode
        rc = self.exit_status = self.proc.returncode
        # What a bench's compositor started and left behind (swaybg): only those pids.
        for pid in kids:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        if t is None:
            pass
        elif died_early:
            t.fail(f'{self.name} stayed up during the test',
                   f'it exited on its own: {describe_status(rc)}; log tail:\n'
                   + _tail(self.log_path))
        elif rc != 0:
            t.fail(f'{self.name} exits cleanly ({method})',
                   f'{describe_status(rc)}; log tail:\n' + _tail(self.log_path))
        else:
            t.check(True, f'{self.name} stayed up and exited cleanly ({method})')
        self._cleanup()
        return rc

    def _cleanup(self):
        for f in (self.log, self.proc.stdout if self.proc else None, self.ipc):
            if f is not None:
                try:
                    f.close()
                except Exception:
                    pass
        self.ipc = None
        if self.runtime:
            shutil.rmtree(self.runtime, ignore_errors=True)

    # --- clients ---

    def tree_pids(self):
        """The compositor and everything it started (veil-decoder, swaybg and its loaders)."""
        return [self.pid] + descendants(self.pid)

    def wait_modes(self):
        """Until every output has the mode of size."""
        w, h = self.size

        def ok():
            outs = self.outputs()
            for name in self.output_names:
                m = (outs.get(name) or {}).get('current_mode') or {}
                if (m.get('width'), m.get('height')) != (w, h):
                    return False
            return True
        self.wait_until(ok, f'outputs at {w}x{h}')

    def veil_status(self):
        """{output name: veil status dict} (veil-tinywl only)."""
        return {n: o.get('veil') or {} for n, o in self.outputs().items()}

    def environ(self):
        """The compositor's environment as the kernel has it (/proc/PID/environ)."""
        with open(f'/proc/{self.proc.pid}/environ', 'rb') as f:
            return dict(e.decode(errors='replace').partition('=')[::2]
                        for e in f.read().split(b'\0') if e)

    def msg(self, command, timeout=IPC_TIMEOUT):
        """
        Sends one command with the real swaymsg. Returns (ok, error text): ok is True only when
        swaymsg exited 0 and every command in the reply succeeded.
        """
        self.require_alive(f'swaymsg {command!r}')
        try:
            r = subprocess.run(['swaymsg', '-s', self.swaysock, '-r', '--', command],
                               env=self.client_env, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f'swaymsg {command!r} got no reply in {timeout:.0f} s: the compositor '
                          f'hangs')
        out = r.stdout.decode('utf-8', 'replace')
        err = r.stderr.decode('utf-8', 'replace').strip()
        try:
            reply = json.loads(out)
        except ValueError:
            reply = None
        errors = []
        success = False
        if isinstance(reply, list) and reply:
            success = all(isinstance(x, dict) and x.get('success') is True for x in reply)
            errors = [str(x.get('error', '')) for x in reply
                      if isinstance(x, dict) and not x.get('success')]
        text = '; '.join(e for e in errors if e) or err or out.strip()
        ok = r.returncode == 0 and success
        if ok:
            text = ''
        if ok != (r.returncode == 0):
            text = f'(swaymsg exit {r.returncode} but reply {out.strip()!r}) {text}'
        return ok, text

    def veilctl(self, *words, env=None, timeout=IPC_TIMEOUT):
        """
        Runs the real veilctl (the test's --veilctl) as a client of this compositor. Returns
        (exit status, its stderr stripped).
        """
        if not self.test.veilctl or not os.access(self.test.veilctl, os.X_OK):
            raise Failure(f'veilctl is not built ({self.test.veilctl})')
        self.require_alive(f'veilctl {" ".join(words)}')
        try:
            r = subprocess.run([self.test.veilctl, *words], env=env or self.client_env,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f'veilctl {" ".join(words)} got no answer in {timeout:.0f} s')
        return r.returncode, r.stderr.decode('utf-8', 'replace').strip()

    def query(self, kind):
        self.require_alive(f'swaymsg -t {kind}')
        try:
            r = subprocess.run(['swaymsg', '-s', self.swaysock, '-r', '-t', kind],
                               env=self.client_env, capture_output=True, timeout=IPC_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Failure(f'swaymsg -t {kind} got no reply: the compositor hangs')
        if r.returncode != 0:
            raise Failure(f'swaymsg -t {kind} failed ({r.returncode}): '
                          f'{r.stderr.decode(errors="replace")}')
        return json.loads(r.stdout)

    def outputs(self):
        """{name: output}: swaymsg -t get_outputs (a bench: through its open connection)."""
        if self.ipc is not None:
            return self.ipc.outputs()
        return {o['name']: o for o in self.query('get_outputs')}

    def veil(self, output):
        o = self.outputs().get(output)
        if o is None:
            raise Failure(f'output {output} is not in get_outputs')
        v = o.get('veil')
        if not isinstance(v, dict):
            raise Failure(f'output {output} has no "veil" status: {json.dumps(o)[:400]}')
        return v

    def veil_error(self, output, path):
        """The output's status, read once, if its error is about path; else None. (While a new
        wallpaper loads the status still carries the error of the one shown meanwhile.)"""
        v = self.veil(output)
        return v if f"'{path}'" in (v.get('error') or '') else None

    def responsive(self):
        """The compositor is running and answers IPC."""
        if not self.alive():
            return False
        try:
            self.query('get_version')
            return True
        except Failure:
            return False

    def wait_until(self, predicate, what, timeout=WAIT_TIMEOUT, interval=0.05):
        """wait_until() while the compositor is up."""
        return wait_until(predicate, what, timeout, interval,
                          alive=lambda: self.require_alive(f'waiting for {what}'))

    def refused_file(self, output, words, path, parts, label):
        """
        Checks that `output OUTPUT veil WORDS`, which names path, fails naming the file: in the
        command's reply, or (a file that fails on a worker) in the output's status error. Each
        of parts must be in that error. Returns the error.
        """
        ok, err = self.msg(f'output {output} veil {words}')
        said = [err or '']

        def erred():
            e = self.veil(output).get('error') or ''
            said[0] = e or said[0]
            return e if path in e else None
        if ok:
            self.check_until(erred, f'{label}: the error names {os.path.basename(path)}',
                             timeout=20)
        else:
            self.test.check(path in (err or ''), f'{label}: refused, naming the file', err)
        for part in parts:
            self.test.check(part in said[0], f'{label}: the error says "{part}"', said[0])
        return said[0]

    def check_until(self, predicate, what, timeout=WAIT_TIMEOUT, interval=0.05):
        """
        A check that predicate() turns true within timeout, counted once: passed, or failed
        (and the case goes on). Returns the value, or None when it did not come.
        """
        try:
            value = self.wait_until(predicate, what, timeout, interval)
        except Failure as e:
            self.require_alive(what)
            self.test.fail(what, str(e))
            return None
        return value if self.test.check(value, what) else None

    def settled(self, what, fn, timeout=WAIT_TIMEOUT):
        """fn() once it has given the same value twice, a second apart (a count to settle)."""
        last = [None]

        def pred():
            n = fn()
            same = n == last[0]
            last[0] = n
            return (n,) if same else None
        n, = self.wait_until(pred, f'{what} to settle', timeout=timeout, interval=1.0)
        return n

    def wait_veil(self, output, state='shown', timeout=WAIT_TIMEOUT, **fields):
        """Waits until the output's veil status has this state (and fields); returns it."""
        def pred():
            v = self.veil(output)
            if v.get('state') != state:
                return None
            for k, want in fields.items():
                if v.get(k) != want:
                    return None
            return v
        return self.wait_until(pred, f'{output} veil state {state} {fields or ""}'.strip(),
                               timeout)

    def wait_mode(self, output, width, height, scale=None, transform=None):
        def pred():
            o = self.outputs().get(output)
            if o is None or not o.get('current_mode'):
                return None
            m = o['current_mode']
            if (m.get('width'), m.get('height')) != (width, height):
                return None
            if scale is not None and abs(o.get('scale', 0) - scale) > 1e-6:
                return None
            if transform is not None and str(o.get('transform')) != str(transform):
                return None
            return o
        return self.wait_until(pred, f'{output} at {width}x{height}')

    def screenshot(self, output=None, keep=None):
        """
        grim of one output (or the whole layout) as an HxWx3 uint8 array: the same pixels as
        grim's PNG read back by ffmpeg (isolate compares the two with np.array_equal), read
        from grim's PPM on a pipe, without the file, ffprobe and ffmpeg that a PNG took (about
        0.6 s a screenshot on a loaded machine, against 0.1). keep: a path to
        keep the picture at, as a PNG.
        """
        img = grim_ppm(self, output)
        if keep is not None:
            write_png(keep, img)
        return img

    def settled_screenshot(self, output=None, tries=6):
        """Screenshots until two in a row are identical (a frame in flight has landed)."""
        prev = self.screenshot(output)
        for _ in range(tries):
            cur = self.screenshot(output)
            if cur.shape == prev.shape and np.array_equal(cur, prev):
                return cur
            prev = cur
            time.sleep(0.1)
        raise Failure(f'screenshots of {output or "the layout"} never settled')


def px(value):
    """A pixel as a plain tuple of ints, for messages."""
    return tuple(int(v) for v in value)


# --- images through ffmpeg ---

def _ffmpeg(args, input=None):
    r = subprocess.run(['ffmpeg', '-v', 'error', '-nostdin', '-y'] + args, input=input,
                       capture_output=True, timeout=120)
    if r.returncode != 0:
        raise Failure(f'ffmpeg {shlex.join(args)} failed: {r.stderr.decode(errors="replace")}')
    return r.stdout


def image_size(path):
    r = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                        'stream=width,height', '-of', 'csv=p=0:s=x', path],
                       capture_output=True, timeout=60)
    if r.returncode != 0:
        raise Failure(f'ffprobe {path}: {r.stderr.decode(errors="replace")}')
    w, h = r.stdout.decode().strip().split('\n')[0].split('x')[:2]
    return int(w), int(h)


def read_image(path):
    """Any picture ffmpeg reads, as an HxWx3 uint8 array (rgb24)."""
    w, h = image_size(path)
    raw = _ffmpeg(['-i', path, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'])
    if len(raw) != w * h * 3:
        raise Failure(f'{path}: {len(raw)} bytes decoded for {w}x{h}')
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3).copy()


def write_png(path, img):
    h, w = img.shape[:2]
    _ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{w}x{h}', '-i', '-',
             '-frames:v', '1', path], input=np.ascontiguousarray(img, np.uint8).tobytes())
    os.chmod(path, 0o644)
    return path


def _filtered(src, vf, w, h):
    raw = _ffmpeg(['-i', src, '-frames:v', '1', '-vf', vf, '-f', 'rawvideo', '-pix_fmt',
                   'rgb24', '-'])
    if len(raw) != w * h * 3:
        raise Failure(f'ffmpeg -vf {vf}: {len(raw)} bytes, expected {w}x{h}')
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3).copy()


def _hex(color):
    return '0x' + color.lstrip('#')


# The expected pictures, in the output's physical pixels (what grim captures). Scaling uses
# ffmpeg's bilinear filter; pixman's differs in detail, hence the tolerances in compare().
def expect_stretch(src, w, h):
    return _filtered(src, f'format=rgb24,scale={w}:{h}:flags=bilinear', w, h)


def expect_fill(src, w, h):
    return _filtered(src, f'format=rgb24,scale={w}:{h}:force_original_aspect_ratio=increase:'
                          f'flags=bilinear,crop={w}:{h}', w, h)


def expect_fit(src, w, h, color):
    return _filtered(src, f'format=rgb24,scale={w}:{h}:force_original_aspect_ratio=decrease:'
                          f'flags=bilinear,pad={w}:{h}:(ow-iw)/2:(oh-ih)/2:color={_hex(color)}',
                     w, h)


def expect_center(src, w, h, color):
    """Unscaled, centred: cropped where larger than the output, padded with color where not."""
    return _filtered(src, f'format=rgb24,crop=min(iw\\,{w}):min(ih\\,{h}),'
                          f'pad={w}:{h}:(ow-iw)/2:(oh-ih)/2:color={_hex(color)}', w, h)


def expect_tile(pixels, w, h):
    """Repeated from the output's top-left corner, one image pixel to one output pixel."""
    ih, iw = pixels.shape[:2]
    reps = (-(-h // ih), -(-w // iw), 1)
    return np.tile(pixels, reps)[:h, :w].copy()


def expect_solid(color, w, h):
    return np.broadcast_to(np.array(rgb(color), np.uint8), (h, w, 3)).copy()


def rgb(color):
    c = color.lstrip('#')
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))


# --- structure ---

# A coarse colour class from which channels are high (> 150): the test pictures are made of
# colours whose classes differ, with gradients that stay inside their class.
CLASS_NAMES = {0: 'black', 1: 'blue', 2: 'green', 3: 'cyan', 4: 'red', 5: 'magenta',
               6: 'yellow', 7: 'white'}


def blend_of(shot, old, new, max_off=2.0):
    """
    The a of a screenshot that is old*(1-a) + new*a everywhere, else None with the reason. a is
    fitted over the three channels (least squares); each channel may be off the fit by max_off,
    the rounding of 8-bit blending (the opacity and the result are each rounded: a channel that
    changes by 37 moves a by 0.027 a unit). A picture at either end (a outside 0.02 to 0.98) is
    no blend.
    """
    old = np.array(old, float)
    new = np.array(new, float)
    px = shot.reshape(-1, 3).astype(float)
    if not (px == px[0]).all():
        return None, f'not uniform: {np.unique(px, axis=0)[:4].tolist()}'
    p = px[0]
    d = new - old
    a = float(np.dot(p - old, d) / np.dot(d, d))
    off = float(np.abs(old + a * d - p).max())
    if off > max_off:
        return None, (f'pixel {p.tolist()} is no blend of {old.tolist()} and {new.tolist()} '
                      f'(a {a:.3f} leaves a channel off by {off:.1f})')
    if not 0.02 < a < 0.98:
        return None, f'pixel {p.tolist()} is at an end (a {a:.3f})'
    return a, ''


def colour_class(img):
    hi = img > 150
    return (hi[..., 0].astype(np.int8) * 4 + hi[..., 1] * 2 + hi[..., 2]).astype(np.int8)


def class_boundaries(cls):
    b = np.zeros(cls.shape, bool)
    dx = cls[:, 1:] != cls[:, :-1]
    dy = cls[1:, :] != cls[:-1, :]
    b[:, 1:] |= dx
    b[:, :-1] |= dx
    b[1:, :] |= dy
    b[:-1, :] |= dy
    return b


def sharp_edges(img, threshold):
    a = img.astype(np.int16)
    b = np.zeros(img.shape[:2], bool)
    dx = np.abs(a[:, 1:] - a[:, :-1]).max(axis=2) > threshold
    dy = np.abs(a[1:, :] - a[:-1, :]).max(axis=2) > threshold
    b[:, 1:] |= dx
    b[:, :-1] |= dx
    b[1:, :] |= dy
    b[:-1, :] |= dy
    return b


def dilate(mask, r):
    if r <= 0:
        return mask.copy()
    h, w = mask.shape
    out = mask.copy()
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            if dy == 0 and dx == 0:
                continue
            ys, yd = (slice(0, h - dy), slice(dy, h)) if dy >= 0 else \
                (slice(-dy, h), slice(0, h + dy))
            xs, xd = (slice(0, w - dx), slice(dx, w)) if dx >= 0 else \
                (slice(-dx, w), slice(0, w + dx))
            out[yd, xd] |= mask[ys, xs]
    return out


def bbox(mask, offset=0):
    """(x0, y0, x1, y1) inclusive, or None; offset is added to every coordinate."""
    ys = np.nonzero(mask.any(axis=1))[0]
    xs = np.nonzero(mask.any(axis=0))[0]
    if len(ys) == 0:
        return None
    return (int(xs[0]) + offset, int(ys[0]) + offset, int(xs[-1]) + offset,
            int(ys[-1]) + offset)


def solid_class(cls_map, cls):
    """Pixels of a class whose 3x3 neighbourhood is all of it: no blend along an edge."""
    m = cls_map == cls
    return ~dilate(~m, 1)


# --- media ---

def quadrant_pixels(w, h):
    """
    The test picture: four quadrants of distinct colour classes (top-left red, top-right
    green, bottom-left blue, bottom-right yellow) split off-centre, at 3/8 of the width and
    5/8 of the height, so that a flip, a rotation or a crop from the wrong side moves the
    split; each quadrant has gradients on its low channels (20..130 across x and down y) so
    that a scale or a crop shows in the pixels too.
    """
    sx, sy = w * 3 // 8, h * 5 // 8
    gx = (np.arange(w) * 110 // max(w - 1, 1)).astype(np.int16)[None, :].repeat(h, 0)
    gy = (np.arange(h) * 110 // max(h - 1, 1)).astype(np.int16)[:, None].repeat(w, 1)
    img = np.zeros((h, w, 3), np.int16)
    top, left = slice(0, sy), slice(0, sx)
    bottom, right = slice(sy, h), slice(sx, w)
    img[..., 0] = 20 + gx
    img[..., 1] = 20 + gy
    img[..., 2] = 20 + (gx + gy) // 2
    img[top, left, 0] = 220
    img[top, right, 1] = 200
    img[bottom, left, 2] = 220
    img[bottom, right, 0] = 230
    img[bottom, right, 1] = 200
    return img.astype(np.uint8)


def make_png(path, pixels):
    return write_png(path, pixels)


def make_jpeg(path, pixels, pix_fmt='yuvj420p'):
    """
    A high-quality JPEG of the pixels made with ffmpeg, 4:2:0 like most JPEGs. (GStreamer's
    jpegdec turns 4:4:4 and 4:2:2 JPEGs into I420 and smears colour across rows at sharp
    edges, so those would test GStreamer more than veil.)
    """
    h, w = pixels.shape[:2]
    _ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{w}x{h}', '-i', '-',
             '-frames:v', '1', '-pix_fmt', pix_fmt, '-q:v', '1', path],
            input=pixels.tobytes())
    os.chmod(path, 0o644)
    return path


def _encode(path, pixels, args, pix_fmt_in='rgb24'):
    h, w = pixels.shape[:2]
    _ffmpeg(['-f', 'rawvideo', '-pix_fmt', pix_fmt_in, '-s', f'{w}x{h}', '-i', '-',
             '-frames:v', '1'] + args + [path], input=np.ascontiguousarray(pixels).tobytes())
    os.chmod(path, 0o644)
    return path


def make_colour_clip(path, colours, fps, seconds_each, codec_args, size=(64, 48)):
    """
    A clip of solid colours one after the other (colours: (name, (r, g, b)) pairs), each
    fps * seconds_each frames, from raw frames through ffmpeg with codec_args (its codec and
    container options).
    """
    w, h = size
    frames = []
    for _, c in colours:
        frame = np.broadcast_to(np.array(c, np.uint8), (h, w, 3))
        frames += [frame] * int(round(fps * seconds_each))
    _ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{w}x{h}', '-r', str(fps),
             '-i', '-'] + codec_args + [path],
            input=np.ascontiguousarray(np.stack(frames)).tobytes())
    os.chmod(path, 0o644)
    return path


def make_avif(path, pixels):
    """A high-quality 4:4:4 AVIF still (ffmpeg and libaom), for libheif and dav1d to decode."""
    return _encode(path, pixels, ['-c:v', 'libaom-av1', '-still-picture', '1', '-pix_fmt',
                                  'yuv444p', '-crf', '10', '-cpu-used', '8', '-f', 'avif'])


def make_heic(path, pixels):
    """A HEIC (HEVC, 4:2:0 as cameras write them) made by libheif's heif-enc from a PNG."""
    png = write_png(path + '.png', pixels)
    r = subprocess.run(['heif-enc', '-q', '95', '-o', path, png], capture_output=True,
                       timeout=120)
    os.unlink(png)
    if r.returncode != 0:
        raise Failure(f'heif-enc {path}: {r.stderr.decode(errors="replace")}')
    os.chmod(path, 0o644)
    return path


def make_webp(path, pixels, lossless=False):
    quality = ['-lossless', '1'] if lossless else ['-quality', '95']
    return _encode(path, pixels, ['-c:v', 'libwebp'] + quality)


def make_animated_webp(path, pixels, then='blue'):
    """An animated WebP (looping): the pixels for half a second, then a plain colour."""
    h, w = pixels.shape[:2]
    _ffmpeg(['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', f'{w}x{h}', '-framerate', '2',
             '-i', '-', '-f', 'lavfi', '-i', f'color=c={then}:s={w}x{h}:r=2:d=1',
             '-filter_complex', '[0][1]concat=n=2', '-c:v', 'libwebp_anim', '-quality', '95',
             '-loop', '0', path], input=np.ascontiguousarray(pixels).tobytes())
    os.chmod(path, 0o644)
    return path


def make_tiff16(path, pixels):
    """A 16-bit RGB TIFF (each 8-bit sample v as v * 257): a layout GStreamer cannot take."""
    # Given as 16-bit samples: swscale's own 8 to 16 bits is v * 256.
    wide = pixels.astype('<u2') * 257
    return _encode(path, wide, ['-c:v', 'tiff', '-pix_fmt', 'rgb48le'], pix_fmt_in='rgb48le')


def still_decoders():
    """The decoders veil was built with beside libpng and GStreamer: {'heif', 'webp', 'tiff', ...}."""
    names = os.environ.get('VEIL_STILL_DECODERS')
    if names is None:
        return {'heif', 'webp', 'tiff'}
    return {n for n in names.split(',') if n}


def have_encoder(name):
    """Whether ffmpeg has the encoder, or name is a program on PATH (heif-enc)."""
    if shutil.which(name):
        return True
    r = subprocess.run(['ffmpeg', '-hide_banner', '-encoders'], capture_output=True,
                       timeout=60)
    return re.search(rf'^ \S+ {re.escape(name)} ', r.stdout.decode(errors='replace'),
                     re.M) is not None


def classify_colour(img, colours, tolerance):
    """
    Which of colours ((name, (r, g, b)) pairs) the middle of img (its central half each way)
    shows: the mean within tolerance of it in every channel and no channel spread over more
    than twice tolerance. Returns (its index or None, the mean pixel).
    """
    h, w = img.shape[:2]
    mid = img[h // 4:3 * h // 4, w // 4:3 * w // 4].reshape(-1, 3).astype(np.int16)
    mean = mid.mean(axis=0)
    spread = int((mid.max(axis=0) - mid.min(axis=0)).max())
    for i, (_, c) in enumerate(colours):
        if np.abs(mean - np.array(c)).max() <= tolerance and spread <= 2 * tolerance:
            return i, px(mean)
    return None, px(mean)


def colour_runs(samples):
    """
    Runs of one colour in samples ((time, colour index or None, ...) tuples; those of no colour
    left out): [colour index, first sample, last sample] lists.
    """
    runs = []
    for s in samples:
        if s[1] is None:
            continue
        if runs and runs[-1][0] == s[1]:
            runs[-1][2] = s
        else:
            runs.append([s[1], s, s])
    return runs


def png_chunks(data):
    """[(type, data)] of a PNG file's bytes."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, chunks = 8, []
    while pos + 8 <= len(data):
        n, = struct.unpack('>I', data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        chunks.append((kind, data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return chunks


def png_from_chunks(chunks):
    out = [b'\x89PNG\r\n\x1a\n']
    for kind, body in chunks:
        out.append(struct.pack('>I', len(body)) + kind + body +
                   struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))
    return b''.join(out)


def _write(path, data, mode=0o644):
    with open(path, 'wb') as f:
        f.write(data)
    os.chmod(path, mode)
    return path


def make_corrupt_png(path, good_png, first_block=True):
    """
    good_png with its image data damaged but every CRC right, so that only decoding finds
    it: the first deflate block of the (single) IDAT gets the reserved block type 3 (unless
    first_block is False: then decoding fails only halfway), and a run of bytes in the middle
    is inverted.
    """
    with open(good_png, 'rb') as f:
        chunks = png_chunks(f.read())
    idats = [i for i, (k, _) in enumerate(chunks) if k == b'IDAT']
    stream = bytearray(b''.join(chunks[i][1] for i in idats))
    if first_block:
        stream[2] |= 0x06      # BTYPE = 11: "invalid block type"
    mid = len(stream) // 2
    for i in range(mid, min(mid + 64, len(stream))):
        stream[i] ^= 0xff
    out = [c for i, c in enumerate(chunks) if i not in idats[1:]]
    out[idats[0]] = (b'IDAT', bytes(stream))
    return _write(path, png_from_chunks(out))


def make_truncated(path, good_file, fraction=0.6):
    with open(good_file, 'rb') as f:
        data = f.read()
    return _write(path, data[:int(len(data) * fraction)])


def make_unknown_fourcc_avi(path, colour=(40, 40, 220)):
    """
    An MPEG-4 part 2 AVI of one second of colour whose FourCC (stream handler and compression)
    is made "ZZZZ": no GStreamer decoder takes it (avidemux calls it video/x-avi-unknown).
    """
    tmp = path + '.tmp.avi'
    make_colour_clip(tmp, [('colour', colour)], 10, 1.0, ['-c:v', 'mpeg4', '-q:v', '3'])
    with open(tmp, 'rb') as f:
        data = f.read()
    os.unlink(tmp)
    movi = data.index(b'movi')
    head = data[:movi]
    if head.count(b'FMP4') < 2:
        raise Failure(f'ffmpeg wrote no FMP4 FourCC to patch: {head[:200]!r}')
    return _write(path, head.replace(b'FMP4', b'ZZZZ') + data[movi:])


def make_huge_png(path, width=100000, height=100000):
    """A PNG whose IHDR (valid CRC) claims width x height RGBA, with a tiny IDAT."""
    ihdr = struct.pack('>IIBBBBB', width, height, 8, 6, 0, 0, 0)
    idat = zlib.compress(b'\x00' + b'\x00' * 4 * 16)
    return _write(path, png_from_chunks([(b'IHDR', ihdr), (b'IDAT', idat), (b'IEND', b'')]))


def make_random(path, size=65536, seed=1234):
    return _write(path, random.Random(seed).randbytes(size))


def make_text(path):
    return _write(path, b'This is a text file, not a picture.\n' * 20)


def quote(path):
    """A path as one word of a sway command: quoted when it has more than plain characters."""
    if re.fullmatch(r'[A-Za-z0-9_./+=:@%-]+', path):
        return path
    if '"' in path or '\\' in path:
        raise ValueError(f'cannot quote {path!r} for a command')
    return '"' + path + '"'


# --- fast screenshots ---

def grim_ppm(c, output=None):
    """grim's capture of an output (None: the whole layout) through `grim -t ppm` on a pipe."""
    c.require_alive('grim')
    argv = ['grim', '-t', 'ppm'] + (['-o', output] if output else []) + ['-']
    try:
        r = subprocess.run(argv, env=c.client_env, capture_output=True, timeout=IPC_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Failure(f'{shlex.join(argv)} timed out: the compositor hangs')
    if r.returncode != 0:
        raise Failure(f'{shlex.join(argv)} failed ({r.returncode}): '
                      f'{r.stderr.decode(errors="replace").strip()}')
    m = re.match(rb'P6\s+(\d+)\s+(\d+)\s+(\d+)\s', r.stdout)
    if not m or m.group(3) != b'255':
        raise Failure(f'grim wrote no 8-bit PPM: {r.stdout[:40]!r}')
    w, h = int(m.group(1)), int(m.group(2))
    data = r.stdout[m.end():m.end() + w * h * 3]
    if len(data) != w * h * 3:
        raise Failure(f'grim: {len(data)} bytes of pixels for {w}x{h}')
    return np.frombuffer(data, np.uint8).reshape(h, w, 3).copy()


def grab(c, output):
    """A screenshot through `grim -t ppm` on a pipe (for sampling): what c.screenshot() takes."""
    return grim_ppm(c, output)


# --- a fullscreen client ---

def window_client(c, log_path, colour, w, h):
    """fullscreen_client() as a window of w x h, where the compositor places it."""
    return fullscreen_client(c, log_path, colour, w, h, fullscreen=False)


@contextlib.contextmanager
def fullscreen_client(c, log_path, colour, w, h, fmt=None, fullscreen=True):
    """
    GStreamer's `videotestsrc ! waylandsink fullscreen=true` as a client of c: an opaque solid
    colour (an (r, g, b)) at w x h, 10 frames a second, its output in log_path. With fmt (e.g.
    'BGRx') the caps name that format and the buffers go to waylandsink as they are; without,
    through videoconvert. Yields the process; on leaving, ends it by its PID (its own process
    group: it leads it).
    """
    caps = 'video/x-raw,' + (f'format={fmt},' if fmt else '') + \
        f'width={w},height={h},framerate=10/1'
    argv = ['gst-launch-1.0', '-q', 'videotestsrc', 'pattern=solid-color',
            'foreground-color=0xff%02x%02x%02x' % tuple(colour), '!', caps, '!'] + \
        ([] if fmt else ['videoconvert', '!']) + \
        ['waylandsink', f'fullscreen={"true" if fullscreen else "false"}']
    log = open(log_path, 'wb')
    client = subprocess.Popen(argv, env=c.client_env, stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield client
    finally:
        if client.poll() is None:
            os.killpg(client.pid, signal.SIGTERM)
            try:
                client.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(client.pid, signal.SIGKILL)
                client.wait()
        log.close()


class StatusWatch:
    """
    `veilctl status --watch --json` as a client of c: each line it prints, parsed, with the
    time.monotonic() it arrived at, in a queue (lines). A line describes every output, as the
    control protocol sends it on each change.
    """

    def __init__(self, veilctl, env):
        self.proc = subprocess.Popen([veilctl, 'status', '--watch', '--json'], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                self.lines.put((time.monotonic(), json.loads(line)))
            except ValueError:
                self.lines.put((time.monotonic(), {'unparsed': line}))

    def drain(self):
        """The lines so far, taken out of the queue."""
        got = []
        while not self.lines.empty():
            got.append(self.lines.get())
        return got

    def shown_after(self, c, output, words, path, timeout=30):
        """
        Sends `output OUTPUT veil WORDS` (which show path) and waits for the line that shows
        path on output: (milliseconds from just before the command to that line, the output's
        status). Raises RuntimeError on the output's error, or when nothing came in timeout.
        """
        self.drain()
        t0 = time.monotonic()
        ok, err = c.msg(f'output {output} veil {words}')
        if not ok:
            raise RuntimeError(err)
        deadline = t0 + timeout
        while time.monotonic() < deadline:
            try:
                at, d = self.lines.get(timeout=deadline - time.monotonic())
            except queue.Empty:
                break
            o = d.get(output) or {}
            if o.get('state') == 'shown' and o.get('file') == path:
                return (at - t0) * 1000, o
            if o.get('error'):
                raise RuntimeError(o['error'])
        raise RuntimeError(f'no frame within {timeout} s')

    def error_naming(self, output, name, timeout):
        """The first error of output that names name, within timeout; or None."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                _, d = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            err = (d.get(output) or {}).get('error')
            if isinstance(err, str) and name in err:
                return err
        return None

    def stop(self):
        stop_process(self.proc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def require_running(client, log_path):
    """Raises Failure, with its log's tail, when a client started by the test has exited."""
    if client.poll() is not None:
        raise Failure(f'the client exited ({client.returncode}): ' + _tail(log_path))


# --- a client of another user ---

# What runs a client as nobody (uid and gid 65534, no groups): root only.
OTHER_USER = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--']


def can_run_as_other_user():
    return os.geteuid() == 0 and shutil.which('setpriv') is not None


@contextlib.contextmanager
def socket_open_to_others(c):
    """
    Lets every user reach c's Wayland socket, as a misconfigured session might: its runtime
    directory mode 0711 and the socket 0777 until the block ends. Yields the socket's path.
    """
    sock = os.path.join(c.runtime, c.wayland_display)
    old_dir, old_sock = os.stat(c.runtime).st_mode, os.stat(sock).st_mode
    os.chmod(c.runtime, 0o711)
    os.chmod(sock, 0o777)
    try:
        yield sock
    finally:
        os.chmod(c.runtime, old_dir & 0o7777)
        os.chmod(sock, old_sock & 0o7777)


# --- a GPU reset on demand, for the sway and labwc tests ---

LOSE_RENDERER_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                 'integration', 'lose-renderer.c')


def build_lose_renderer(t, wlroots_pc='wlroots-0.20'):
    """
    Builds tests/integration/lose-renderer.c into the output directory: a library that a
    compositor preloads so that SIGUSR2 makes its renderer emit "lost" (see the file). Returns
    its path, or None after a failed check.
    """
    cc = shutil.which('cc') or shutil.which('gcc') or shutil.which('clang')
    if not t.check(cc, 'a C compiler builds the library that loses the renderer'):
        return None
    r = subprocess.run(['pkg-config', '--cflags', wlroots_pc, 'wayland-server'],
                       capture_output=True, text=True, timeout=60)
    if not t.check(r.returncode == 0, f'pkg-config finds {wlroots_pc} and wayland-server',
                   r.stderr.strip()):
        return None
    out = t.path('lose-renderer.so')
    argv = [cc, '-shared', '-fPIC', '-Wall', '-Wextra', '-DWLR_USE_UNSTABLE', '-o', out,
            LOSE_RENDERER_SRC] + shlex.split(r.stdout)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if not t.check(r.returncode == 0 and not r.stderr.strip(),
                   'the renderer-loss library builds without a warning',
                   f'{shlex.join(argv)}: {r.stderr[-1500:]}'):
        return None
    return out
