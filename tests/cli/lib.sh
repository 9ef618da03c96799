# Helpers for the CLI tests: each check prints "ok - ..." or "not ok - ...";
# finish() exits 1 if any failed.  $GPUFEED is the binary under test.
set -u
GPUFEED=${GPUFEED:-$PWD/build/gpufeed}
SRC=${GPUFEED_SRC:-$PWD}
# Fixture recordings unpacked (tests/run.sh does it once; alone, we do it).
FIX=${GPUFEED_FIXTURES:-${BUILD:-$SRC/build}/fixtures/machines}
[ -n "${GPUFEED_FIXTURES:-}" ] || "$SRC/tests/fixtures/tools/unpack.sh" "$FIX" || exit 1
failures=0 count=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpufeed-cli-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { count=$((count + 1)); echo "ok $count - $*"; }
not_ok() { count=$((count + 1)); failures=$((failures + 1)); echo "not ok $count - $*"; }

# run CMD...: sets $rc, $out (stdout file) and $err (stderr file).
run() {
	out=$TMP/out.$count err=$TMP/err.$count
	"$@" >"$out" 2>"$err"
	rc=$?
}

# expect_rc N DESC CMD...
expect_rc() {
	local want=$1 desc=$2; shift 2
	run "$@"
	if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
		not_ok "$desc: exit $rc, wanted $want"; sed 's/^/#   stderr: /' "$err" | head -5; fi
}

# expect_grep FILE PATTERN DESC
expect_grep() {
	if grep -q -- "$2" "$1"; then ok "$3"; else not_ok "$3: '$2' not found"; head -5 "$1" | sed 's/^/#   /'; fi
}

expect_no_grep() {
	if grep -q -- "$2" "$1"; then not_ok "$3: '$2' found"; else ok "$3"; fi
}

# expect_jq FILE FILTER DESC: FILE holds exactly one JSON document and
# FILTER is true of it (jq 1.6's -e alone passes an empty file).
expect_jq() {
	if jq -e -s "length == 1 and (.[0] | $2)" "$1" >/dev/null 2>&1; then ok "$3"; else
		not_ok "$3: jq '$2' failed"; fi
}

finish() {
	echo "1..$count"
	[ "$failures" -eq 0 ] || { echo "# $failures of $count failed"; exit 1; }
	exit 0
}

command -v jq >/dev/null || { echo "skip: jq is needed (apt-get install jq)"; exit 77; }
