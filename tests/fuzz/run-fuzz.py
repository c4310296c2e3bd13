#!/usr/bin/env python3
"""
Runs one libFuzzer target the way CI does (meson test --suite fuzz):

 1. replays every seed and every regression input, each in a process of its own, so that one
    failure names its input and the others still run;
 2. fuzzes for VEIL_FUZZ_SECONDS (default 60; 0 skips this step) from a fresh copy of the
    seeds and regressions, with the target's dictionary. A crash, a leak, a timeout or an
    out-of-memory fails the test: the input is kept under <workdir>/artifacts/ and printed as
    base64, with the command that reproduces it.

Prints `N passed, N failed` last and exits 1 on any failure.

    run-fuzz.py --fuzzer EXE --seeds DIR --regressions DIR [--dict FILE] --workdir DIR
                [-- LIBFUZZER ARGS...]

Environment: VEIL_FUZZ_SECONDS, VEIL_FUZZ_ARGS (more libFuzzer arguments for step 2, e.g.
"-jobs=2"); ASAN_OPTIONS, LSAN_OPTIONS and UBSAN_OPTIONS are completed, not replaced.
"""
import argparse
import base64
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LSAN_SUPP = os.path.normpath(os.path.join(HERE, '..', 'sanitizers', 'lsan.supp'))


def say(*args):
    print(*args, flush=True)


def add_options(env, name, options):
    """Adds options to a sanitizer's variable unless it already sets them."""
    have = env.get(name, '')
    keys = {kv.split('=', 1)[0] for kv in re.split(r'[: ]', have) if kv}
    extra = [f'{k}={v}' for k, v in options.items() if k not in keys]
    env[name] = ':'.join(([have] if have else []) + extra)


def inputs(directory):
    if not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, f) for f in os.listdir(directory)
                  if not f.startswith('.') and not f.startswith('README') and
                  os.path.isfile(os.path.join(directory, f)))


def tail(text, lines=60):
    return '\n'.join(text.splitlines()[-lines:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--fuzzer', required=True)
    parser.add_argument('--seeds', required=True)
    parser.add_argument('--regressions', required=True)
    parser.add_argument('--dict')
    parser.add_argument('--workdir', required=True)
    parser.add_argument('extra', nargs='*')
    args = parser.parse_args()

    seconds = int(os.environ.get('VEIL_FUZZ_SECONDS', '60'))
    name = os.path.basename(args.fuzzer)
    os.makedirs(args.workdir, exist_ok=True)
    artifacts = os.path.join(args.workdir, 'artifacts')
    os.makedirs(artifacts, exist_ok=True)

    env = dict(os.environ)
    # A GStreamer registry of its own: the run depends on no user cache and leaves none.
    env.setdefault('GST_REGISTRY_1_0', os.path.join(args.workdir, 'gst-registry.bin'))
    env.setdefault('GST_DEBUG', '0')
    add_options(env, 'ASAN_OPTIONS', {'abort_on_error': '1', 'detect_leaks': '1',
                                      'allocator_may_return_null': '1',
                                      'handle_abort': '1'})
    if os.path.exists(LSAN_SUPP):
        add_options(env, 'LSAN_OPTIONS', {'suppressions': LSAN_SUPP,
                                          'print_suppressions': '0'})
    add_options(env, 'UBSAN_OPTIONS', {'print_stacktrace': '1', 'halt_on_error': '1'})

    # Replay and fuzz share the run's limits (a timeout, the memory limit), not -max_len:
    # a regression input is replayed whole, however long.
    limits = [a for a in args.extra if not a.startswith('-max_len=')]
    passed = failed = 0

    replay = inputs(args.seeds) + inputs(args.regressions)
    say(f'# {name}: replaying {len(replay)} inputs ({len(inputs(args.regressions))} '
        f'regressions)')
    started = time.monotonic()
    for path in replay:
        argv = [args.fuzzer, '-runs=1'] + limits + [path]
        r = subprocess.run(argv, env=env, capture_output=True, timeout=600)
        rel = os.path.relpath(path, os.path.join(HERE, '..', '..'))
        if r.returncode == 0:
            passed += 1
        else:
            failed += 1
            say(f'FAIL: replay {rel} (exit {r.returncode})\n'
                f'  reproduce: {shlex.join(argv)}\n' +
                tail(r.stderr.decode('utf-8', 'replace')))
    say(f'ok: replayed {len(replay) - failed} of {len(replay)} inputs in '
        f'{time.monotonic() - started:.1f} s')

    if seconds > 0:
        corpus = os.path.join(args.workdir, 'corpus')
        shutil.rmtree(corpus, ignore_errors=True)
        os.makedirs(corpus)
        argv = [args.fuzzer, f'-max_total_time={seconds}', '-print_final_stats=1',
                f'-artifact_prefix={artifacts}/']
        if args.dict:
            argv.append(f'-dict={args.dict}')
        argv += args.extra + shlex.split(os.environ.get('VEIL_FUZZ_ARGS', ''))
        argv += [corpus, args.seeds]
        if os.path.isdir(args.regressions):
            argv.append(args.regressions)
        say(f'# {name}: fuzzing for {seconds} s: {shlex.join(argv)}')
        before = set(os.listdir(artifacts))
        log_path = os.path.join(args.workdir, 'fuzz.log')
        with open(log_path, 'wb') as log:
            r = subprocess.run(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                               timeout=seconds * 3 + 600)
        log_text = open(log_path, 'rb').read().decode('utf-8', 'replace')
        stats = dict(re.findall(r'^stat::(\w+):\s*(\d+)', log_text, re.M))
        cov = re.findall(r'cov: (\d+) ft: (\d+) corp: (\d+)', log_text)
        summary = (f'{stats.get("number_of_executed_units", "?")} inputs in '
                   f'{stats.get("average_exec_per_sec", "?")}/s, peak RSS '
                   f'{stats.get("peak_rss_mb", "?")} MB')
        if cov:
            summary += f', coverage {cov[-1][0]} edges, {cov[-1][1]} features, ' \
                       f'corpus {cov[-1][2]}'
        new = sorted(set(os.listdir(artifacts)) - before)
        if r.returncode == 0 and not new:
            passed += 1
            say(f'ok: fuzzed {seconds} s: {summary}')
        else:
            failed += 1
            say(f'FAIL: fuzzing stopped (exit {r.returncode}): {summary}\n'
                f'  log: {log_path}\n' + tail(log_text, 80))
            for a in new:
                path = os.path.join(artifacts, a)
                data = open(path, 'rb').read()
                say(f'  input: {path} ({len(data)} bytes)\n'
                    f'  base64: {base64.b64encode(data[:4096]).decode()}\n'
                    f'  reproduce: {args.fuzzer} {path}\n'
                    f'  once fixed, keep it: cp {path} {args.regressions}/')
    say(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
