#!/usr/bin/env python3
"""
The soaks' pass/fail rules on series whose answer is known: a soak that passes says something
only if the same rule fails on a leak. Runs in a second (meson test --suite bench).
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # veiltest
from veiltest import bench as bl  # noqa: E402

failures = 0


def expect(ok, what):
    global failures
    print(('ok: ' if ok else 'FAIL: ') + what)
    if not ok:
        failures += 1


def halves_pass(ys, limit=0.05):
    """
    soak.py's thread and heap rule over a window sampled once a second, rises per minute: it
    fails when both halves of the window rise.
    """
    xs = [i / 60.0 for i in range(len(ys))]
    return bl.halves_pass(xs, ys, limit)[0]


def steps(n, base, at):
    """n samples at base, one more from each index in at."""
    return [base + sum(1 for a in at if i >= a) for i in range(n)]


def main():
    rnd = random.Random(4)
    n = 144  # the short loop soak's window: 180 s without its first fifth
    expect(halves_pass([8] * n), 'a flat count passes')
    expect(halves_pass([8 + rnd.randint(0, 1) for _ in range(n)]),
           'a count flickering between 8 and 9 passes')
    for at in (10, 40, 72, 100, 140):
        expect(halves_pass(steps(n, 8, [at])), f'one step up at sample {at} of {n} passes')
    expect(halves_pass([8] * 50 + [9 + rnd.randint(0, 1) for _ in range(n - 50)]),
           'one step, then flickering, passes')
    expect(not halves_pass(list(range(8, 8 + n))), 'a thread a second (a leak per loop) fails')
    expect(not halves_pass(steps(n, 8, range(0, n, 30))), 'a thread every 30 s fails')
    expect(not halves_pass(steps(n, 8, [20, 100])),
           'two steps, one in each half of the window, fail')
    expect(not halves_pass([v + rnd.randint(0, 1) for v in steps(n, 8, range(5, n, 20))]),
           'a thread every 20 s under flicker fails')

    # The bounds test alone (heap, descriptors): kept memory raises both bounds, a level that
    # jumps between two values raises one.
    xs = [i / 60.0 for i in range(n)]
    kept, _, _ = bl.bounds_rise(xs, [1000 + 2 * i for i in range(n)])
    expect(kept > 100, f'memory kept every second: {kept:.0f} KiB a minute')
    jumpy, lo, hi = bl.bounds_rise(xs, [1000 + 5000 * rnd.randint(0, 1) for _ in range(n)])
    expect(jumpy == 0, f'a heap jumping between two levels: {jumpy:.0f} KiB a minute '
                       f'(bounds {lo:+d}/{hi:+d})')

    # A slideshow's heap holds one to three 8 MiB pictures: when the first quarter saw all
    # three levels and the last only the middle one, the bounds move apart by about as much
    # (a CI run: +8028 / -8044 KiB), and the nearer-to-zero rule once took the rise.
    q = n // 4
    apart = [20000 + 8000 * (i % 3) for i in range(n - q)] + [27990 + 10 * (i % 2)
                                                             for i in range(q)]
    spread, lo, hi = bl.bounds_rise(xs, apart)
    expect(spread <= 0, f'bounds moving apart: {spread:.0f} KiB a minute (bounds {lo:+d}/{hi:+d})')
    cycling = [20000 + 8000 * (i % 3) + 4 * i for i in range(n)]
    kept_cycling, lo, hi = bl.bounds_rise(xs, cycling)
    expect(kept_cycling > 100, f'memory kept under the same cycle: {kept_cycling:.0f} KiB a '
                               f'minute (bounds {lo:+d}/{hi:+d})')

    # The heap rule over each half (limit 8 KiB a minute), in 4 KiB pages: the short slideshow
    # soak's window (240 s without its first fifth) around 5.4 MiB.
    n = 192
    for at in (5, 60, 96, 150, 190):
        expect(halves_pass(steps(n, 5560, [at] * 32), 8),
               f'the heap taking 32 KiB once, at sample {at} of {n}, passes')
    expect(halves_pass([5560 + 4 * rnd.randint(0, 2) for _ in range(n)], 8),
           'a heap flickering by two pages passes')
    expect(not halves_pass([5560 + 4 * (i * 16 // 240) for i in range(n)], 8),
           'the heap keeping 16 KiB a minute, a page at a time, fails')
    expect(not halves_pass(steps(n, 5560, [40] * 32 + [140] * 32), 8),
           'the heap taking 32 KiB twice, once in each half, fails')

    appeared, gone = bl.names_diff('a;b;pool-0', 'a;b;b;pool-0;pool-1')
    expect((appeared, gone) == ('b, pool-1', 'none'), f'names appeared {appeared}, gone {gone}')
    appeared, gone = bl.names_diff('a;q:src;q:src', 'a')
    expect((appeared, gone) == ('none', 'q:src x2'), f'names appeared {appeared}, gone {gone}')

    print(f'{failures} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
