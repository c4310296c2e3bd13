"""
veiltest.fault: what the fault tests add to the package's Test, Compositor, msg and
screenshot helpers:

  - the compositor's resources from /proc: resident memory, open descriptors, CPU time;
  - Bounded, which records them around rounds of a fault and checks that the later rounds
    grow neither (a leak grows every round; a cache or an allocator's arena grows once);
  - a raw sway IPC client, for what swaymsg never sends (bad magic, huge lengths, truncated
    messages, clients that vanish or never read);
  - still_shows(), which tells whether an output still shows the wallpaper it was given.
"""
import json
import os
import time

import veiltest as vt
from .ipc import MAGIC as IPC_MAGIC, Ipc
from .ipc import GET_OUTPUTS as IPC_GET_OUTPUTS, GET_VERSION as IPC_GET_VERSION  # noqa: F401
from .ipc import RUN_COMMAND as IPC_COMMAND  # noqa: F401
from .proc import cpu_seconds, fd_count, rss_kb, sanitized, thread_count  # noqa: F401


# --- the compositor's resources ---

def compositor_env():
    """
    The environment the fault tests give the compositor. glibc gives each thread that allocates
    an arena of its own and keeps what the arenas once held: GStreamer's streaming threads come
    and go with each video, and the resident size then climbs by a few MiB a round for many
    rounds without a byte leaked (LeakSanitizer finds nothing; with one arena it stays flat).
    One arena makes the memory a fault leaves behind show as growth and nothing else does.
    VEIL_FAULT_ARENAS=default measures glibc's default instead (docs/reliability.md has both).
    """
    if os.environ.get('VEIL_FAULT_ARENAS') == 'default':
        return {}
    return {'GLIBC_TUNABLES': 'glibc.malloc.arena_max=1'}


class Bounded:
    """
    Samples a process's memory, descriptors and threads after each round of a fault. The first
    round may grow them (caches, allocator arenas, a GStreamer plugin loaded once); check() then
    asks that the last rounds stay within slack of the first.
    """

    def __init__(self, test, pid, what):
        self.test = test
        self.pid = pid
        self.what = what
        self.sanitized = sanitized(pid)
        self.start = self.sample()
        self.rounds = []
        vt._say(f'   {what}: start {self._fmt(self.start)}')

    def sample(self):
        # Descriptors: the fewest over a second. A helper being reaped or a job finishing
        # holds one for a moment after a round; a leak holds it for good.
        targets = vt.fd_targets(self.pid)
        for _ in range(10):
            time.sleep(0.1)
            now = vt.fd_targets(self.pid)
            if len(now) <= len(targets):
                targets = now
        return {'rss_kb': rss_kb(self.pid), 'fds': len(targets), 'targets': targets,
                'threads': thread_count(self.pid)}

    @staticmethod
    def _fmt(s):
        return f'RSS {s["rss_kb"] / 1024:.1f} MiB, {s["fds"]} fds, {s["threads"]} threads'

    def round_done(self, label):
        s = self.sample()
        self.rounds.append((label, s))
        vt._say(f'   {self.what}: after {label}: {self._fmt(s)}{self._added(s)}')
        return s

    def _added(self, s):
        """The descriptors s holds that the start did not, by what they are."""
        added = sorted(f'{fd} {path}' for fd, path in s['targets'].items()
                       if self.start['targets'].get(fd) != path)
        return ' (since the start: ' + ', '.join(added) + ')' if added else ''


    def check(self, rss_slack_mb=24, fd_slack=2, thread_slack=2):
        t = self.test
        if len(self.rounds) < 2:
            return t.fail(f'{self.what}: bounded', 'fewer than two rounds measured')
        first = self.rounds[0][1]
        last = self.rounds[-1][1]
        peak = max(s['rss_kb'] for _, s in self.rounds[1:])
        grew = (peak - first['rss_kb']) / 1024
        if self.sanitized:
            # AddressSanitizer holds freed memory back (its quarantine) and adds shadow
            # memory: the resident size says nothing there. LeakSanitizer checks at exit.
            vt._say(f'   {self.what}: memory +{grew:.1f} MiB under AddressSanitizer, not '
                    f'checked (LeakSanitizer runs when the compositor exits)')
        else:
            t.check(grew <= rss_slack_mb,
                    f'{self.what}: memory bounded (first round {first["rss_kb"] / 1024:.1f} '
                    f'MiB, later rounds at most {peak / 1024:.1f} MiB: +{grew:.1f} MiB, slack '
                    f'{rss_slack_mb} MiB)',
                    ', '.join(f'{label}: {s["rss_kb"] / 1024:.1f}' for label, s in self.rounds))
        t.check(last['fds'] <= self.start['fds'] + fd_slack,
                f'{self.what}: descriptors back to {self.start["fds"]} (+{fd_slack}): '
                f'{last["fds"]}',
                ', '.join(f'{label}: {s["fds"]}' for label, s in self.rounds) +
                self._added(last))
        t.check(last['threads'] <= max(s['threads'] for _, s in self.rounds[:1]) + thread_slack,
                f'{self.what}: threads bounded: {last["threads"]}',
                ', '.join(f'{label}: {s["threads"]}' for label, s in self.rounds))
        return grew


# --- raw IPC ---

class RawClient(Ipc):
    """One connection to the IPC socket, speaking (or mangling) sway's framing: request()
    answers (type, payload bytes)."""

    def __init__(self, path, timeout=10.0):
        super().__init__(path, timeout)

    request = Ipc.exchange


def ipc_alive(c):
    """The compositor answers GET_VERSION on a fresh connection, with JSON."""
    r = RawClient(c.swaysock)
    try:
        kind, payload = r.request(IPC_GET_VERSION)
        return kind == IPC_GET_VERSION and isinstance(json.loads(payload), dict)
    finally:
        r.close()


# --- pictures ---

def still_shows(c, output, expected, label, **cmp):
    """The output's picture (settled) matches expected; records the check."""
    return c.test.compare(c.settled_screenshot(output), expected, label, **cmp)


def classes_present(img, classes=(4, 2, 1, 6)):
    """The quadrant picture's colour classes (red, green, blue, yellow) are all on screen."""
    cls = vt.colour_class(img)
    return all(int((cls == k).sum()) > img.shape[0] * img.shape[1] // 50 for k in classes)


def wait_frames(c, output, more, what, timeout=60):
    """Waits until the output's frame counter has grown by more; returns the new count."""
    start = c.veil(output).get('frames', 0)
    c.wait_until(lambda: c.veil(output).get('frames', 0) >= start + more, what,
                 timeout=timeout)
    return c.veil(output).get('frames', 0)


def make_video(path, seconds=2, size='320x240', rate=25, pattern=None):
    """An H.264 MP4 of the quadrant picture (or an ffmpeg lavfi source), ffmpeg-made."""
    if pattern is None:
        w, h = (int(v) for v in size.split('x'))
        still = path + '.png'
        vt.make_png(still, vt.quadrant_pixels(w, h))
        src = ['-loop', '1', '-framerate', str(rate), '-i', still]
    else:
        src = ['-f', 'lavfi', '-i', f'{pattern}=size={size}:rate={rate}']
    vt._ffmpeg(src + ['-t', str(seconds), '-c:v', 'libx264', '-preset', 'veryfast',
                      '-g', str(rate), '-pix_fmt', 'yuv420p', '-movflags', '+faststart', path])
    os.chmod(path, 0o644)
    return path


def elapsed(start):
    return f'{time.monotonic() - start:.1f} s'
