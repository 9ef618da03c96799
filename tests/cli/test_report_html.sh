#!/usr/bin/env bash
# gpufeed report --html FILE [--bench FILE...]: one self-contained page for
# every fixture recording (nothing fetched, the picture inline, the same
# bytes twice), the audit grouped with its filter, every figure of the bench
# documents with the number the document has, hostile strings escaped, and
# the output and input rules.  Loading the page in Chromium:
# test_picture_render.sh.
. "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=0

DUAL=$FIX/dual-8gpu-pcie-switch/root

# Bench documents in the shapes the bench targets write, and the figures the
# page must show: tests/fixtures/bench/README.md.
BD=$SRC/tests/fixtures/bench
BENCH=(--bench "$BD/h2d.json" --bench "$BD/p2p.json" --bench "$BD/mem.json" --bench "$BD/coll.json"
       --bench "$BD/io.json")

# The page's figures as "document value limit" lines ("failed" for a failed one).
figures() { python3 "$SRC/tests/tools/html_figures.py" "$1"; }

for dir in "$FIX"/*/root; do
	name=$(basename "$(dirname "$dir")")
	run "$GPUFEED" report --root "$dir" --html "$TMP/$name.html"
	if [ "$rc" = 0 ] && [ ! -s "$out" ] && head -1 "$TMP/$name.html" | grep -q '^<!DOCTYPE html>$'; then
		ok "$name: --html FILE writes a page"
	else not_ok "$name: exit $rc: $(head -c 300 "$err")"; fi
	# Nothing fetched: no src, no link, no url(), no import; one inline script.
	if grep -qi '<link\|src=\|url(\|@import\|<iframe\|<object\|<embed' "$TMP/$name.html"; then
		not_ok "$name: the page refers to something outside it"
	else ok "$name: the page refers to nothing outside it"; fi
	[ "$(grep -c '<script' "$TMP/$name.html")" = 1 ] && ok "$name: one inline script" || not_ok "$name: scripts"
	grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$TMP/$name.html" && ok "$name: the picture inline" ||
		not_ok "$name: no inline SVG"
	run "$GPUFEED" report --root "$dir" --html -
	cmp -s "$out" "$TMP/$name.html" && ok "$name: --html - writes the same bytes" || not_ok "$name: runs differ"
done

page=$TMP/dual-8gpu-pcie-switch.html
expect_grep "$page" '<tr data-status="fail"><td class="fail">fail</td><td class="mono">pcie.link-width</td>' \
	"dual: the audit's failed link-width check, with its status for the filter"
expect_grep "$page" '<input type="checkbox" value="pass"> <span class="pass">pass</span>' \
	"dual: the filter hides passes by default"
expect_grep "$page" '<td class="SYS">SYS</td>' "dual: the matrix, classes coloured"
expect_grep "$page" 'host memory (node 1) &#8594; GPU5</td><td class="mono">PHB</td><td class="num">15.8</td>' \
	"dual: the paths with their rate"
expect_grep "$page" 'PCIe Gen4 x8 at 0000:9c:00.0' "dual: and what limits them"
expect_grep "$page" '<td class="mono">topo.nic-pcie-capped</td>' "dual: the model's findings"

# Bench documents: every figure, with the number the document has.
run "$GPUFEED" report --root "$DUAL" --html "$TMP/bench.html" "${BENCH[@]}"
[ "$rc" = 0 ] && ok "--bench: five documents (exit 0)" || not_ok "--bench: exit $rc: $(head -c 300 "$err")"
figures "$TMP/bench.html" | grep -v failed >"$TMP/got"
diff -u "$BD/figures.txt" "$TMP/got" >"$TMP/diff" && ok "--bench: every figure and limit equal the documents'" ||
	{ not_ok "--bench: figures differ"; sed 's/^/#   /' "$TMP/diff" | head -20; }
[ "$(figures "$TMP/bench.html" | grep -c failed)" = 1 ] && ok "--bench: the failed point shown as failed" ||
	not_ok "--bench: failed points"
expect_grep "$TMP/bench.html" 'failed: cuMemcpyHtoDAsync: CUDA_ERROR_LAUNCH_FAILED' "and why"
expect_grep "$TMP/bench.html" '<td>PCIe Gen4 x16 at 0000:18:00.0</td>' "--bench: h2d's limit named from gpus[]"
expect_grep "$TMP/bench.html" '<td>PCIe Gen4 x16 at 0000:19:00.0</td>' "--bench: p2p's from pairs[]"
expect_grep "$TMP/bench.html" '<td class="num fail">105.5%</td>' "--bench: a figure above its limit marked"
expect_grep "$TMP/bench.html" 'fill over" style="width:100.0%"' "--bench: and its bar red"
expect_grep "$TMP/bench.html" 'fill" style="width:82.9%"></span><span class="lim" style="left:100.0%">' \
	"--bench: a bar is the figure against its limit"

# Hostile strings, from the recording and from a bench document.
cp -a "$DUAL" "$TMP/evil"
printf '<script>alert(1)</script>&x"\047\n' >"$TMP/evil/proc/sys/kernel/hostname"
printf 'SYS</td><img src=x onerror=alert(2)>\n' >"$TMP/evil/sys/class/dmi/id/product_name"
cat >"$TMP/evil.json" <<'EOF'
{"schema": "gpufeed-bench-io/3", "machine": {"hostname": "<script>alert(3)</script>"},
 "points": [{"mode": "</td><script>alert(4)</script>", "status": "ok", "unit": "GB/s\"><b>", "median": 1.5}]}
EOF
run "$GPUFEED" report --root "$TMP/evil" --html "$TMP/evil.html" --bench "$TMP/evil.json"
[ "$rc" = 0 ] && ok "hostile strings: a page (exit 0)" || not_ok "hostile strings: exit $rc"
[ "$(grep -c '<script' "$TMP/evil.html")" = 1 ] && ! grep -q '<img\|"><b>' "$TMP/evil.html" &&
	ok "hostile strings: no markup from the recording or the document" || not_ok "hostile strings: markup got through"
expect_grep "$TMP/evil.html" '<title>gpufeed report: &lt;script&gt;alert(1)&lt;/script&gt;&amp;x&quot;&apos;</title>' \
	"hostile strings: the host name escaped"
expect_grep "$TMP/evil.html" 'mode &lt;/td&gt;&lt;script&gt;alert(4)&lt;/script&gt;' "hostile strings: a row's name escaped"

# Inputs and outputs.
echo keep >"$TMP/keep.html"
printf '{"schema": "gpufeed-check/1"}' >"$TMP/check.json"
expect_rc 3 "--bench a document that is not a bench output" \
	"$GPUFEED" report --root "$DUAL" --html "$TMP/keep.html" --bench "$TMP/check.json"
expect_grep "$err" "check.json: not the --json output of a gpufeed bench command" "the file is named"
[ "$(cat "$TMP/keep.html")" = keep ] && ok "and FILE is left as it was" || not_ok "FILE was replaced"
printf '{"schema": ' >"$TMP/cut.json"
expect_rc 3 "--bench a file that is not JSON" "$GPUFEED" report --root "$DUAL" --html - --bench "$TMP/cut.json"
expect_grep "$err" "cut.json: line 1: not JSON" "the file is named"
[ ! -s "$out" ] && ok "nothing written" || not_ok "half a page written"
expect_rc 3 "--html DIR is refused" "$GPUFEED" report --root "$DUAL" --html "$TMP"
expect_grep "$err" "report: --html $TMP: is a directory" "  the message names --html, the option given (not -o)"
expect_rc 3 "--bench a file that does not exist" "$GPUFEED" report --root "$DUAL" --html - --bench "$TMP/none.json"
expect_rc 3 "--bench a directory" "$GPUFEED" report --root "$DUAL" --html - --bench "$TMP"
ls "$TMP"/keep.html.tmp-* >/dev/null 2>&1 && not_ok "a temporary file is left behind" || ok "no temporary file left"
mkdir "$TMP/adir"
expect_rc 3 "--html DIR is refused" "$GPUFEED" report --root "$DUAL" --html "$TMP/adir"
expect_rc 2 "--bench without --html" "$GPUFEED" report --root "$DUAL" --bench "$BD/h2d.json"
expect_rc 2 "--html with --json" "$GPUFEED" report --root "$DUAL" --html - --json
expect_rc 2 "-o FILE and --html FILE" "$GPUFEED" report --root "$DUAL" -o "$TMP/a" --html "$TMP/b"
expect_rc 2 "--html FILE then -o FILE" "$GPUFEED" report --root "$DUAL" --html "$TMP/b" -o "$TMP/a"
[ ! -e "$TMP/a" ] && [ ! -e "$TMP/b" ] && ok "neither is written" || not_ok "an output was written"
expect_rc 0 "--html - with -o FILE" "$GPUFEED" report --root "$DUAL" --html - -o "$TMP/c.html"
cmp -s "$TMP/c.html" "$page" && ok "the same page" || not_ok "-o FILE differs"
finish
