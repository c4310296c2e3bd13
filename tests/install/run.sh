#!/usr/bin/env bash
# tests/install/run.sh SRC WORK WLROOTS: veil installed, then used from the install
# alone. Prints one line per check and ends with "N passed, N failed"; exits 1 on any failure.
#
# 1. A build of SRC configured with --prefix=WORK/usr (tests and examples off), `meson install`
#    into that prefix; the same build installed again with --destdir must give the same files.
#    The prefix is the one the build is configured with, not a --destdir staging copy: libveil
#    runs veil-decoder from the libexecdir it was configured with, so only there is the
#    installed helper the one a compositor gets without VEIL_DECODER_HELPER.
# 2. tests/install/tiny-compositor.c compiled with `pkg-config --cflags --libs veil` from the
#    prefix only, run with LD_LIBRARY_PATH at the prefix and no VEIL_* variable: a still and a
#    video on screen, the video in the prefix's veil-decoder.
# 3. tests/install/subproject: a compositor project with veil as a subproject (a wrap file),
#    built, installed into its own prefix and run as in 2.
# The sway series is built against an installed veil by packaging/test-debs.sh (in CI):
# sway-veil against the libveil-dev package, in a clean root with nothing of veil's tree.
set -uo pipefail
src=$(cd "$1" && pwd)
mkdir -p "$2" && work=$(cd "$2" && pwd)
wlroots=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }
timed() { local t0=$SECONDS; "$@"; local rc=$?; echo "# ($((SECONDS - t0)) s) $*"; return $rc; }
quiet() { local log=$1; shift; "$@" >"$log" 2>&1 || { tail -30 "$log"; return 1; }; }

# Nothing from a test environment: the default path is what is tested.
unset VEIL_DECODER_HELPER VEIL_DECODER VEIL_DECODER_VIDEO PKG_CONFIG_PATH LD_LIBRARY_PATH

rm -rf "$work"
mkdir -p "$work"
prefix=$work/usr

# ---- 1. install
if ! timed quiet "$work/setup.log" meson setup "$work/build" "$src" --prefix="$prefix" \
		-Dwlroots="$wlroots" -Dtests=false -Dexamples=false ||
		! timed quiet "$work/compile.log" meson compile -C "$work/build" ||
		! timed quiet "$work/install.log" meson install -C "$work/build"; then
	fail "veil builds and installs into $prefix"
	finish
fi
ok "veil builds and installs into $prefix"
quiet "$work/install-destdir.log" meson install -C "$work/build" --destdir "$work/stage"
diff <(cd "$prefix" && find . | sort) <(cd "$work/stage$prefix" && find . | sort) \
	>"$work/destdir.diff"
check "--destdir installs the same files as the prefix install" test ! -s "$work/destdir.diff"
(cd "$prefix" && find . -type f -o -type l | sort) >"$work/files.txt"
cat "$work/files.txt"

pc=$(find "$prefix" -name veil.pc | head -1)
libdir=$(dirname "$(dirname "$pc")")
helper=$prefix/libexec/veil-decoder
check "veil.pc installed" test -n "$pc"
check "veil-decoder installed in libexecdir ($helper)" test -x "$helper"
check "veil/version.h installed" test -f "$prefix/include/veil/version.h"
check "libveil.so.0 (the soversion) installed" test -e "$libdir/libveil.so.0"
soname=$(objdump -p "$libdir/libveil.so" | awk '$1 == "SONAME" { print $2 }')
check "libveil's SONAME is libveil.so.0 (it is $soname)" test "$soname" = libveil.so.0
export PKG_CONFIG_PATH=$(dirname "$pc")
check "pkg-config --variable=wlroots veil is $wlroots" \
	test "$(pkg-config --variable=wlroots veil)" = "$wlroots"
check "veil.pc requires wlroots-$wlroots" \
	grep -qx "wlroots-$wlroots" <(pkg-config --print-requires veil)
check "veil.pc names no private requirement (GStreamer and the decoders stay libveil's)" \
	test -z "$(pkg-config --print-requires-private veil)"
