#!/usr/bin/env python3
"""
Malformed IPC while a wallpaper is shown: bad magic, lengths up to 4 GiB, messages cut short
in the header or the payload, a client that stalls mid-message, unknown types, garbage and
invalid UTF-8 in commands, a megabyte of words, a thousand commands in one message, a client
that never reads its replies, random bytes, and 1000 clients connecting and leaving (in turn,
64 at once, and leaving before their reply). After each: the compositor is up and answers, the
wallpaper is pixel-identical, and its memory, descriptors and threads stay bounded.
"""
import json
import os
import random
import socket
import struct
import threading
import time

from veiltest import fault as fl  # noqa: E402

vt = fl.vt
t = vt.Test('fault-ipc')
OUT = 'HEADLESS-1'
png = vt.make_png(os.path.join(t.media, 'quad-800x600.png'), vt.quadrant_pixels(800, 600))
counts = {}  # what was tried, for the summary line and docs/reliability.md


def tried(what, n=1):
    counts[what] = counts.get(what, 0) + n


with t.compositor(outputs=1, env=fl.compositor_env()) as c:
    pid = c.proc.pid
    with t.case('setup'):
        ok, err = c.msg(f'output {OUT} veil {png} fill')
        t.check(ok, 'wallpaper set', err)
        c.wait_veil(OUT, 'shown', file=png)
        baseline = c.settled_screenshot(OUT)
    bounded = fl.Bounded(t, pid, 'ipc')

    def intact(label):
        """Up, answering, and the same picture."""
        t.check(c.alive(), f'{label}: compositor up')
        t.check(fl.ipc_alive(c), f'{label}: answers GET_VERSION')
        v = c.veil(OUT)
        t.check(v.get('state') == 'shown' and v.get('file') == png,
                f'{label}: wallpaper still set', str(v))
        t.compare(c.screenshot(OUT), baseline, f'{label}-unchanged', tolerance=0,
                  ignore_border=0)

    def dropped(label, data, expect_close=True):
        r = fl.RawClient(c.swaysock)
        try:
            r.send_raw(data)
            closed = r.closed_by_peer(timeout=5)
        except (BrokenPipeError, ConnectionResetError):
            closed = True
        finally:
            r.close()
        tried(label)
        if expect_close:
            t.check(closed, f'{label}: the compositor drops the client')
        return closed

    def run_round(n):
        with t.case(f'round {n}: bad framing'):
            header = struct.pack('=II', 0, fl.IPC_GET_VERSION)
            dropped('bad magic', b'i3-IPC' + header)
            dropped('magic of zeros', b'\0' * 14)
            dropped('length 0xffffffff', fl.IPC_MAGIC + struct.pack('=II', 0xffffffff, 0))
            dropped('length 1 MiB + 1', fl.IPC_MAGIC + struct.pack('=II', (1 << 20) + 1, 0))
            # Cut short: the client goes away mid-header and mid-payload.
            for cut in (1, 6, 9, 13):
                r = fl.RawClient(c.swaysock)
                r.send_raw((fl.IPC_MAGIC + header)[:cut])
                r.close()
                tried('header cut short')
            for have in (0, 1, 1000):
                r = fl.RawClient(c.swaysock)
                r.send_raw(fl.IPC_MAGIC + struct.pack('=II', 4096, 0) + b'x' * have)
                r.close()
                tried('payload cut short')
            # A full 1 MiB length announced and a few bytes sent, the connection kept.
            r = fl.RawClient(c.swaysock)
            r.send_raw(fl.IPC_MAGIC + struct.pack('=II', 1 << 20, 0) + b'output')
            tried('1 MiB announced, 6 bytes sent')
            intact('framing')
            r.close()

        with t.case(f'round {n}: a client stalled mid-message'):
            stalled = fl.RawClient(c.swaysock)
            stalled.send_raw(fl.IPC_MAGIC + struct.pack('=I', 100)[:2])
            start = time.monotonic()
            ok, err = c.msg(f'output {OUT} veil {png} fill')
            took = time.monotonic() - start
            t.check(ok and took < 10, f'another client is served meanwhile ({took:.2f} s)',
                    err)
            stalled.close()
            tried('stalled client')

        with t.case(f'round {n}: odd messages on a live connection'):
            r = fl.RawClient(c.swaysock)
            try:
                r.send(12345, b'{}')  # unknown type: no reply, as sway
                r.send(0xffffffff, b'')
                kind, payload = r.request(fl.IPC_GET_VERSION)
                t.check(kind == fl.IPC_GET_VERSION,
                        'unknown types get no reply; the next request is answered')
                tried('unknown message type', 2)
                for label, payload in (
                        ('NUL bytes in a command', b'output * veil a\0b.png'),
                        ('invalid UTF-8 in a command', b'output \xff\xfe veil \xc3(.png'),
                        ('control characters', b'output * veil \x1b[31m\x07.png'),
                        ('empty command', b''),
                        ('only separators', b';;;,,,'),
                        ('unbalanced quotes', b'output "* veil \'a.png'),
                        ('a megabyte of words', b'output * veil ' + b'w ' * 500000),
                        ('1000 commands in one message',
                         b';'.join([b'output ' + OUT.encode() + b' veil /nonexistent.png'] *
                                   1000)),
                        ('JSON as a command', b'{"output": ["*", "veil"]}')):
                    kind, reply = r.request(fl.IPC_COMMAND, payload)
                    # JSON is UTF-8: what a client quoted must come back valid, whatever it
                    # sent (a strict parser refuses the whole reply otherwise).
                    try:
                        text = reply.decode('utf-8')
                        utf8 = True
                    except UnicodeDecodeError as e:
                        text = reply.decode('utf-8', 'replace')
                        utf8 = str(e)
                    try:
                        parsed = json.loads(text)
                        valid = isinstance(parsed, list) and all(
                            isinstance(x, dict) and 'success' in x for x in parsed)
                    except ValueError:
                        valid = False
                    t.check(kind == fl.IPC_COMMAND and valid,
                            f'{label}: a JSON reply ({len(reply)} bytes)', repr(reply[:200]))
                    t.check(utf8 is True, f'{label}: the reply is valid UTF-8',
                            f'{utf8}: {reply[:200]!r}')
                    tried(label)
                for payload in (b'[', b'["tick", 1, null, {}]', b'"output"', b'\xff' * 64):
                    kind, reply = r.request(2, payload)  # SUBSCRIBE with odd JSON
                    t.check(kind == 2 and b'success' in reply,
                            f'SUBSCRIBE {payload[:20]!r}: answered', repr(reply[:200]))
                    tried('odd SUBSCRIBE payload')
            finally:
                r.close()
            # The failed `veil /nonexistent.png` commands leave the wallpaper; put it back
            # to be sure the status names it (they set the error).
            ok, err = c.msg(f'output {OUT} veil {png} fill')
            t.check(ok, 'the wallpaper set again clears the error', err)
            intact('odd messages')

        with t.case(f'round {n}: a file name that is not UTF-8'):
            # Linux names are bytes: a Latin-1 name is a real file that can be shown, and
            # every client of GET_OUTPUTS (bars, scripts) then reads its status.
            latin1 = os.path.join(os.fsencode(t.media), b'caf\xe9-' + str(n).encode() + b'.png')
            with open(png, 'rb') as src, open(latin1, 'wb') as dst:
                dst.write(src.read())
            r = fl.RawClient(c.swaysock)
            try:
                kind, reply = r.request(fl.IPC_COMMAND, b'output ' + OUT.encode() +
                                        b' veil "' + latin1 + b'" fill')
                t.check(b'"success":true' in reply, 'a Latin-1 file name is shown',
                        repr(reply[:300]))
                kind, reply = r.request(fl.IPC_GET_OUTPUTS)
                try:
                    json.loads(reply.decode('utf-8'))
                    problem = None
                except (UnicodeDecodeError, ValueError) as e:
                    problem = f'{e}: ...{reply[max(0, reply.find(b"caf") - 40):][:120]!r}'
                t.check(problem is None, 'GET_OUTPUTS stays valid UTF-8 JSON', str(problem))
                tried('file name that is not UTF-8')
            finally:
                r.close()
            os.unlink(latin1)
            ok, err = c.msg(f'output {OUT} veil {png} fill')
            t.check(ok, 'the wallpaper set again', err)
            # Its decode may come after the reply (the source was freed with the last switch).
            c.wait_veil(OUT, 'shown', file=png)
            intact('not UTF-8')

        with t.case(f'round {n}: a client that never reads'):
            r = fl.RawClient(c.swaysock)
            r.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sent = 0
            dropped_it = False
            start = time.monotonic()
            try:
                # Each GET_OUTPUTS reply is a few KiB: the queue limit (4 MiB) comes first.
                for sent in range(1, 20001):
                    r.send(fl.IPC_GET_OUTPUTS)
                    if time.monotonic() - start > 60:
                        break
            except (BrokenPipeError, ConnectionResetError, socket.timeout):
                dropped_it = True
            if not dropped_it:
                dropped_it = r.closed_by_peer(timeout=10)
            r.close()
            tried('requests from a client that never reads', sent)
            t.check(dropped_it, f'dropped after {sent} unread requests ({fl.elapsed(start)})')
            intact('never reads')

        with t.case(f'round {n}: random bytes'):
            rng = random.Random(n)
            for i in range(200):
                r = fl.RawClient(c.swaysock)
                try:
                    data = rng.randbytes(rng.choice((1, 13, 14, 15, 100, 5000)))
                    if i % 2:
                        data = fl.IPC_MAGIC + data  # past the magic, into the lengths
                    r.send_raw(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    r.close()
            tried('connections sending random bytes', 200)
            intact('random bytes')

        with t.case(f'round {n}: 1000 clients connecting and leaving'):
            start = time.monotonic()
            for i in range(400):
                r = fl.RawClient(c.swaysock)
                r.close()
            tried('clients connecting and leaving at once', 400)
            for i in range(300):
                r = fl.RawClient(c.swaysock)
                r.send(fl.IPC_GET_VERSION)  # and leave before the reply
                r.close()
            tried('clients leaving before their reply', 300)
            refused = []

            def burst():
                socks = []
                for _ in range(75):
                    try:
                        socks.append(fl.RawClient(c.swaysock))
                    except OSError as e:
                        refused.append(repr(e))
                for r in socks[::3]:
                    try:
                        r.send(fl.IPC_GET_VERSION)
                    except OSError as e:  # one the compositor closed: over its limit
                        refused.append(repr(e))
                for r in socks:
                    r.close()
            threads = [threading.Thread(target=burst) for _ in range(4)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            tried('clients connected at once (4 x 75, over the limit of 64)', 300)
            vt._say(f'   1000 clients came and went in {fl.elapsed(start)}; {len(refused)} of '
                    f'the 300 at once were refused or cut ({", ".join(sorted(set(refused)))})')
            # The compositor closes what it refuses: wait for its descriptors to settle.
            c.wait_until(lambda: vt.fd_count(pid) <= bounded.start['fds'] + 2,
                         'descriptors back to where they were', timeout=30)
            intact('1000 clients')

        bounded.round_done(f'round {n}')

    for n in range(1, 4):
        run_round(n)
    with t.case('bounded'):
        bounded.check()

vt._say('tried: ' + '; '.join(f'{k}: {v}' for k, v in counts.items()))
t.finish()
