#!/usr/bin/env bash
# Text that fits: check, tune --dry-run and topo of every fixture recording
# fit 100 columns (what a pipe or -o FILE gets), and the terminal's width on
# a terminal (a pseudo-terminal from script(1), its size set by stty, or
# $COLUMNS), details wrapped under their line.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "skip: script(1) is needed (util-linux)"; exit 77; }

# The widest line of a file, in characters (a terminal's \r dropped).
widest() { tr -d '\r' <"$1" | expand | LC_ALL=C.UTF-8 awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'; }

# A short --root for every recording (the header line names it, as it
# was given): each archive, copied.
mkdir -p "$TMP/m"
for a in "$SRC"/tests/fixtures/machines/*/root.tar.gz; do
	cp "$a" "$TMP/m/$(basename "$(dirname "$a")").tar.gz"
done
report=
for m in "$TMP"/m/*.tar.gz; do
	name=$(basename "$m" .tar.gz)
	for cmd in "check --all --fail-on never" "tune --dry-run" "topo"; do
		# tune reads a recording directory only (it would write into one)
		r=$m
		[[ $cmd != tune* ]] || r=$FIX/$name/root
		# shellcheck disable=SC2086
		"$GPUFEED" $cmd --root "$r" --color never >"$TMP/o" 2>/dev/null
		rc=$?
		w=$(widest "$TMP/o")
		report="$report $name:${cmd%% *}=$w"
		if [ "$rc" -gt 1 ] || [ ! -s "$TMP/o" ]; then not_ok "$name: $cmd: exit $rc, $(wc -l <"$TMP/o") lines"
		elif [ "$w" -le 100 ]; then ok "$name: $cmd fits 100 columns ($w)"
		else not_ok "$name: $cmd is $w columns wide"; awk 'length($0) > 100' "$TMP/o" | head -3 | sed 's/^/#   /'; fi
	done
done
echo "# widest lines:$report"

# On a terminal: its width, from the pseudo-terminal's size or $COLUMNS.
U=$TMP/m/untuned-hgx.tar.gz
on_tty() { script -qec "$1" /dev/null >"$TMP/tty" 2>&1; }
on_tty "stty cols 72; '$GPUFEED' check --root '$U' --color never"
w=$(widest "$TMP/tty")
if [ "$w" -le 72 ] && [ "$w" -ge 60 ]; then ok "check on a 72-column terminal fits it ($w)"; else not_ok "check on a 72-column terminal: $w"; fi
grep -q "^                  feed" "$TMP/tty" || grep -q "^                  [a-z]" "$TMP/tty" &&
	ok "  why: wrapped under its text" || not_ok "  why: not wrapped under its text"
on_tty "stty cols 200; COLUMNS=64 '$GPUFEED' check --root '$U' --color never"
w=$(widest "$TMP/tty")
if [ "$w" -le 64 ]; then ok "\$COLUMNS=64 on a terminal wins over its size ($w)"; else not_ok "COLUMNS=64 on a terminal: $w"; fi
on_tty "stty cols 160; '$GPUFEED' check --root '$U' --color never"
w=$(widest "$TMP/tty")
if [ "$w" -gt 100 ] && [ "$w" -le 160 ]; then ok "a 160-column terminal gets its width ($w)"; else not_ok "160-column terminal: $w"; fi
on_tty "stty cols 72; '$GPUFEED' tune --dry-run --root '$FIX/untuned-hgx/root'"
w=$(widest "$TMP/tty")
if [ "$w" -le 72 ] && [ "$w" -ge 60 ]; then ok "tune --dry-run on a 72-column terminal fits it ($w)"; else not_ok "tune on 72 columns: $w"; fi
on_tty "stty cols 80; '$GPUFEED' topo --root '$TMP/m/dual-16gpu-pcie-tree.tar.gz' --color never"
w=$(widest "$TMP/tty")
if [ "$w" -le 80 ] && [ "$w" -ge 60 ]; then ok "topo on an 80-column terminal fits it ($w)"; else not_ok "topo on 80 columns: $w"; fi
# A VM's list of virtual block devices (loop0-7, zram0) wraps too.
on_tty "stty cols 64; '$GPUFEED' topo --root '$TMP/m/ci-vm.tar.gz' --color never"
w=$(widest "$TMP/tty")
if [ "$w" -le 64 ] && grep -q 'Virtual block devices: loop0' "$TMP/tty"; then ok "topo of a VM on a 64-column terminal fits it ($w)"
else not_ok "topo of ci-vm on 64 columns: $w"; fi
# A Docker host's veths (one a container) wrap under their label too.
cp -a "$FIX/ci-vm/root" "$TMP/veth"
for i in $(seq 10 49); do
	mkdir -p "$TMP/veth/sys/devices/virtual/net/veth${i}0a1b" &&
		echo up >"$TMP/veth/sys/devices/virtual/net/veth${i}0a1b/operstate" &&
		ln -s "../../devices/virtual/net/veth${i}0a1b" "$TMP/veth/sys/class/net/veth${i}0a1b"
done
"$GPUFEED" topo --root "$TMP/veth" >"$TMP/o"
w=$(widest "$TMP/o")
if [ "$w" -le 100 ] && grep -q 'veth490a1b' "$TMP/o"; then ok "topo: 40 veths listed within 100 columns ($w)"
else not_ok "topo with 40 veths: $w columns"; fi
# topo lists each path once: GPU0 <-> GPU1 under GPU0, not again under GPU1.
"$GPUFEED" topo --root "$TMP/m/hgx-h100-8gpu.tar.gz" >"$TMP/o"
dups=$(grep -o '^  [A-Z]*[0-9]* <-> [A-Z]*[0-9]*' "$TMP/o" | awk '{ a = $1; b = $3; if (b < a) { t = a; a = b; b = t } print a, b }' | sort | uniq -d | wc -l)
pairs=$(grep -c '^  GPU[0-9] <-> GPU[0-9]' "$TMP/o")
if [ "$dups" = 0 ] && [ "$pairs" = 28 ]; then ok "topo: the 28 GPU pairs of the HGX once each"; else not_ok "topo: $pairs GPU pair rows, $dups listed twice"; fi
"$GPUFEED" topo --root "$TMP/m/hgx-h100-8gpu.tar.gz" --gpu 3 >"$TMP/o"
[ "$(grep -c '^  GPU[0-9] <-> GPU[0-9]' "$TMP/o")" = 7 ] && ok "topo --gpu 3: its 7 GPU pairs" || not_ok "topo --gpu 3: $(grep -c '<-> GPU' "$TMP/o") GPU pair rows"
COLUMNS=64 "$GPUFEED" check --root "$U" --color never >"$TMP/o"
w=$(widest "$TMP/o")
if [ "$w" -gt 64 ] && [ "$w" -le 100 ]; then ok "\$COLUMNS is for terminals: a pipe gets 100 ($w)"; else not_ok "COLUMNS=64 to a pipe: $w"; fi
on_tty "stty cols 72; '$GPUFEED' check --root '$U' --color never -o '$TMP/file'"
w=$(widest "$TMP/file")
if [ "$w" -gt 72 ] && [ "$w" -le 100 ]; then ok "-o FILE from a terminal gets 100 ($w)"; else not_ok "-o FILE from a terminal: $w"; fi

finish
