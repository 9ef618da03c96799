#!/usr/bin/env bash
# gpufeed topo --svg / --dot: well-formed XML (xmllint) for every fixture
# recording, the same bytes twice, what the picture shows (every GPU and
# NIC, the NVLink fabric, findings pinned, a red limited link, the node
# whose locality is unknown), a recording's hostile strings escaped, and
# the output file rules of -o.  Rendering in Chromium: test_picture_render.sh.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || { echo "skip: xmllint is needed (apt-get install libxml2-utils)"; exit 77; }

HGX=$FIX/hgx-h100-8gpu/root
DUAL=$FIX/dual-8gpu-pcie-switch/root

for dir in "$FIX"/*/root; do
	name=$(basename "$(dirname "$dir")")
	: >"$TMP/xmllint"
	run "$GPUFEED" topo --root "$dir" --svg "$TMP/$name.svg"
	if [ "$rc" = 0 ] && [ ! -s "$out" ] && xmllint --noout "$TMP/$name.svg" 2>"$TMP/xmllint"; then
		ok "$name: --svg FILE is well-formed XML"
	else
		not_ok "$name: exit $rc, xmllint: $(head -c 300 "$TMP/xmllint") $(head -c 300 "$err")"
	fi
	run "$GPUFEED" topo --root "$dir" --svg -
	cmp -s "$out" "$TMP/$name.svg" && ok "$name: --svg - writes the same bytes to standard output" ||
		not_ok "$name: a second run differs"
	# An SVG the browser draws: the root element, in the SVG namespace.
	root=$(xmllint --xpath 'name(/*)' "$TMP/$name.svg" 2>/dev/null)
	ns=$(xmllint --xpath 'namespace-uri(/*)' "$TMP/$name.svg" 2>/dev/null)
	[ "$root" = svg ] && [ "$ns" = http://www.w3.org/2000/svg ] && ok "$name: an <svg> in the SVG namespace" ||
		not_ok "$name: root element '$root' in '$ns'"
	run "$GPUFEED" topo --root "$dir" --dot -
	if [ "$rc" = 0 ] && head -2 "$out" | grep -q '^graph "gpufeed" {$' && [ "$(tail -1 "$out")" = "}" ] &&
		[ "$(tr -cd '{' <"$out" | wc -c)" = "$(tr -cd '}' <"$out" | wc -c)" ]; then
		ok "$name: --dot - is one graph, its braces balanced"
	else not_ok "$name: --dot: exit $rc"; fi
	if command -v dot >/dev/null; then
		dot -Tsvg "$out" >"$TMP/$name.dot.svg" 2>"$TMP/dot.err" && ok "$name: graphviz reads the DOT" ||
			not_ok "$name: dot -Tsvg: $(head -3 "$TMP/dot.err")"
	fi
done

# What the 8-GPU HGX picture holds: every GPU and NIC box, each GPU's
# NVLink to the fabric, and no finding.
svg=$TMP/hgx-h100-8gpu.svg
n=$(xmllint --xpath 'count(//*[local-name()="text"][starts-with(., "GPU") and contains(., "H100")])' "$svg")
[ "$n" = 8 ] && ok "HGX: 8 GPU boxes" || not_ok "HGX: $n GPU boxes"
n=$(xmllint --xpath 'count(//*[local-name()="text"][starts-with(., "NIC") and contains(., "mlx5_")])' "$svg")
[ "$n" = 10 ] && ok "HGX: 10 NIC boxes" || not_ok "HGX: $n NIC boxes"
n=$(grep -c 'NVLink 4.0 x18, 450 GB/s to NVSwitch' "$svg")
[ "$n" = 16 ] && ok "HGX: every GPU labelled with its NVLink (box text and tooltip)" || not_ok "HGX: $n NVLink labels"
expect_grep "$svg" 'NVLink fabric: 4 NVSwitch chips' "HGX: the fabric and its chips"
expect_grep "$svg" '>PCIe Gen5 x16, 63.0 GB/s<' "HGX: links labelled by their rate"
expect_grep "$svg" '>Findings: none<' "HGX: no finding"

# The PCIe-switch box: a degraded GPU link, a NIC faster than its PCIe,
# both red and pinned; the NICs of unknown locality in their own group.
svg=$TMP/dual-8gpu-pcie-switch.svg
expect_grep "$svg" '>PCIe Gen4 x8, 15.8 GB/s<' "dual: GPU5's x8 link labelled"
expect_grep "$svg" 'fill="#cf222e">PCIe Gen4 x8, 15.8 GB/s<' "dual: and red (a finding limits it)"
expect_grep "$svg" '>faster than its PCIe (finding 3)<' "dual: the capped NIC says why"
expect_grep "$svg" '>NUMA node unknown<' "dual: devices of unknown locality grouped"
n=$(xmllint --xpath 'count(//*[local-name()="circle"])' "$svg")
# three pins on boxes, three in the list
[ "$n" = 6 ] && ok "dual: three findings pinned and listed" || not_ok "dual: $n pins"
expect_grep "$svg" 'warning topo.pcie-width-degraded' "dual: the findings listed by id"

# GPUs whose locality is unknown: red dashed boxes in the unknown group.
dashed='count(//*[local-name()="rect"][@stroke="#cf222e" and @stroke-dasharray="5 3"])'
n=$(xmllint --xpath "$dashed" "$svg")
[ "$n" = 2 ] && ok "dual: two red dashed frames (the unknown group, the legend)" || not_ok "dual: $n red dashed frames"
cp -a "$DUAL" "$TMP/lost"
for f in $(find "$TMP/lost/sys/devices/pci0000:98" -name numa_node); do rm "$f"; echo -1 >"$f"; done
run "$GPUFEED" topo --root "$TMP/lost" --svg "$TMP/lost.svg"
n=$(xmllint --xpath "$dashed" "$TMP/lost.svg" 2>/dev/null)
[ "$rc" = 0 ] && [ "$n" = 4 ] && ok "GPUs of unknown locality: their boxes red and dashed too" ||
	not_ok "GPUs of unknown locality: exit $rc, $n red dashed frames"
expect_grep "$TMP/lost.svg" '>0000:9b:00.0, NUMA unknown<' "and they say so"
expect_grep "$TMP/lost.svg" 'warning topo.gpu-numa-unknown' "the model's finding listed"

# A recording's strings are text, never markup.
cp -a "$DUAL" "$TMP/evil"
printf '<script>alert(1)</script>&x"\047\n' >"$TMP/evil/proc/sys/kernel/hostname"
printf 'SYS</text><svg onload="alert(2)">\033[5m\n' >"$TMP/evil/sys/class/dmi/id/product_name"
# (without NVML, the model's name is /proc/driver/nvidia's)
info=$TMP/evil/proc/driver/nvidia/gpus/0000:18:00.0/information
rm "$info" && sed 's/^Model:.*/Model: \t\t A100 <img src=x onerror=alert(3)> " ]]> --> \&amp;/' \
	"$DUAL/proc/driver/nvidia/gpus/0000:18:00.0/information" >"$info"