check "pkg-config --variable=veil_decoder veil names the installed helper" \
	test "$(pkg-config --variable=veil_decoder veil)" = "$helper"
for page in man1/veilctl.1 man5/veil.5 man8/veil-decoder.8; do
	check "man page $page installed" test -f "$prefix/share/man/$page"
done

# ---- 2. a compositor from the installed files alone
flags=$(pkg-config --cflags --libs veil)
echo "# pkg-config --cflags --libs veil: $flags"
check "the flags name no path of the source tree or its builds" \
	eval '! grep -q -e "$src/include" -e "$work/build" -e meson-uninstalled <<<"$flags"'
# shellcheck disable=SC2086
if timed cc -std=c11 -Wall -Wextra -Werror -DWLR_USE_UNSTABLE -o "$work/tiny-compositor" \
		"$here/tiny-compositor.c" $flags; then
	ok "tiny-compositor compiles with pkg-config's flags alone"
else
	fail "tiny-compositor compiles with pkg-config's flags alone"
	finish
fi
# ldd's whole output first: grep -q would stop reading at the match and, under pipefail, ldd's
# SIGPIPE on its next line would fail the check (it did once libveil linked one more library).
loads_installed() {
	local out
	out=$(LD_LIBRARY_PATH="$libdir" ldd "$1") && grep -q "libveil.so.0 => $libdir/libveil.so.0" \
		<<<"$out"
}
check "tiny-compositor loads the installed libveil" loads_installed "$work/tiny-compositor"

# A 64x48 PNG of #3366cc and a Y4M video of one grey level (Y 150: 156 once converted).
python3 - "$work/still.png" "$work/grey.y4m" <<'PY'
import struct, sys, zlib
w, h = 64, 48
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + \
        struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
raw = b''.join(b'\0' + bytes([0x33, 0x66, 0xcc]) * w for _ in range(h))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + \
    chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
open(sys.argv[1], 'wb').write(png)
with open(sys.argv[2], 'wb') as f:
    f.write(b'YUV4MPEG2 W64 H48 F10:1 Ip A1:1 C420jpeg\n')
    for _ in range(20):
        f.write(b'FRAME\n' + bytes([150]) * (w * h) + bytes([128]) * (w * h // 2))
PY

run_tiny() {
	local exe=$1 lib=$2 want_helper=$3 log=$4
	LD_LIBRARY_PATH=$lib timeout 120 "$exe" "$work/still.png" '#3366cc' "$work/grey.y4m" 156 \
		"$want_helper" >"$log" 2>"$log.stderr"
	local rc=$?
	sed 's/^/    /' "$log"
	[ "$rc" -eq 0 ] || tail -20 "$log.stderr"
	return $rc
}
check "tiny-compositor shows a still and a video with the installed veil-decoder" \
	timed run_tiny "$work/tiny-compositor" "$libdir" "$helper" "$work/tiny.log"

# ---- 3. veil as a subproject
subproject_build() {
	local proj=$work/subproject
	mkdir -p "$proj/subprojects"
	cp "$here/subproject/meson.build" "$here/tiny-compositor.c" "$proj/"
	sed "s|@SRC@|$src|" "$here/subproject/veil.wrap.in" >"$proj/subprojects/veil.wrap"
	ln -s "$src" "$proj/subprojects/veil"
	quiet "$work/sub-setup.log" meson setup "$work/sub-build" "$proj" \
		--prefix="$work/subusr" --force-fallback-for=veil -Dveil:wlroots="$wlroots" &&
		quiet "$work/sub-compile.log" meson compile -C "$work/sub-build" &&
		quiet "$work/sub-install.log" meson install -C "$work/sub-build"
}
unset PKG_CONFIG_PATH
if timed subproject_build; then
	ok "a compositor project with veil as a subproject builds and installs"
	check "the subproject's compositor shows a still and a video" timed run_tiny \
		"$work/subusr/bin/tiny-compositor" "$(dirname "$(find "$work/subusr" -name 'libveil.so.0')")" \
		"$work/subusr/libexec/veil-decoder" "$work/sub-tiny.log"
else
	fail "a compositor project with veil as a subproject builds and installs"
fi
finish
