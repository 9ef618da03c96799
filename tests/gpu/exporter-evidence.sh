#!/usr/bin/env bash
# gpufeed exporter on a GPU machine (the lead's evidence run; it skips, exit
# 77, without a GPU):
#   1. one page (--once) through the real NVML: promtool check metrics (as
#      tests/cli/test_exporter.sh holds it) when promtool is here; a
#      DCGM_FI_DEV_FB_USED per GPU nvidia-smi lists, each within 64 MiB of
#      nvidia-smi's memory.used read at the same moment, and an activity
#      figure for each (GPM or utilisation);
#   2. its cost: bench/exporter-cost.sh at a 15 s interval and at 1 s.
#
#   tests/gpu/exporter-evidence.sh [OUT]     (default bench/results/DATE-HOST-exporter)
#   EXPORTER_COST_15S=300 EXPORTER_COST_1S=120  the two runs' lengths in seconds
set -u
cd "$(dirname "$0")/../.."
gf=${GPUFEED:-build/gpufeed}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU here (nvidia-smi absent or found no GPU)"
	exit 77
fi
out=${1:-bench/results/$(date -u +%Y-%m-%d)-$(hostname -s)-exporter}
mkdir -p "$out"
rc=0
say() { echo "$*" | tee -a "$out/verdict.txt"; }
: >"$out/verdict.txt"

"$gf" exporter --once --interval 2 --textfile "$out/page.prom" 2>"$out/once.err" || {
	say "FAIL: gpufeed exporter --once: exit $? ($(head -2 "$out/once.err"))"; exit 1; }
nvidia-smi --query-gpu=index,pci.bus_id,memory.used --format=csv,noheader,nounits >"$out/nvidia-smi.csv"
if command -v promtool >/dev/null; then
	sed 's/modelName=/model_name=/g' "$out/page.prom" | promtool check metrics >"$out/promtool.txt" 2>&1
	prc=$?
	if [ "$prc" = 0 ] || { [ "$prc" = 3 ] &&
		! grep -v '^DCGM_FI_DEV_ECC_[SD]BE_VOL_TOTAL counter metrics should have "_total" suffix$' \
			"$out/promtool.txt" | grep -q .; }; then
		say "ok: promtool check metrics"
	else say "FAIL: promtool: $(head -3 "$out/promtool.txt" | tr '\n' ' ')"; rc=1; fi
else say "note: no promtool here: the page was not linted"; fi
while IFS=', ' read -r index bus used; do
	bus=${bus,,}
	line=$(grep "^DCGM_FI_DEV_FB_USED{" "$out/page.prom" | grep -i "pci_bus_id=\"$bus\"")
	served=${line##* }
	if [ -z "$line" ]; then say "FAIL: GPU $index ($bus): no DCGM_FI_DEV_FB_USED"; rc=1; continue; fi
	if awk -v a="$served" -v b="$used" 'BEGIN { d = a - b; exit !(d < 64 && d > -64) }'; then
		say "ok: GPU $index ($bus): FB used $served MiB, nvidia-smi $used MiB"
	else say "FAIL: GPU $index ($bus): FB used $served MiB, nvidia-smi $used MiB"; rc=1; fi
	if grep -i "pci_bus_id=\"$bus\"" "$out/page.prom" | grep -Eq '^DCGM_FI_(PROF_SM_ACTIVE|DEV_GPU_UTIL)\{'; then
		say "ok: GPU $index: activity ($(grep -i "pci_bus_id=\"$bus\"" "$out/page.prom" |
			grep -Eo '^DCGM_FI_(PROF_SM_ACTIVE|DEV_GPU_UTIL)' | head -1))"
	else say "FAIL: GPU $index: no activity figure"; rc=1; fi
done <"$out/nvidia-smi.csv"

bench/exporter-cost.sh --gpufeed "$gf" --interval 15 --duration "${EXPORTER_COST_15S:-300}" --out "$out/cost-15s" || rc=1
bench/exporter-cost.sh --gpufeed "$gf" --interval 1 --duration "${EXPORTER_COST_1S:-120}" --out "$out/cost-1s" || rc=1
say "cost at 15 s: $(sed -n 's/^total: *//p' "$out/cost-15s/summary.txt")"
say "cost at 1 s: $(sed -n 's/^total: *//p' "$out/cost-1s/summary.txt")"
exit $rc
