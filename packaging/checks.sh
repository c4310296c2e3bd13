# packaging/checks.sh: the packaging tests' counting (test-debs.sh, test-arch.sh source it).
# step WHAT: a heading with the seconds since start; ok/fail WHAT: one check's line, counted;
# check WHAT CMD...: ok or fail by CMD's status; finish: the count, and the script's exit status.
start=$(date +%s)
passed=0
failed=0
step() { printf '\n=== %s (%d s)\n' "$*" "$(( $(date +%s) - start ))"; }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
finish() {
	step "done"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}
