#!/usr/bin/env python3
"""veil.h compiles with the wlroots veil was built for and stops, with its #error, with another.

check-header.py CC SOURCE_INCLUDE BUILD_INCLUDE BUILT_FOR OTHER: compiles a file that includes
<veil/veil.h> with `pkg-config --cflags wlroots-BUILT_FOR` (must succeed) and with
`pkg-config --cflags wlroots-OTHER` (must fail, naming the wlroots version in its message).
"""
import subprocess
import sys
import tempfile


def compile_with(cc, includes, wlroots, source):
    cflags = subprocess.run(['pkg-config', '--cflags', 'wlroots-' + wlroots, 'wayland-server'],
                            check=True, capture_output=True, text=True).stdout.split()
    cmd = [cc, '-fsyntax-only', '-DWLR_USE_UNSTABLE'] + [f'-I{i}' for i in includes] + \
        cflags + [source]
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    cc, src_inc, build_inc, built_for, other = sys.argv[1:6]
    ok = True
    with tempfile.NamedTemporaryFile('w', suffix='.c') as f:
        f.write('#include <veil/veil.h>\nint main(void) { return VEIL_VERSION_MAJOR; }\n')
        f.flush()
        same = compile_with(cc, [src_inc, build_inc], built_for, f.name)
        print(f'with wlroots {built_for}: exit {same.returncode}')
        if same.returncode != 0:
            print(same.stderr)
            ok = False
        diff = compile_with(cc, [src_inc, build_inc], other, f.name)
        print(f'with wlroots {other}: exit {diff.returncode}')
        print(diff.stderr.strip())
        if diff.returncode == 0:
            print('veil.h compiled against another wlroots')
            ok = False
        elif '#error' not in diff.stderr or 'another wlroots version' not in diff.stderr:
            print("it failed, but not with veil.h's #error")
            ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
