#!/usr/bin/env bash
# The picture and the page in a real browser (Debian's chromium, headless):
# topo --svg of the 8-GPU HGX renders to a PNG of the SVG's size with the
# machine drawn on it, and report --html loads with no console message,
# its filter script runs, and the figures in the DOM equal the bench
# documents'.  Each check is first shown to catch what it looks for
# (a blank image, a page that logs an error).  About 15 s.
. "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=0
if ! command -v chromium >/dev/null; then
	echo "# SKIPPED: chromium is not installed (apt-get install chromium): the SVG picture and the" >&2
	echo "# HTML report are NOT checked in a browser" >&2
	echo "skip: chromium is needed to render the picture and the page (apt-get install chromium)"
	exit 77
fi

HGX=$FIX/hgx-h100-8gpu/root
DUAL=$FIX/dual-8gpu-pcie-switch/root
BD=$SRC/tests/fixtures/bench

# chromium ARGS...: headless, its own profile, no network, bounded in time.
browser() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
		--disable-sync --disable-background-networking --hide-scrollbars \
		--user-data-dir="$TMP/chrome-profile" "$@"
}

# screenshot SVG PNG: the SVG at its own size.
screenshot() {
	local size
	size=$(sed -n '1s/.* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$1")
	browser --window-size="$size" --screenshot="$2" "file://$1" >/dev/null 2>"$TMP/chrome.err"
}

stat_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# A blank SVG first: what the check calls drawn must be 0 there.
printf '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#fff"/></svg>\n' \
	>"$TMP/blank.svg"
screenshot "$TMP/blank.svg" "$TMP/blank.png"
python3 "$SRC/tests/tools/png_stats.py" "$TMP/blank.png" >"$TMP/blank.stats"
[ "$(stat_of "$TMP/blank.stats" drawn)" = 0.0 ] && ok "a blank SVG renders as nothing drawn (the check sees blank)" ||
	not_ok "blank SVG: $(cat "$TMP/blank.stats") $(head -c 300 "$TMP/chrome.err")"

run "$GPUFEED" topo --root "$HGX" --svg "$TMP/hgx.svg"
[ "$rc" = 0 ] && ok "HGX: topo --svg" || not_ok "HGX: topo --svg: exit $rc"
screenshot "$TMP/hgx.svg" "$TMP/hgx.png"
if python3 "$SRC/tests/tools/png_stats.py" "$TMP/hgx.png" >"$TMP/hgx.stats"; then
	w=$(stat_of "$TMP/hgx.stats" width) h=$(stat_of "$TMP/hgx.stats" height)
	colours=$(stat_of "$TMP/hgx.stats" colours) drawn=$(stat_of "$TMP/hgx.stats" drawn)
	size=$(sed -n '1s/.* width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$TMP/hgx.svg")
	[ "$w $h" = "$size" ] && ok "HGX: Chromium renders a ${w}x$h PNG, the SVG's size" ||
		not_ok "HGX: PNG ${w}x$h, SVG $size"
	# Boxes in six fills, links in five colours, text antialiased: hundreds of
	# colours; boxes and lines cover a good part of the picture, not all of it.
	[ "$colours" -ge 100 ] && ok "HGX: $colours colours" || not_ok "HGX: only $colours colours"
	python3 -c "import sys; sys.exit(not 0.10 <= float(sys.argv[1]) <= 0.80)" "$drawn" &&
		ok "HGX: $drawn of the picture drawn" || not_ok "HGX: $drawn of the picture drawn"
else
	not_ok "HGX: no PNG read: $(head -c 300 "$TMP/chrome.err")"
fi

# A page that logs an error first: the console check must see it.
printf '<!DOCTYPE html><html><body><p>x</p><script>console.error("planted error");</script></body></html>\n' \
	>"$TMP/noisy.html"
browser --enable-logging=stderr --v=0 --dump-dom "file://$TMP/noisy.html" >/dev/null 2>"$TMP/noisy.err"
grep -q 'CONSOLE.*planted error' "$TMP/noisy.err" && ok "a console error is seen in Chromium's log" ||
	not_ok "a planted console error is not seen: $(grep -c . "$TMP/noisy.err") log lines"

run "$GPUFEED" report --root "$DUAL" --html "$TMP/report.html" --bench "$BD/h2d.json" --bench "$BD/p2p.json" \
	--bench "$BD/mem.json" --bench "$BD/coll.json" --bench "$BD/io.json"
[ "$rc" = 0 ] && ok "report --html with five bench documents" || not_ok "report --html: exit $rc"
browser --enable-logging=stderr --v=0 --dump-dom "file://$TMP/report.html" >"$TMP/dom.html" 2>"$TMP/report.err"
if grep -q 'CONSOLE' "$TMP/report.err"; then
	not_ok "the page logs to the console"; grep 'CONSOLE' "$TMP/report.err" | head -5 | sed 's/^/#   /'
else ok "the page loads with no console message"; fi
grep -q '<section id="bench">' "$TMP/dom.html" && ok "the DOM holds the whole page" ||
	not_ok "no DOM dumped: $(head -c 300 "$TMP/report.err")"
# The filter ran: passes and na are hidden at first (the DOM has hidden="").
hidden=$(grep -c '<tr data-status="\(pass\|na\)" hidden=""' "$TMP/dom.html")
shown=$(grep -c '<tr data-status="\(fail\|warn\)">' "$TMP/dom.html")
total=$(grep -c '<tr data-status="\(pass\|na\)"' "$TMP/report.html")
[ "$hidden" -gt 0 ] && [ "$hidden" = "$total" ] && [ "$shown" -gt 0 ] &&
	ok "the filter script ran: $hidden passes and na hidden, $shown problems shown" ||
	not_ok "filter: $hidden of $total hidden, $shown shown"
python3 "$SRC/tests/tools/html_figures.py" "$TMP/dom.html" | grep -v failed >"$TMP/got"
diff -u "$BD/figures.txt" "$TMP/got" >"$TMP/diff" && ok "the figures in the DOM equal the documents'" ||
	{ not_ok "the DOM's figures differ"; sed 's/^/#   /' "$TMP/diff" | head -20; }
finish
