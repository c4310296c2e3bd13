#!/usr/bin/env bash
# packaging/test-arch.sh: the Arch PKGBUILDs built by makepkg (Debian's, 7.1) in the development
# root, and their packages checked. Not part of .ci/run (it compiles veil and sway once more);
# run it by hand:
#   packaging/test-arch.sh
#
# What it can and cannot say: Arch's own packages are not here, so makepkg runs with --nodeps
# against Debian sid's libraries, and `arch-meson` (a script of Arch's meson package) is stood in
# for by a copy of its options (below). namcap is not packaged in Debian: the packages are
# checked here by their file lists, their .PKGINFO and their ELF headers instead.
#
# 1. The tree (tracked and new files) copied to build-arch/tree; makepkg run as nobody in
#    packaging/arch/veil: veil-0.2.0-1-x86_64.pkg.tar.zst must hold libveil.so.0, the helper in
#    /usr/lib/veil, veil.h, version.h, veil.pc, veilctl, the four man pages and the licence, and
#    nothing under /usr/local or a build directory's path.
# 2. The package unpacked in build-arch/veil-root; sway-veil built against it (its veil.pc with
#    the prefix moved there) from sway-1.12.tar.xz in ../shared/sources, offered to makepkg under the
#    release's name (bsdtar reads it by its content), with examples/sway's patches: sway must
#    need libveil.so.0, and `sway -C` must accept a config with `output * veil` words and refuse
#    a bad one, which only a sway with the series does.
# Ends with "N passed, N failed".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ "${VEIL_IN_DEVROOT:-}" != 1 ]; then
	exec "$here/tools/devroot" env VEIL_IN_DEVROOT=1 packaging/test-arch.sh "$@"
fi

# shellcheck source=packaging/checks.sh
. "$here/packaging/checks.sh"

for tool in makepkg bsdtar zstd fakeroot; do
	if ! command -v "$tool" >/dev/null; then
		fail "$tool is not in the development root (tools/devroot.packages)"
		finish
	fi
done

out=$here/build-arch
rm -rf "$out"
mkdir -p "$out/tree" "$out/bin" "$out/src" "$out/pkg" "$out/build" "$out/home"

step "the tree, copied for makepkg"
(cd "$here" && git ls-files -z --cached --others --exclude-standard |
	tar --null -T - -cf - | tar -xf - -C "$out/tree")
# Arch's arch-meson: meson setup with the options of Arch's packages. PKGEXT is Arch's too
# (Debian's makepkg.conf writes .pkg.tar.gz).
cat >"$out/bin/arch-meson" <<'EOF'
#!/bin/sh
# (--libdir lib: meson's default on Arch; on Debian it would be lib/<triplet>.)
exec meson setup --prefix /usr --libdir lib --libexecdir lib --sbindir bin --buildtype plain \
	--auto-features enabled --wrap-mode nodownload -D b_pie=true "$@"
EOF
chmod 755 "$out/bin/arch-meson"
cp "$here/../shared/sources/sway-1.12.tar.xz" "$out/src/sway-1.12.tar.gz"
chown -R nobody:nogroup "$out"

# makepkg DIR ARGS...: makepkg as nobody in DIR, its output in build-arch/pkg.
makepkg_as_nobody() {
	local dir=$1
	shift
	(cd "$dir" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH="$out/bin:/usr/bin:/bin" HOME="$out/home" LANG=C.UTF-8 \
		BUILDDIR="$out/build" PKGDEST="$out/pkg" SRCDEST="$out/src" PKGEXT=.pkg.tar.zst "$@" \
		makepkg --nodeps --noconfirm --noprogressbar)
}

# build NAME ENV...: makepkg of packaging/arch/NAME, its log in build-arch/NAME.log; the test
# ends if it fails.
build() {
	local name=$1
	shift
	if makepkg_as_nobody "$out/tree/packaging/arch/$name" "$@" >"$out/$name.log" 2>&1; then
		ok "makepkg built $name (build-arch/$name.log)"
	else
		tail -n 30 "$out/$name.log"
		fail "makepkg $name (build-arch/$name.log)"
		finish
	fi
}

step "makepkg: veil"
build veil
veil_pkg=$(find "$out/pkg" -name 'veil-0.2.0-1-*.pkg.tar.zst' | head -n 1)
check "the package veil-0.2.0-1 is written" test -n "$veil_pkg"
[ -n "$veil_pkg" ] || finish
bsdtar -tf "$veil_pkg" | sed 's,^\./,,' | sort >"$out/veil.files"
for f in usr/lib/libveil.so.0 usr/lib/libveil.so usr/lib/veil/veil-decoder \
		usr/include/veil/veil.h usr/include/veil/version.h usr/lib/pkgconfig/veil.pc \
		usr/bin/veilctl usr/share/man/man5/veil.5.gz usr/share/man/man1/veilctl.1.gz \
		usr/share/man/man8/veil-decoder.8.gz usr/share/licenses/veil/LICENSE; do
	check "veil's package holds /$f" grep -qx "$f" "$out/veil.files"
