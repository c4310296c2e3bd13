"""
What every module of the package shares: the failure a check cannot go on after, the bounds
of waiting, how a log's tail and an exit status are told.
"""
import signal

# Generous bounds: a loaded 2-core CI machine must never turn a slow start into a failure.
READY_TIMEOUT = 90.0
IPC_TIMEOUT = 60.0
WAIT_TIMEOUT = 60.0
EXIT_TIMEOUT = 30.0


class Failure(Exception):
    """A check that cannot go on (its message says why). The benches call it BenchError."""


def say(*args):
    print(*args, flush=True)


def tail(path, lines=40):
    """The last lines of a log, or why it cannot be read."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        return f'(cannot read {path}: {e})'
    text = data.decode('utf-8', 'replace').splitlines()
    return '\n'.join(text[-lines:])


def describe_status(rc):
    if rc is None:
        return 'still running'
    if rc < 0:
        try:
            return f'killed by {signal.Signals(-rc).name}'
        except ValueError:
            return f'killed by signal {-rc}'
    return f'exit status {rc}'
