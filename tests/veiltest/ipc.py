"""
ipc: one connection to a sway-IPC socket (veil-tinywl's or sway's), the i3-ipc framing that
swaymsg speaks. The benches keep one open so that a status query costs the compositor one
request and not a connection; the fault tests also send what swaymsg never does (bad magic,
huge lengths, truncated messages) through send_raw().
"""
import json
import socket
import struct
import time

from .base import IPC_TIMEOUT, Failure

MAGIC = b'i3-ipc'
RUN_COMMAND, GET_OUTPUTS, GET_TREE, GET_VERSION = 0, 3, 4, 7


class Closed(Failure, EOFError):
    """The compositor closed the connection."""


class BadReply(Failure, ValueError):
    """A reply without the i3-ipc magic."""


class Ipc:
    def __init__(self, path, timeout=IPC_TIMEOUT):
        self.path = path
        self.requests = 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        # A full listen backlog answers EAGAIN at once (swaymsg's blocking connect waits):
        # wait for the compositor to accept, as swaymsg would, but not forever.
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock.connect(path)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    self.sock.close()
                    raise
                time.sleep(0.005)

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, kind, payload=b''):
        if isinstance(payload, str):
            payload = payload.encode()
        self.send_raw(MAGIC + struct.pack('=II', len(payload), kind) + payload)

    def _recv_exact(self, n):
        buf = b''
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise Closed(f'{self.path}: connection closed after {len(buf)} of {n} bytes')
            buf += chunk
        return buf

    def recv(self):
        """(type, payload) of the next reply."""
        head = self._recv_exact(14)
        if head[:6] != MAGIC:
            raise BadReply(f'{self.path}: bad magic in reply: {head[:6]!r}')
        length, kind = struct.unpack('=II', head[6:])
        return kind, self._recv_exact(length)

    def exchange(self, kind, payload=b''):
        """One request; (type, payload) of its reply."""
        self.send(kind, payload)
        self.requests += 1
        return self.recv()

    def request(self, kind, payload=''):
        """One request; its reply's JSON."""
        return json.loads(self.exchange(kind, payload)[1])

    def command(self, cmd):
        """Runs a command; returns (ok, error text)."""
        reply = self.request(RUN_COMMAND, cmd)
        errors = [r.get('error', 'failed') for r in reply if not r.get('success')]
        return not errors, '; '.join(errors)

    def must(self, cmd):
        ok, err = self.command(cmd)
        if not ok:
            raise Failure(f'{cmd!r} failed: {err}')

    def outputs(self):
        return {o['name']: o for o in self.request(GET_OUTPUTS)}

    def closed_by_peer(self, timeout=5.0):
        """Whether the compositor closes the connection within timeout (reading what comes)."""
        self.sock.settimeout(timeout)
        try:
            while True:
                if not self.sock.recv(65536):
                    return True
        except socket.timeout:
            return False
        except (ConnectionResetError, BrokenPipeError):
            return True

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
