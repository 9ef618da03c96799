#!/usr/bin/env bash
# Renders the pictures in docs/images/ with headless Chromium (Debian's
# chromium) from the fixture recordings and tests/fixtures/bench/:
#   topo-hgx-h100-8gpu.png          topo --svg of the 8-GPU HGX H100
#   report-html.png                 report --html of the dual-socket PCIe-switch box
#   report-html-audit-bench.png     its audit and bench figures
# Each is kept under 300 KB.   scripts/docs-images.sh [GPUFEED]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/gpufeed}")
src=$PWD
out=$src/docs/images
# A fixed folder: the page names the recording it read, and the picture in
# the docs should not change with a random name.
work=${TMPDIR:-/tmp}/gpufeed-docs-images
rm -rf "$work" && mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=0
# Short relative names: the page shows what it was given.
cp tests/fixtures/machines/hgx-h100-8gpu/root.tar.gz "$work/hgx-h100-01.tar.gz"
cp tests/fixtures/machines/dual-8gpu-pcie-switch/root.tar.gz "$work/dual8-pcie-01.tar.gz"
cp tests/fixtures/bench/{h2d,p2p,mem,coll,io}.json "$work/"
cd "$work"
"$bin" topo --root hgx-h100-01.tar.gz --svg hgx.svg
"$bin" report --root dual8-pcie-01.tar.gz --html report.html --bench h2d.json --bench p2p.json \
	--bench mem.json --bench coll.json --bench io.json
printf '<html><body style="margin:0"><iframe src="report.html#audit" style="border:0;width:1200px;height:1500px"></iframe></body></html>\n' \
	>audit.html
shot() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$work/profile" "$@" 2>/dev/null >/dev/null
}
size=$(sed -n '1s/.* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' hgx.svg)
mkdir -p "$out"
shot --window-size="$size" --screenshot="$out/topo-hgx-h100-8gpu.png" "file://$work/hgx.svg"
shot --window-size=1200,2000 --force-device-scale-factor=0.8 --screenshot="$out/report-html.png" \
	"file://$work/report.html"
shot --window-size=1200,1500 --force-device-scale-factor=0.8 --screenshot="$out/report-html-audit-bench.png" \
	"file://$work/audit.html"
for f in "$out"/topo-hgx-h100-8gpu.png "$out"/report-html.png "$out"/report-html-audit-bench.png; do
	bytes=$(stat -c %s "$f")
	echo "$f: $bytes bytes"
	[ "$bytes" -lt 307200 ] || { echo "$f: over 300 KB" >&2; exit 1; }
done
