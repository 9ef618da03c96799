#!/usr/bin/env bash
# Everything the topology issue asks of a GPU machine, in one run (device time
# is scarce): a recording of the machine, gpufeed's matrix against
# `nvidia-smi topo -m`, the NVML ABI check, and discovery timings side by side
# with nvidia-smi.  Run from the repository root with a built build/gpufeed;
# writes at most 8 files to $OUT (the device tool's limit).  Changes nothing
# on the GPUs: only reads.
set -u
OUT=${OUT:-/tmp/gpufeed-evidence}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
gf=${GPUFEED:-build/gpufeed}
log=$OUT/log.txt
exec > >(tee -a "$log") 2>&1

step() { echo; echo "=== $*"; }

step "machine"
uname -a; nproc; "$gf" --version; ldd "$gf"
nvidia-smi -L || { echo "no GPU here"; exit 77; }
nvidia-smi topo -m > "$OUT/nvidia-smi-topo-m.txt"; cat "$OUT/nvidia-smi-topo-m.txt"

step "NVML ABI check (our declarations vs nvml.h)"
nvml_h=$(find / -name nvml.h -path '*cuda*' -not -path '/proc/*' 2>/dev/null | head -1)
inc=${nvml_h:+$(dirname "$nvml_h")}
echo "nvml.h: $inc/nvml.h ($(grep -m1 'define NVML_NVLINK_MAX_LINKS' "$inc/nvml.h"))"
if [ -n "$inc" ] && cc -std=c11 -Wall -Werror -I"$inc" -Isrc tests/gpu/nvml_abi_check.c -o /tmp/nvml_abi_check; then
	/tmp/nvml_abi_check
else
	echo "nvml_abi_check: FAILED to build (see above) or nvml.h not found"
fi

step "gpufeed topo / report / record"
"$gf" topo > "$OUT/topo.txt"; echo "topo rc=$?"
"$gf" topo --json > "$OUT/topo.json"; echo "topo --json rc=$?"
"$gf" report > "$OUT/report.txt"; echo "report rc=$?"
cat "$OUT/report.txt"
rm -rf /tmp/rec && "$gf" record /tmp/rec; echo "record rc=$?"
"$gf" record "$OUT/recording.tar.gz"; echo "record FILE.tar.gz rc=$?"; ls -la "$OUT/recording.tar.gz"

step "replay equals live (directory and archive)"
strip() { grep -v '"source"\|"generated_at"' "$1"; }
"$gf" topo --json --root /tmp/rec > /tmp/replay.json
diff <(strip "$OUT/topo.json") <(strip /tmp/replay.json) && echo "replay == live"
"$gf" topo --json --root "$OUT/recording.tar.gz" > /tmp/replay-tgz.json
diff <(strip "$OUT/topo.json") <(strip /tmp/replay-tgz.json) && echo "replay of the .tar.gz == live"

step "the matrix alone vs nvidia-smi topo -m (tab-separated rows, escapes removed)"
"$gf" topo --matrix > "$OUT/topo-matrix.txt"; echo "topo --matrix rc=$?"
sed 's/\x1b\[[0-9;]*m//g' "$OUT/nvidia-smi-topo-m.txt" | grep -P '^(GPU|NIC)[0-9]+\t' > /tmp/smi-rows
grep -P '^(GPU|NIC)[0-9]+\t' "$OUT/topo-matrix.txt" > /tmp/gf-rows
if diff /tmp/smi-rows /tmp/gf-rows; then echo "matrix rows: identical to nvidia-smi's, byte for byte"; else echo "matrix rows: DIFFER"; fi
awk -F'\t' '/^GPU[0-9]/ { print $1 ": " NF " tab-separated fields" }' "$OUT/topo-matrix.txt"
"$gf" topo --gpu 0; echo "topo --gpu 0 rc=$?"
"$gf" topo --nearest-nic 0; echo "topo --nearest-nic 0 rc=$? (4: no RDMA NIC up)"

step "the vendor loader: a library that is not NVML, and none"
GPUFEED_NVML_LIBRARY=libm.so.6 "$gf" topo --nvml=require >/dev/null; echo "libm as NVML rc=$? (4 wanted)"
GPUFEED_NVML_LIBRARY=/nonexistent.so "$gf" topo --nvml=require >/dev/null; echo "absent NVML rc=$? (4 wanted)"
"$gf" topo --nvml=require >/dev/null; echo "real NVML rc=$? (0 wanted)"

step "gpufeed topo vs nvidia-smi topo -m"
python3 tests/gpu/compare_topo.py "$OUT/topo.json" "$OUT/nvidia-smi-topo-m.txt" | tee "$OUT/compare.txt"

step "timing (medians of 10 interleaved runs)"
bench/topo-vs-nvidia-smi.sh -n 10 -g "$gf" -r /tmp/rec > "$OUT/bench-topo.json"; cat "$OUT/bench-topo.json"
step "sysfs-only replay (--nvml=off) and NVML-off live"
for i in 1 2 3; do s=$EPOCHREALTIME; "$gf" topo --root /tmp/rec --nvml=off >/dev/null; e=$EPOCHREALTIME; echo "replay nvml=off: $(awk -v a=$s -v b=$e 'BEGIN{printf "%.2f ms", (b-a)*1000}')"; done
for i in 1 2 3; do s=$EPOCHREALTIME; "$gf" topo --nvml=off >/dev/null; e=$EPOCHREALTIME; echo "live nvml=off: $(awk -v a=$s -v b=$e 'BEGIN{printf "%.2f ms", (b-a)*1000}')"; done

step "the GPU test suite (tests/gpu/run-gpu-tests.sh)"
GPUFEED=$gf bash tests/gpu/run-gpu-tests.sh; echo "run-gpu-tests rc=$?"

step "nvidia-smi -q (for the record)"
nvidia-smi -q | head -400
echo "device-evidence: done"
