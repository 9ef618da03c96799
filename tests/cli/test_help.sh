#!/usr/bin/env bash
# test-scope: tree (checks the tree, not the build: tests/run.sh runs it in the full set only)
# The docs equal the help (git's t0450): the committed man pages are what the
# binary writes from its option tables, docs/api.md what the public headers
# say, every documented option is in --help,
# in the man page and accepted; each command lists the exit codes it returns;
# 'help COMMAND [SUB]'; -o FILE written atomically; output errors (a full
# disk, a closed pipe) say what failed and exit 3; empty paths are usage errors.
. "$(dirname "$0")/lib.sh"
DUAL=$FIX/dual-8gpu-pcie-switch/root
CI=$FIX/ci-vm/root

# The commands that run, from the binary: "topo", "bench io", ...
mapfile -t commands < <("$GPUFEED" help --exit-table | sed -n 's/^| `gpufeed \([^`]*\)` |.*/\1/p')
[ "${#commands[@]}" -ge 4 ] && ok "the binary lists its commands (${commands[*]})" ||
	not_ok "help --exit-table lists ${#commands[@]} commands"

page_of() { echo "man/gpufeed-${1// /-}.1"; }

# 1. The committed man pages are exactly what 'make man' writes.
run "$GPUFEED" help --man
if cmp -s "$out" "$SRC/man/gpufeed.1"; then ok "man/gpufeed.1 equals 'gpufeed help --man'"; else
	not_ok "man/gpufeed.1 differs from the binary's: run 'make man'"; diff "$SRC/man/gpufeed.1" "$out" | head -5 | sed 's/^/#   /'; fi
