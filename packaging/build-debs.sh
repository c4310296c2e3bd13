#!/usr/bin/env bash
# packaging/build-debs.sh [OUTDIR]: veil's Debian packages (libveil0, libveil-dev, veilctl),
# built by `dpkg-buildpackage -us -uc -b` in the development root (tools/devroot), then checked
# by lintian. OUTDIR (default build-debs, in the checkout: the root sees only the checkout)
# gets the source tree (git's files of this checkout with packaging/debian as debian/), the
# .debs, the .changes, lintian.txt and sizes.txt (each package's Installed-Size).
# Runs on the host, as tools/devroot does (git is read here, the build runs in the root).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(realpath -m "${1:-$here/build-debs}")
case $out in
"$here"/*) ;;
*) echo "build-debs: $out must be inside $here (the root sees only the checkout)" >&2; exit 2 ;;
esac

version=$(sed -n "s/^\tversion: '\(.*\)',$/\1/p" "$here/meson.build")
deb_version=$(sed -n '1s/^veil (\([^)]*\)).*/\1/p' "$here/packaging/debian/changelog")
if [ "$version" != "$deb_version" ]; then
	echo "build-debs: meson.build says $version, packaging/debian/changelog $deb_version" >&2
	exit 1
fi
src=$out/veil-$version
rm -rf "$out"
mkdir -p "$src"
# The checkout's tracked files as they are now (uncommitted edits included).
(cd "$here" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$src"
rm -rf "$src/debian"
cp -r "$here/packaging/debian" "$src/debian"

start=$(date +%s)
"$here/tools/devroot" sh -ec '
	cd "$1"
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b \
		>../dpkg-buildpackage.log 2>&1 || {
		tail -40 ../dpkg-buildpackage.log; exit 1; }
	cd ..
	# Every tag lintian knows, pedantic ones and hints included; overrides are shown too.
	lintian --display-level ">=pedantic" --info --show-overrides --tag-display-limit 0 \
		./*.changes >lintian.txt 2>&1 || true
	for deb in ./*.deb; do
		printf "%s %s KiB\n" "$(dpkg-deb -f "$deb" Package)" \
			"$(dpkg-deb -f "$deb" Installed-Size)"
	done >sizes.txt
' build-debs "$src"
echo "build-debs: built in $(( $(date +%s) - start )) s:"
ls -l "$out"/*.deb
cat "$out/sizes.txt"
echo "lintian:"
cat "$out/lintian.txt"