done
check "nothing under /usr/local" sh -c "! grep -q '^usr/local' '$out/veil.files'"
check "nothing but /usr and the package's metadata" \
	sh -c "! grep -v -e '^usr/' -e '^\\.' -e '^usr\$' '$out/veil.files' | grep -q ."
bsdtar -xOf "$veil_pkg" .PKGINFO >"$out/veil.PKGINFO"
check ".PKGINFO: depends on wlroots0.20" grep -qx 'depend = wlroots0.20' "$out/veil.PKGINFO"
check ".PKGINFO: provides libveil.so" grep -q '^provides = libveil.so' "$out/veil.PKGINFO"
size=$(sed -n 's/^size = //p' "$out/veil.PKGINFO")
echo "veil: installed size $((size / 1024)) KiB"

mkdir -p "$out/veil-root"
bsdtar -xf "$veil_pkg" -C "$out/veil-root"
lib=$out/veil-root/usr/lib/libveil.so.0
readelf -d "$lib" >"$out/libveil.dynamic" 2>&1 || true
check "libveil.so.0's SONAME is libveil.so.0" \
	grep -q 'SONAME.*\[libveil.so.0\]' "$out/libveil.dynamic"
check "libveil.so.0 has no RUNPATH into a build directory" sh -c \
	"grep -q SONAME '$out/libveil.dynamic' && ! grep -q -e RUNPATH -e RPATH '$out/libveil.dynamic'"
# Where libveil looks for its helper: /usr/lib/veil, the package's libexecdir.
check "libveil looks for the helper in /usr/lib/veil" grep -q -a '/usr/lib/veil/veil-decoder' \
	"$lib"
check "veil.pc requires wlroots-0.20" grep -q '^Requires.*wlroots-0.20' \
	"$out/veil-root/usr/lib/pkgconfig/veil.pc"
check "the packaged veilctl runs (--help)" env LD_LIBRARY_PATH="$out/veil-root/usr/lib" \
	"$out/veil-root/usr/bin/veilctl" --help >/dev/null

step "makepkg: sway-veil, against the veil package"
# The package's veil.pc with its prefix moved to build-arch/veil-root/usr, as if installed.
mkdir -p "$out/pc"
sed "s|^prefix=/usr\$|prefix=$out/veil-root/usr|" "$out/veil-root/usr/lib/pkgconfig/veil.pc" \
	>"$out/pc/veil.pc"
check "veil.pc names its prefix once, the rest from it" grep -q "^prefix=$out" "$out/pc/veil.pc"
build sway-veil PKG_CONFIG_PATH="$out/pc"
sway_pkg=$(find "$out/pkg" -name 'sway-veil-1.12-1-*.pkg.tar.zst' | head -n 1)
check "the package sway-veil-1.12-1 is written" test -n "$sway_pkg"
[ -n "$sway_pkg" ] || finish
check "every patch of the series was applied" sh -c "[ \"\$(grep -c '^applying ' \
	'$out/sway-veil.log')\" -eq \"\$(grep -c -v -e '^#' -e '^\$' \
	'$here/examples/sway/series')\" ]"
bsdtar -xOf "$sway_pkg" .PKGINFO >"$out/sway-veil.PKGINFO"
check ".PKGINFO: conflicts with and provides sway" sh -c \
	"grep -qx 'conflict = sway' '$out/sway-veil.PKGINFO' &&
	grep -qx 'provides = sway=1.12' '$out/sway-veil.PKGINFO'"
size=$(sed -n 's/^size = //p' "$out/sway-veil.PKGINFO")
echo "sway-veil: installed size $((size / 1024)) KiB"
mkdir -p "$out/sway-root"
bsdtar -xf "$sway_pkg" -C "$out/sway-root"
sway=$out/sway-root/usr/bin/sway
readelf -d "$sway" >"$out/sway.dynamic" 2>&1 || true
check "sway needs libveil.so.0" grep -q 'NEEDED.*\[libveil.so.0\]' "$out/sway.dynamic"
wall=$out/tree/examples/wallpaper.png
printf 'output * veil %s fill transition fade 300\n' "$wall" >"$out/good.conf"
printf 'output * veil %s fill transition sideways\n' "$wall" >"$out/bad.conf"
# sway makes its backend even to check a config: headless, in a runtime directory of its own.
mkdir -p "$out/run"
chmod 700 "$out/run"
sway_env=(env LD_LIBRARY_PATH="$out/veil-root/usr/lib" XDG_RUNTIME_DIR="$out/run"
	WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1)
check "sway -C accepts veil's words" "${sway_env[@]}" timeout 60 "$sway" -C -c "$out/good.conf"
if "${sway_env[@]}" timeout 60 "$sway" -C -c "$out/bad.conf" >"$out/bad.txt" 2>&1; then
	fail "sway -C refuses a bad transition"
else
	check "sway -C refuses a bad transition, saying why" grep -q -i 'transition' "$out/bad.txt"
fi
finish
