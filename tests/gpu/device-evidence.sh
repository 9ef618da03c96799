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
inc=$(dirname "$(find / -name nvml.h -path '*cuda*' -not -path '/proc/*' 2>/dev/null | head -1)")
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
tar czf "$OUT/recording.tar.gz" -C /tmp rec && ls -la "$OUT/recording.tar.gz"

step "replay equals live"
"$gf" topo --json --root /tmp/rec > /tmp/replay.json
diff <(grep -v '"source"' "$OUT/topo.json") <(grep -v '"source"' /tmp/replay.json) && echo "replay == live"

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
