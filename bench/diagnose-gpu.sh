#!/usr/bin/env bash
# gpufeed diagnose on planted PyTorch jobs, on a machine with NVIDIA GPUs:
# each job (bench/diagnose/planted.py) is bound by one known part, and the
# verdict must name it:
#   slow-loader -> input (another process)   disk      -> input (the disk)
#   cpu-steal   -> host (CPU contention)     compute   -> compute
#   launch      -> host (own CPU work)       ddp       -> communication
#                                            (2 GPUs or more, P2P and SHM off)
# Each run keeps its report (JSON and text) and its samples (--samples: the
# fixture CI replays through the verdict with --replay) in OUTDIR.  Then the
# input and CPU jobs run again with the planted cause removed (KIND-free),
# and speedup.txt puts diagnose's predicted speed-up if that part were free
# beside the measured one (the ratio of the mean steps from the markers).
#   bench/diagnose-gpu.sh OUTDIR [SECONDS]      (SECONDS per job, default 30)
# Exit 77 (skip) without an NVIDIA GPU, or python3 without torch with CUDA.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build}
gpufeed=${GPUFEED:-$build/gpufeed}
out=${1:?usage: bench/diagnose-gpu.sh OUTDIR [SECONDS]}
secs=${2:-30}
py=${PYTHON:-python3}
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "skip: no NVIDIA GPU"; exit 77; }
"$py" -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null ||
	{ echo "skip: $py has no torch with CUDA"; exit 77; }
mkdir -p "$out"
pkg=$build/diagnose-gpu/gpufeed
mkdir -p "$pkg"
cp "$src"/python/gpufeed/*.py "$pkg"/
make -C "$src" -s BUILD="$build" PYTHON="$(command -v "$py")" PY_EXT="$pkg/_gpufeed.abi3.so" python || exit 1
export PYTHONPATH=$build/diagnose-gpu${PYTHONPATH:+:$PYTHONPATH}
ngpus=$(nvidia-smi -L | wc -l)
{
	echo "command: bench/diagnose-gpu.sh $out $secs"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "gpufeed: $("$gpufeed" --version | head -1), commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	nvidia-smi -L
	echo "torch: $("$py" -c 'import torch; print(torch.__version__, torch.version.cuda)')"
	echo "CPUs: $(nproc)"
} >"$out/machine.txt"
head -c 2G /dev/urandom >"$out/data.bin"

fail=0
# one planted job: KIND WANT PATTERN [gpufeed diagnose options and command]
plant() {
	local kind=$1 want=$2 pattern=$3; shift 3
	"$gpufeed" diagnose --interval 0.5 --samples "$out/$kind.samples.jsonl" --report "$out/$kind.json" --json \
		"$@" >"$out/$kind.log" 2>&1
	"$gpufeed" diagnose --replay "$out/$kind.samples.jsonl" >"$out/$kind.txt"
	got=$(jq -r '.bound' "$out/$kind.json")
	why=$(jq -r --arg p "$got" '.parts[$p].why // ""' "$out/$kind.json")
	if [ "$got" = "$want" ] && grep -Eq "$pattern" <<<"$why"; then
		echo "ok   $kind: $got ($why)"
	else
		echo "FAIL $kind: $got, wanted $want /$pattern/ ($why)"; fail=1
	fi
}
job() { echo "$py" "$src/bench/diagnose/planted.py" "$@"; }
plant slow-loader input "another process" -- $(job slow-loader "$secs")
plant disk input "disk" -- $(job disk "$secs" "$out/data.bin")
plant cpu-steal host "contention" -- $(job cpu-steal "$secs")
plant compute compute "computing" -- $(job compute "$secs")
plant launch host "own CPU work" -- $(job launch "$secs")
if [ "$ngpus" -ge 2 ]; then
	NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 plant ddp communication "traffic" -- \
		"$gpufeed" launch --nproc-per-node 2 -- $(job ddp "$secs")
else
	echo "skip ddp: one GPU"
fi
# the predicted speed-up against a run with the planted cause removed: the
# bound part's speedup_if_free beside step(planted) / step(free), markers' means
echo "speed-up if the part were free: predicted (diagnose) against measured (the job without it)" | tee "$out/speedup.txt"
for kind in slow-loader disk cpu-steal; do
	[ -f "$out/$kind.json" ] || continue
	"$gpufeed" diagnose --interval 0.5 --json --report "$out/$kind-free.json" -- \
		$(job "$kind-free" "$secs" "$out/data.bin") >"$out/$kind-free.log" 2>&1
	jq -r -s --arg k "$kind" '.[0] as $p | .[1] as $f | ($p.parts[$p.bound].speedup_if_free) as $pred |
		($p.steps.mean_s / $f.steps.mean_s) as $meas |
		"\($k): \($p.bound) \($p.parts[$p.bound].fraction * 100 | floor)%: predicted \($pred * 100 | round / 100)x, measured \($meas * 100 | round / 100)x (\((($pred - $meas) / $meas * 100) | round)%)"' \
		"$out/$kind.json" "$out/$kind-free.json" | tee -a "$out/speedup.txt"
done
rm -f "$out/data.bin"
exit "$fail"
