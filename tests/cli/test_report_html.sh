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

# Bench documents in the shapes the bench targets write (docs/json-bench-*.md):
# h2d and p2p (a summary per point, a limit per point, what limits it per
# GPU or pair), mem (summaries nested in each pair), coll (bus bandwidth per
# row, the document's limit), io (a summary under "summary"), and a failed
# point.
cat >"$TMP/h2d.json" <<'EOF'
{"schema": "gpufeed-bench-h2d/1", "machine": {"hostname": "dual8-pcie-01"},
 "gpus": [{"gpu": 0, "limited_by": "PCIe Gen4 x16 at 0000:18:00.0"}],
 "points": [
  {"gpu": 0, "direction": "host_to_device", "memory": "pinned", "host_node": 0, "bytes": 536870912,
   "limit_gb_per_s": 31.508, "status": "ok", "unit": "GB/s", "n": 5, "median": 26.118, "samples": [26.1]},
  {"gpu": 0, "direction": "device_to_host", "memory": "pinned", "host_node": 0, "bytes": 536870912,
   "limit_gb_per_s": 31.508, "status": "ok", "unit": "GB/s", "n": 5, "median": 33.25},
  {"gpu": 5, "direction": "host_to_device", "memory": "pinned", "host_node": 1, "bytes": 536870912,
   "limit_gb_per_s": 15.754, "status": "error", "error": "cuMemcpyHtoDAsync: CUDA_ERROR_LAUNCH_FAILED"}]}
EOF
cat >"$TMP/p2p.json" <<'EOF'
{"schema": "gpufeed-bench-p2p/1",
 "pairs": [{"gpus": [0, 1], "peer_access": true, "link": "PIX", "limit_gb_per_s": 31.508,
            "limited_by": "PCIe Gen4 x16 at 0000:19:00.0"}],
 "points": [{"test": "read", "copy": "ce", "src_gpu": 1, "dst_gpu": 0, "issued_by": 0, "bytes": 67108864,
             "limit_gb_per_s": 31.508, "status": "ok", "unit": "GB/s", "median": 24.0625},
            {"test": "latency", "copy": null, "gpu": 0, "memory_gpu": 1, "unit": "ns", "status": "ok",
             "median": 1843.5}]}
EOF
cat >"$TMP/mem.json" <<'EOF'
{"schema": "gpufeed-bench-mem/1",
 "pairs": [{"cpu_node": 0, "mem_node": 1, "threads": 32,
            "latency": {"status": "ok", "unit": "ns", "median": 142.7},
            "read": {"status": "ok", "unit": "GB/s", "median": 88.125},
            "write": {"status": "ok", "unit": "GB/s", "median": 61.5}}]}
EOF
cat >"$TMP/coll.json" <<'EOF'
{"schema": "gpufeed-bench-coll/1", "limit": {"gb_per_s": 31.508, "link": "PIX: PCIe Gen4 x16"},
 "results": [{"size": 1048576, "time_us": 81.2, "algbw_gb_per_s": 12.9, "busbw_gb_per_s": 12.91},
             {"size": 67108864, "time_us": 3010.5, "algbw_gb_per_s": 22.3, "busbw_gb_per_s": 22.29}]}
EOF
cat >"$TMP/io.json" <<'EOF'
{"schema": "gpufeed-bench-io/3",
 "points": [{"mode": "seqread", "bs": 1048576, "qd": 32, "threads": 1, "engine": "uring", "status": "ok",
             "gb_per_s": 6.9, "summary": {"unit": "GB/s", "n": 3, "median": 6.874}}]}
EOF
# The figures each document must show, in order: "value limit" (limit "-": none).
cat >"$TMP/want" <<'EOF'
0 26.118 31.508
0 33.25 31.508
1 24.0625 31.508
1 1843.5 -
2 142.7 -
2 88.125 -
2 61.5 -
3 12.91 31.508
3 22.29 31.508
4 6.874 -
EOF
BENCH=(--bench "$TMP/h2d.json" --bench "$TMP/p2p.json" --bench "$TMP/mem.json" --bench "$TMP/coll.json"
       --bench "$TMP/io.json")

# The page's figures as "document value limit" lines, and its failed rows.
figures() {
	python3 - "$1" <<'EOF'
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.doc, self.rows, self.failed = None, [], 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("class") == "bench":
            self.doc = a["data-file"]
        elif tag == "tr" and a.get("class") == "figure":
            self.rows.append([self.doc, None, "-"])
        elif tag == "td" and "data-value" in a:
            self.rows[-1][1] = a["data-value"]
        elif tag == "td" and "data-limit" in a:
            self.rows[-1][2] = a["data-limit"]
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
for doc, value, limit in p.rows:
    print(doc, value if value is not None else "failed", limit)
EOF
}

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
diff -u "$TMP/want" "$TMP/got" >"$TMP/diff" && ok "--bench: every figure and limit equal the documents'" ||
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
expect_rc 3 "--bench a file that does not exist" "$GPUFEED" report --root "$DUAL" --html - --bench "$TMP/none.json"
expect_rc 3 "--bench a directory" "$GPUFEED" report --root "$DUAL" --html - --bench "$TMP"
ls "$TMP"/keep.html.tmp-* >/dev/null 2>&1 && not_ok "a temporary file is left behind" || ok "no temporary file left"
mkdir "$TMP/adir"
expect_rc 3 "--html DIR is refused" "$GPUFEED" report --root "$DUAL" --html "$TMP/adir"
expect_rc 2 "--bench without --html" "$GPUFEED" report --root "$DUAL" --bench "$TMP/h2d.json"
expect_rc 2 "--html with --json" "$GPUFEED" report --root "$DUAL" --html - --json
expect_rc 2 "-o FILE and --html FILE" "$GPUFEED" report --root "$DUAL" -o "$TMP/a" --html "$TMP/b"
expect_rc 2 "--html FILE then -o FILE" "$GPUFEED" report --root "$DUAL" --html "$TMP/b" -o "$TMP/a"
[ ! -e "$TMP/a" ] && [ ! -e "$TMP/b" ] && ok "neither is written" || not_ok "an output was written"
expect_rc 0 "--html - with -o FILE" "$GPUFEED" report --root "$DUAL" --html - -o "$TMP/c.html"
cmp -s "$TMP/c.html" "$page" && ok "the same page" || not_ok "-o FILE differs"
finish