for cmd in "${commands[@]}"; do
	page=$(page_of "$cmd")
	# shellcheck disable=SC2086 # "bench io" is two words
	run "$GPUFEED" help --man $cmd
	if cmp -s "$out" "$SRC/$page"; then ok "$page equals 'gpufeed help --man $cmd'"; else
		not_ok "$page differs from the binary's: run 'make man'"
		diff "$SRC/$page" "$out" 2>&1 | head -5 | sed 's/^/#   /'; fi
	dashed=${cmd// /-}	# roff escapes every '-': gpufeed\-config\-nccl\-topo
	grep -q "^\.BR gpufeed-$dashed (1)\|^\.BR gpufeed\\\\-${dashed//-/\\\\-} (1)" "$SRC/man/gpufeed.1" &&
		ok "gpufeed.1 names $page" || not_ok "gpufeed.1 does not name $page"
done
n=$(ls "$SRC"/man/*.1 | wc -l)
[ "$n" -eq $(( ${#commands[@]} + 1 )) ] && ok "one page per command and gpufeed.1 ($n)" ||
	not_ok "$n pages in man/ for ${#commands[@]} commands"

# 1b. The C API's reference is what the headers say, and every public
# function has a comment (scripts/api-doc.py; python3 comes with python3-yaml).
if python3 "$SRC/scripts/api-doc.py" --check >"$TMP/apidoc.out" 2>&1; then
	ok "docs/api.md equals what scripts/api-doc.py writes from include/gpufeed/*.h"
else
	not_ok "docs/api.md is stale or a public function has no comment: run 'make api-doc'"
	head -10 "$TMP/apidoc.out" | sed 's/^/#   /'
fi

# 2. Every option in a table is in --help, in the man page, and parsed.
for cmd in "${commands[@]}"; do
	# shellcheck disable=SC2086
	run "$GPUFEED" help --options $cmd
	cp "$out" "$TMP/opts"
	# shellcheck disable=SC2086
	run "$GPUFEED" $cmd --help
	cp "$out" "$TMP/help"
	# A reader of files (nccl fr) has only the output options and the standard ones.
	[ "$(wc -l <"$TMP/opts")" -ge 6 ] && ok "$cmd: its table has options" || not_ok "$cmd: help --options is short"
	# getopt takes the first of two entries with one name: a table must not have two.
	dup="$(sort "$TMP/opts" | uniq -d) $(grep -o '^  -[A-Za-z],' "$TMP/help" | sort | uniq -d)"
	[ -z "${dup// /}" ] && ok "$cmd: no option named twice" || not_ok "$cmd: named twice: $dup"
	missing= unparsed=
	while read -r opt; do
		grep -Eq -- "^ +(-., )?$opt( |$)" "$TMP/help" || missing="$missing help:$opt"
		grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')\\\\fR" "$SRC/$(page_of "$cmd")" || missing="$missing man:$opt"
		# shellcheck disable=SC2086
		"$GPUFEED" $cmd "$opt" x --no-such-option-zz >/dev/null 2>"$TMP/e" </dev/null
		grep -q "unknown option '$opt'" "$TMP/e" && unparsed="$unparsed $opt"
	done <"$TMP/opts"
	[ -z "$missing" ] && ok "$cmd: every option is in --help and the man page" || not_ok "$cmd: missing$missing"
	[ -z "$unparsed" ] && ok "$cmd: every documented option is parsed" || not_ok "$cmd: not parsed:$unparsed"
	long=$(awk 'length > 80' "$TMP/help")
	[ -z "$long" ] && ok "$cmd --help fits 80 columns" || not_ok "$cmd --help: $(echo "$long" | head -1)"
done

# 3. help COMMAND [SUB] shows that command's help.
for cmd in "${commands[@]}"; do
	# shellcheck disable=SC2086
	"$GPUFEED" help $cmd >"$TMP/a" 2>&1
	# shellcheck disable=SC2086
	"$GPUFEED" $cmd --help >"$TMP/b" 2>&1
	cmp -s "$TMP/a" "$TMP/b" && ok "'help $cmd' is '$cmd --help'" || not_ok "'help $cmd' differs from '$cmd --help'"
done
expect_rc 0 "help bench io" "$GPUFEED" help bench io
expect_grep "$out" "^Usage: gpufeed bench io" "help bench io reaches bench io"
expect_grep "$out" "--mode M" "and shows its options"
expect_rc 2 "help for an unknown subcommand" "$GPUFEED" help bench frob
expect_rc 2 "help with a stray word" "$GPUFEED" help topo extra
expect_rc 0 "help bench lists its subcommands" "$GPUFEED" help bench
expect_grep "$out" "^  io " "bench's help lists io"

# 4. Each command's help lists the exit codes it returns, no others.
run "$GPUFEED" bench io --help
expect_no_grep "$out" "^  1  " "bench io --help does not offer exit 1 (it has no --strict)"
expect_no_grep "$out" "report --strict" "nor another command's option"
expect_rc 2 "bench io --strict is a usage error, as its help says" "$GPUFEED" bench io --strict "$TMP/x"
run "$GPUFEED" topo --help
expect_grep "$out" "^  1  findings" "topo --help lists exit 1 (--strict)"
expect_grep "$out" "^  4  " "topo --help lists exit 4 (--nvml=require)"
expect_rc 1 "topo --strict exits 1 on a recording with findings, as its help says" "$GPUFEED" topo --strict --root "$DUAL"
run "$GPUFEED" report --help
expect_grep "$out" "^  1  findings" "report --help lists exit 1"
expect_grep "$out" "with --strict" "and when"
run "$GPUFEED" --help
expect_grep "$out" "^  1  findings.*(report, topo, check, tune, revert[,)]" "gpufeed --help says which commands return 1"
# docs/exit-codes.md holds the binary's per-command table.
"$GPUFEED" help --exit-table >"$TMP/table"
sed -n '/^| command | returns |/,/^$/p' "$SRC/docs/exit-codes.md" | sed '/^$/d' >"$TMP/doc-table"
if [ -s "$TMP/table" ] && cmp -s "$TMP/table" "$TMP/doc-table"; then
	ok "docs/exit-codes.md has the per-command table of 'gpufeed help --exit-table'"
else
	not_ok "docs/exit-codes.md's per-command table differs from 'gpufeed help --exit-table'"
	diff "$TMP/doc-table" "$TMP/table" | head -6 | sed 's/^/#   /'
fi

# 5. -o FILE: written atomically.
export SOURCE_DATE_EPOCH=1800000000	# the two documents carry the same time
expect_rc 0 "topo -o FILE" "$GPUFEED" topo --root "$DUAL" --json -o "$TMP/t.json"
[ ! -s "$out" ] && ok "-o: nothing on standard output" || not_ok "-o: standard output has $(wc -c <"$out") bytes"
expect_jq "$TMP/t.json" '.schema | startswith("gpufeed-topo/")' "-o: FILE holds the document"
"$GPUFEED" topo --root "$DUAL" --json >"$TMP/t-stdout.json"
cmp -s "$TMP/t.json" "$TMP/t-stdout.json" && ok "-o: FILE equals what stdout gets" || not_ok "-o: FILE differs from stdout"
unset SOURCE_DATE_EPOCH
[ "$(umask 022; "$GPUFEED" topo --root "$CI" -o "$TMP/m.txt"; stat -c %a "$TMP/m.txt")" = 644 ] &&
	ok "-o: FILE gets the mode a shell redirection gives (umask)" || not_ok "-o: FILE mode $(stat -c %a "$TMP/m.txt")"
expect_rc 1 "report --strict -o FILE with findings exits 1" "$GPUFEED" report --root "$DUAL" --strict -o "$TMP/r.txt"
expect_grep "$TMP/r.txt" "Problems\|Findings" "and FILE is written (exit 1 is a result)"
echo precious >"$TMP/keep"
expect_rc 3 "-o FILE with an unreadable --root fails" "$GPUFEED" topo --root /no/such/dir -o "$TMP/keep"
[ "$(cat "$TMP/keep")" = precious ] && ok "a failed run leaves FILE as it was" || not_ok "FILE was changed"
ls "$TMP"/keep.tmp-* >/dev/null 2>&1 && not_ok "a temporary file is left" || ok "and no temporary file is left"
expect_rc 2 "-o FILE with a usage error" "$GPUFEED" topo --root "$CI" -o "$TMP/keep" extra
[ "$(cat "$TMP/keep")" = precious ] && ok "a usage error leaves FILE as it was" || not_ok "FILE was changed"
ls "$TMP"/keep.tmp-* >/dev/null 2>&1 && not_ok "a temporary file is left" || ok "and no temporary file is left"
expect_rc 3 "-o into a directory that does not exist" "$GPUFEED" topo --root "$CI" -o "$TMP/nodir/out.txt"
expect_grep "$err" "$TMP/nodir/out.txt.*No such file or directory" "the error names FILE and the reason"
expect_rc 3 "-o naming a directory" "$GPUFEED" topo --root "$CI" -o "$TMP"
expect_grep "$err" "is a directory" "is refused up front"
expect_rc 0 "-o on record (its summary)" "$GPUFEED" record --root "$CI" --json -o "$TMP/rec.json" "$TMP/rec"
expect_jq "$TMP/rec.json" '.dir != null' "record's summary went to FILE"
expect_rc 0 "-o on bench io" timeout 60 "$GPUFEED" bench io "$TMP/b.bin" --mode seqread --size 1M --duration 0.1 \
	--json -o "$TMP/b.json"
expect_jq "$TMP/b.json" '.schema | startswith("gpufeed-bench-io/")' "bench io's results went to FILE"
if command -v script >/dev/null; then
	# On a terminal, --color=auto colours the terminal, never FILE.
	script -qec "'$GPUFEED' topo --root '$DUAL'" /dev/null >"$TMP/tty.txt" </dev/null
	script -qec "'$GPUFEED' topo --root '$DUAL' -o '$TMP/tty-o.txt'" /dev/null >/dev/null </dev/null
	if grep -q $'\033\[' "$TMP/tty.txt" && ! grep -q $'\033\[' "$TMP/tty-o.txt" && [ -s "$TMP/tty-o.txt" ]; then
		ok "-o FILE from a terminal: no colour codes in FILE"
	else
		not_ok "-o FILE from a terminal: colour codes in FILE, or none on the terminal"
	fi
	"$GPUFEED" topo --root "$DUAL" --color=always -o "$TMP/always.txt"
	grep -q $'\033\[' "$TMP/always.txt" && ok "--color=always -o FILE colours FILE" || not_ok "--color=always ignored with -o"
fi

# 6. Empty paths are usage errors (an unset variable must not mean "here").
expect_rc 2 "-o \"\"" "$GPUFEED" topo --root "$CI" -o ""
expect_grep "$err" "--output needs a FILE (an empty one was given)" "and explained"
expect_rc 2 "record \"\"" "$GPUFEED" record --root "$CI" ""
expect_grep "$err" "DIR is empty" "and explained"
expect_rc 2 "bench io \"\"" "$GPUFEED" bench io ""
expect_rc 2 "--root \"\"" "$GPUFEED" report --root ""

# 7. Output errors say what failed, with the write's errno, and exit 3.
if [ -w /dev/full ]; then
	run sh -c '"$0" topo --root "$1" >/dev/full' "$GPUFEED" "$CI"
	[ "$rc" = 3 ] && ok "topo >/dev/full exits 3" || not_ok "topo >/dev/full exits $rc"
	expect_grep "$err" "writing standard output: No space left on device" "the message names standard output and ENOSPC"
	expect_no_grep "$err" "zram0\|/sys/" "and no unrelated earlier file"
	run sh -c '"$0" topo --root "$1" --json >/dev/full' "$GPUFEED" "$DUAL"
	[ "$rc" = 3 ] && ok "topo --json >/dev/full exits 3" || not_ok "topo --json >/dev/full exits $rc"
	expect_grep "$err" "No space left on device" "with ENOSPC"
	run sh -c '"$0" topo --help >/dev/full' "$GPUFEED"
	[ "$rc" = 3 ] && ok "--help >/dev/full exits 3" || not_ok "--help >/dev/full exits $rc"
	expect_grep "$err" "writing standard output" "and says so"
else
	ok "# skip /dev/full is not writable here"
fi
# A closed pipe: the reader is gone before gpufeed writes.
(sleep 0.5; "$GPUFEED" topo --root "$DUAL" --json 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.rc") | true
wait
[ "$(cat "$TMP/pipe.rc")" = 3 ] && ok "topo --json | (closed) exits 3, not killed by SIGPIPE" ||
	not_ok "topo into a closed pipe exits $(cat "$TMP/pipe.rc")"
expect_grep "$TMP/pipe.err" "writing standard output: Broken pipe" "the message says EPIPE"
# bench io into a closed pipe still removes the file it created.
(sleep 0.5; timeout 60 "$GPUFEED" bench io "$TMP/pipe.bin" --mode seqread --size 1M --duration 0.1 --json \
	2>"$TMP/bpipe.err"; echo $? >"$TMP/bpipe.rc") | true
wait
[ "$(cat "$TMP/bpipe.rc")" = 3 ] && ok "bench io --json | (closed) exits 3" ||
	not_ok "bench io into a closed pipe exits $(cat "$TMP/bpipe.rc")"
[ ! -e "$TMP/pipe.bin" ] && ok "and removes the file it created" || not_ok "bench io left $TMP/pipe.bin"
finish