run "$GPUFEED" topo --root "$TMP/evil" --svg "$TMP/evil.svg"
[ "$rc" = 0 ] && xmllint --noout "$TMP/evil.svg" 2>/dev/null && ok "hostile names: still well-formed" ||
	not_ok "hostile names: exit $rc or not well-formed"
if grep -q '<script\|<img\|<svg onload\|</text><svg' "$TMP/evil.svg"; then not_ok "hostile names: markup got through"
else ok "hostile names: no markup from the recording"; fi
host=$(xmllint --xpath 'string(/*/*[local-name()="title"])' "$TMP/evil.svg")
[ "$host" = "gpufeed topo: <script>alert(1)</script>&x\"'" ] && ok "hostile names: the host name reads back as it was" ||
	not_ok "hostile names: title reads '$host'"
expect_grep "$TMP/evil.svg" 'GPU0 A100 &lt;img src=x onerror=alert(3)&gt;' "hostile names: a GPU name escaped"
run "$GPUFEED" topo --root "$TMP/evil" --dot -
if [ "$rc" = 0 ] && grep -q 'A100 <img src=x onerror=alert(3)> \\" ]]> --> &amp;' "$out" &&
	! grep -q $'\033' "$out"; then ok "hostile names: DOT escapes quotes, drops control characters"
else not_ok "hostile names: DOT: exit $rc"; grep -m2 A100 "$out" | sed 's/^/#   /'; fi

# Output rules: FILE as -o FILE.
mkdir "$TMP/adir"
expect_rc 3 "--svg DIR is refused" "$GPUFEED" topo --root "$HGX" --svg "$TMP/adir"
[ -d "$TMP/adir" ] && ok "the directory is left as it was" || not_ok "the directory was replaced"
expect_grep "$err" "topo: --svg $TMP/adir: is a directory" "  the message names --svg, the option given (not -o)"
ln -s "$TMP/nowhere/x.svg" "$TMP/dangling"
expect_rc 3 "--svg to a dangling symlink is refused" "$GPUFEED" topo --root "$HGX" --svg "$TMP/dangling"
[ -L "$TMP/dangling" ] && ok "the link is left as it was" || not_ok "the link was replaced"
echo keep >"$TMP/keep.svg"
expect_rc 3 "--svg FILE from a recording that does not exist" "$GPUFEED" topo --root "$TMP/none" --svg "$TMP/keep.svg"
[ "$(cat "$TMP/keep.svg")" = keep ] && ok "FILE is left as it was when the command fails" || not_ok "FILE was replaced"
ls "$TMP"/keep.svg.tmp-* >/dev/null 2>&1 && not_ok "a temporary file is left behind" || ok "no temporary file left"
expect_rc 0 "--dot to /dev/null (written in place)" "$GPUFEED" topo --root "$HGX" --dot /dev/null
expect_rc 2 "-o FILE and --svg FILE name two outputs" "$GPUFEED" topo --root "$HGX" -o "$TMP/a" --svg "$TMP/b"
expect_grep "$err" "name two outputs" "and say so"
expect_rc 2 "--svg FILE then -o FILE too" "$GPUFEED" topo --root "$HGX" --svg "$TMP/b" -o "$TMP/a"
[ ! -e "$TMP/a" ] && [ ! -e "$TMP/b" ] && ok "neither is written" || not_ok "an output was written"
expect_rc 0 "--svg - with -o FILE writes FILE" "$GPUFEED" topo --root "$HGX" --svg - -o "$TMP/c.svg"
cmp -s "$TMP/c.svg" "$TMP/hgx-h100-8gpu.svg" && ok "the same picture" || not_ok "-o FILE differs"
expect_rc 2 "--svg with --json" "$GPUFEED" topo --root "$HGX" --svg - --json
expect_rc 2 "--svg with --matrix" "$GPUFEED" topo --root "$HGX" --svg - --matrix
expect_rc 2 "--svg and --dot" "$GPUFEED" topo --root "$HGX" --svg - --dot -
finish
