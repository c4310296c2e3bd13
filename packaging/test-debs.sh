#!/usr/bin/env bash
# packaging/test-debs.sh: veil's Debian packages and sway-veil, built and installed on a clean
# Debian sid, and sway-veil shown to draw a wallpaper and play a video. .ci/run runs it beside
# its wlroots 0.19 run (about 5 minutes, most of it sway's build and apt); by hand:
#   sudo packaging/test-debs.sh
#   sudo packaging/test-debs.sh --base-only    # only the debootstrap of step 2's base root
#
# 1. packaging/build-debs.sh: libveil0, libveil-dev, veilctl in the development root, lintian.
# 2. A minimal sid root made once by debootstrap ($VEIL_PKGROOT/base, reused), copied to a build
#    root: the local libveil0 and libveil-dev and sway's build dependencies installed with apt,
#    then sway-veil (sway-1.12.tar.xz from ../shared/sources, packaging/sway-veil/debian, and
#    examples/sway's patches as its debian/patches) built by dpkg-buildpackage -us -uc -b.
#    lintian checks it in the development root.
# 3. Another copy of the base root: `apt-get install ./libveil0_*.deb ./sway-veil_*.deb grim`
#    (nothing else of veil's), the packages' installed sizes, then the installed sway started
#    headless (WLR_BACKENDS=headless, WLR_RENDERER=pixman) with one config line, sway's own
#    `output * bg /work/wall.png fill` (veil draws it: swaybg is not installed, and sway must not
#    try to start it): swaymsg must report the wallpaper shown and a grim screenshot's centre
#    must be the PNG's colour; then `swaymsg 'output * veil
#    /work/clip.webm fill'` (a VP8 video of one colour): shown, its colour at the centre, and
#    played by the package's veil-decoder, a child of sway. Ends with "N passed, N failed".
#
# VEIL_PKGROOT  where the roots live (default /var/tmp/veil-pkgroot)
# VEIL_MIRROR   the Debian mirror (default http://deb.debian.org/debian)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pkgroot=${VEIL_PKGROOT:-/var/tmp/veil-pkgroot}
mirror=${VEIL_MIRROR:-http://deb.debian.org/debian}
out=$here/build-debs
sway_tarball=$here/../shared/sources/sway-1.12.tar.xz
apt_opts=(-o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false
	-o Dpkg::Use-Pty=0 -q -y)

if [ "$(id -u)" -ne 0 ]; then
	exec sudo -E "$0" "$@"
fi

# shellcheck source=packaging/checks.sh
. "$here/packaging/checks.sh"

# in_root ROOT CMD...: CMD in ROOT with /proc, /sys and /dev, in a mount namespace of its own.
in_root() {
	local root=$1
	shift
	cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	unshare --mount --propagation private -- /bin/sh -ec '
		root=$1; shift
		mount --rbind /proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' in_root "$root" "$@"
}

# The minimal sid root every other root is a copy of, made once.
make_base() {
	if [ ! -x "$pkgroot/base/usr/bin/apt-get" ]; then
		step "debootstrap sid into $pkgroot/base"
		rm -rf "$pkgroot/base"
		mkdir -p "$pkgroot"
		debootstrap --variant=minbase --no-check-gpg sid "$pkgroot/base" "$mirror" \
			>"$pkgroot/base.debootstrap.log" 2>&1 ||
			{ tail -30 "$pkgroot/base.debootstrap.log"; exit 1; }
	fi
}
if [ "${1:-}" = --base-only ]; then
	make_base
	exit 0
fi

# ---- 1. veil's packages
step "veil's packages (packaging/build-debs.sh)"
if "$here/packaging/build-debs.sh" "$out"; then
	ok "libveil0, libveil-dev and veilctl build"
else
	fail "libveil0, libveil-dev and veilctl build"
	finish
fi
if grep -v -e '^N:' -e '^running with root' -e '^O:' "$out/lintian.txt" | grep -q .; then
	fail "lintian has nothing to say about veil's packages but overridden tags"
else
	ok "lintian has nothing to say about veil's packages but overridden tags"
fi

# ---- 2. sway-veil
make_base

step "sway-veil in a build root"
build=$pkgroot/build
rm -rf "$build"
cp -a "$pkgroot/base" "$build"
mkdir -p "$build/work"
cp "$out"/libveil0_*.deb "$out"/libveil-dev_*.deb "$build/work/"
src=$build/work/sway-veil-1.12
mkdir -p "$src"
cp "$sway_tarball" "$build/work/sway-veil_1.12.orig.tar.xz"
tar -xf "$sway_tarball" -C "$src" --strip-components=1
cp -r "$here/packaging/sway-veil/debian" "$src/debian"
mkdir -p "$src/debian/patches"
grep -v -e '^#' -e '^$' "$here/examples/sway/series" >"$src/debian/patches/series"
while read -r p; do
	cp "$here/examples/sway/$p" "$src/debian/patches/"
done <"$src/debian/patches/series"
build_deps=$(awk '/^Build-Depends:/ { on = 1; next } /^[^ ]/ { on = 0 } on' \
	"$src/debian/control" | tr -d '\n' | sed 's/,[[:space:]]*$//')
if in_root "$build" /bin/sh -ec '
	deps=$1
	shift
	apt-get "$@" update >/work/apt.log 2>&1
	apt-get "$@" install build-essential fakeroot dpkg-dev \
		./work/libveil0_*.deb ./work/libveil-dev_*.deb >>/work/apt.log 2>&1
	apt-get "$@" satisfy "$deps" >>/work/apt.log 2>&1
	cd /work/sway-veil-1.12
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b \
		>/work/dpkg-buildpackage.log 2>&1
' sh "$build_deps" "${apt_opts[@]}" </dev/null; then
	ok "sway-veil builds against the libveil-dev package"
else
	fail "sway-veil builds against the libveil-dev package"
	tail -30 "$build/work/apt.log" "$build/work/dpkg-buildpackage.log" 2>/dev/null
	finish
fi
rm -f "$out"/sway-veil*
cp "$build"/work/sway-veil_*.deb "$build"/work/sway-veil_*.changes "$build"/work/sway-veil*.buildinfo \
	"$out/"
cp "$build"/work/sway-veil-dbgsym_*.deb "$out/" 2>/dev/null || true
"$here/tools/devroot" sh -c 'cd "$1" && lintian --display-level ">=pedantic" --info \
	--show-overrides --tag-display-limit 0 ./sway-veil_*.changes >lintian-sway-veil.txt 2>&1 || true' \
	lintian "$out"
if grep -v -e '^N:' -e '^running with root' -e '^O:' "$out/lintian-sway-veil.txt" | grep -q .; then
	fail "lintian has nothing to say about sway-veil but overridden tags"
	grep -v '^N:' "$out/lintian-sway-veil.txt"
else
	ok "lintian has nothing to say about sway-veil but overridden tags"
fi

# ---- 3. installed on a clean root, and run
step "libveil0 and sway-veil installed on a clean root"
test_root=$pkgroot/test
rm -rf "$test_root"
cp -a "$pkgroot/base" "$test_root"
mkdir -p "$test_root/work"
cp "$out"/libveil0_*.deb "$out"/sway-veil_*.deb "$test_root/work/"
# A 64x48 PNG of #3366cc, which fill scales to the whole output.
python3 - "$test_root/work/wall.png" <<'PY'
import struct, sys, zlib
w, h = 64, 48
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + \
        struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
raw = b''.join(b'\0' + bytes([0x33, 0x66, 0xcc]) * w for _ in range(h))
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' +
    chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
    chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
PY
# Four seconds of #cc6633 as VP8 in WebM (gst-plugins-good, which libveil0 depends on, plays it),
# made by the development root's GStreamer.
"$here/tools/devroot" gst-launch-1.0 -q videotestsrc pattern=solid-color \
	foreground-color=0xffcc6633 num-buffers=120 ! \
	video/x-raw,width=320,height=240,framerate=30/1 ! vp8enc deadline=1 ! webmmux ! \
	filesink location="$out/clip.webm" >/dev/null
cp "$out/clip.webm" "$test_root/work/"
install_start=$(date +%s)
if in_root "$test_root" /bin/sh -ec '
	apt-get "$@" update >/work/apt.log 2>&1
	apt-get "$@" install ./work/libveil0_*.deb ./work/sway-veil_*.deb grim >>/work/apt.log 2>&1
' sh "${apt_opts[@]}" </dev/null; then
	ok "apt installs libveil0 and sway-veil ($(( $(date +%s) - install_start )) s)"
else
	fail "apt installs libveil0 and sway-veil"
	tail -30 "$test_root/work/apt.log"
	finish
fi
in_root "$test_root" dpkg-query -W -f '${Package} ${Version} ${Installed-Size} KiB\n' \
	libveil0 sway-veil grim | tee "$out/installed-sizes.txt"
in_root "$test_root" /bin/sh -c 'du -sk /var/cache/apt/archives | cut -f1' \
	>"$out/downloaded-kib.txt"
echo "downloaded for the install: $(cat "$out/downloaded-kib.txt") KiB (apt's cache)"

cat >"$test_root/work/check.sh" <<'SH'
#!/bin/sh
# In the test root: sway-veil headless with one bg line, checked with swaymsg and grim; then
# a video set over IPC, which plays in the package's veil-decoder.
export XDG_RUNTIME_DIR=/tmp/xdg
mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
echo 'output * bg /work/wall.png fill' >/work/sway.conf
WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=1 WLR_LIBINPUT_NO_DEVICES=1 \
	sway -c /work/sway.conf >/work/sway.log 2>&1 &
sway=$!
sock=
for _ in $(seq 100); do
	sock=$(ls "$XDG_RUNTIME_DIR"/sway-ipc.*.sock 2>/dev/null | head -1)
	[ -n "$sock" ] && break
	sleep 0.1
done
export SWAYSOCK="$sock"
export WAYLAND_DISPLAY="$(cd "$XDG_RUNTIME_DIR" && ls wayland-* 2>/dev/null | grep -v lock | head -1)"
# shown WHAT NAME: waits until swaymsg reports a file NAME shown (json-c writes "/" as "\/":
# the name alone is looked for); prints "WHAT shown: yes|no".
shown() {
	result=no
	for _ in $(seq 150); do
		if swaymsg -r -t get_outputs >/work/outputs.json 2>/dev/null &&
				tr -d ' \n' </work/outputs.json | grep -q '"state":"shown","loading":null' &&
				grep -q "\"file\": *\"[^\"]*$2\"" /work/outputs.json; then
			result=yes
			break
		fi
		sleep 0.1
	done
	echo "$1 shown: $result"
	tr -d '\n' </work/outputs.json | grep -o '"veil": *{[^}]*' | head -1
}
# centre WHAT: the centre pixel of grim's screenshot (PPM: "P6\nW H\n255\n" then RGB bytes).
centre() {
	grim -t ppm /work/shot.ppm
	exec 3</work/shot.ppm
	read -r magic <&3
	read -r width height <&3
	read -r maxval <&3
	exec 3<&-
	header=$(( ${#magic} + ${#width} + ${#height} + ${#maxval} + 4 ))
	offset=$(( header + ((height / 2) * width + width / 2) * 3 ))
	echo "$1 centre ($magic $width x $height):" \
		"$(dd if=/work/shot.ppm bs=1 skip="$offset" count=3 2>/dev/null | od -An -tu1)"
}
shown still wall.png
centre still
swaymsg 'output * veil /work/clip.webm fill' >/dev/null
shown video clip.webm
centre video
# sway's children while the video plays (the chroot shares the host's processes: other roots'
# helpers show too).
helper=
for p in /proc/[0-9]*; do
	ppid=$(sed -n 's/^PPid:[[:space:]]*//p' "$p/status" 2>/dev/null) || continue
	[ "$ppid" = "$sway" ] || continue
	exe=$(readlink "$p/exe" 2>/dev/null) || continue
	helper="$helper $exe"
done
echo "helpers:$helper"
swaymsg exit >/dev/null 2>&1
wait "$sway"
echo "sway exit: $?"
SH
chmod +x "$test_root/work/check.sh"
run_start=$(date +%s)
in_root "$test_root" /work/check.sh </dev/null | tee "$out/check.txt"
echo "(the run took $(( $(date +%s) - run_start )) s)"
# near R G B WANT_R WANT_G WANT_B TOLERANCE: each channel within TOLERANCE levels.
near() {
	[ -n "${3:-}" ] && [ $(( $1 - $4 )) -le "$7" ] && [ $(( $4 - $1 )) -le "$7" ] &&
		[ $(( $2 - $5 )) -le "$7" ] && [ $(( $5 - $2 )) -le "$7" ] &&
		[ $(( $3 - $6 )) -le "$7" ] && [ $(( $6 - $3 )) -le "$7" ]
}
for what in still video; do
	check "swaymsg reports the $what shown" grep -q "^$what shown: yes" "$out/check.txt"
done
read -r r g b < <(sed -n 's/^still centre.*: *//p' "$out/check.txt")
check "grim's screenshot shows the PNG's #3366cc at the centre (${r:-?} ${g:-?} ${b:-?})" \
	near "${r:-}" "${g:-}" "${b:-}" 0x33 0x66 0xcc 2
# VP8 keeps the colour as 4:2:0 YUV: a few levels off after its conversion back to RGB.
read -r r g b < <(sed -n 's/^video centre.*: *//p' "$out/check.txt")
check "grim's screenshot shows the video's #cc6633 at the centre (${r:-?} ${g:-?} ${b:-?})" \
	near "${r:-}" "${g:-}" "${b:-}" 0xcc 0x66 0x33 8
check "the package's veil-decoder plays the video, a child of sway" \
	grep -q '^helpers:.* /usr/lib/[^ ]*/libveil0/veil-decoder' "$out/check.txt"
check "sway exits cleanly on swaymsg exit" grep -q '^sway exit: 0' "$out/check.txt"
check "sway did not try to start swaybg (not installed: veil draws bg)" \
	test -f "$test_root/work/sway.log" -a \
	"$(grep -c "failed to execute 'swaybg'" "$test_root/work/sway.log")" = 0
if [ "$failed" -ne 0 ]; then
	tail -20 "$test_root/work/sway.log"
fi
finish
