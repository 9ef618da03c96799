#!/usr/bin/env bash
# The figures of `gpufeed bench overlap` for bench/results/: on a machine
# with 2 or more GPUs, the bucket-size sweep (DDP's 25 MiB default among
# 1M..100M and one bucket) at each compute time, REPEATS times, in one
# process over every GPU and (with OVERLAP_MULTI=1, the default) one process
# per GPU under `gpufeed launch`; every run's JSON (raw per-iteration
# samples), the machine, the commands, and a summary of the overlap
# fraction per (mode, compute, bucket) over the repeats.
#
#   bench/overlap-sweep.sh OUT [REPEATS]        (REPEATS >= 1, default 5)
#
# Environment:
#   GPUFEED             the binary (default build/gpufeed)
#   OVERLAP_GRAD        --grad-bytes (default 1G)
#   OVERLAP_COMPUTE_MS  compute times swept, ms (default "5 20 80": the
#                       all-reduces' time below, near and above it)
#   OVERLAP_BUCKETS     --buckets (default 1M,5M,10M,25M,50M,100M,all)
#   OVERLAP_ITERS       --repeats per figure (default 20)
#   OVERLAP_MULTI       0: single process only (default 1)
#   OVERLAP_GPUS        --gpu for the single-process runs (default all)
# NCCL_NVLS_ENABLE=0 is exported unless set (as for bench coll), so the
# all-reduce is the ring/tree NCCL chooses without NVLink SHARP.
set -euo pipefail

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 OUT [REPEATS]" >&2; exit 2; }
out=$1 repeats=${2:-5}
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPEATS must be a number >= 1" >&2; exit 2; }
gpufeed=${GPUFEED:-build/gpufeed}
grad=${OVERLAP_GRAD:-1G}
computes=${OVERLAP_COMPUTE_MS:-5 20 80}
buckets=${OVERLAP_BUCKETS:-1M,5M,10M,25M,50M,100M,all}
iters=${OVERLAP_ITERS:-20}
multi=${OVERLAP_MULTI:-1}
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
[ -x "$gpufeed" ] || { echo "$0: $gpufeed is not an executable (set GPUFEED)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "$0: python3 is needed for the summary" >&2; exit 2; }
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
[ "${ngpu:-0}" -ge 2 ] || { echo "$0: needs 2 or more GPUs (nvidia-smi -L lists ${ngpu:-0})" >&2; exit 4; }
mkdir -p "$out"

# The machine, once.
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(hostname)"
	echo "kernel: $(uname -r)"
	echo "gpufeed: $("$gpufeed" --version 2>&1 | head -1)"
	echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
	nvidia-smi -L
	nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm --format=csv
	nvidia-smi topo -m
} >"$out/machine.txt" 2>&1
: >"$out/commands.txt"

run() {		# run NAME CMD...: the command, its JSON in OUT/NAME.json
	local name=$1
	shift
	echo "$name: $*" >>"$out/commands.txt"
	echo "== $name" >&2
	"$@" || echo "$name: exit $?" >>"$out/commands.txt"
}

for r in $(seq 1 "$repeats"); do
	for c in $computes; do
		args=(bench overlap --grad-bytes "$grad" --buckets "$buckets" --compute-ms "$c" --repeats "$iters" --json)
		gpus=()
		[ -n "${OVERLAP_GPUS:-}" ] && gpus=(--gpu "$OVERLAP_GPUS")
		run "single-c$c-r$r" "$gpufeed" "${args[@]}" "${gpus[@]}" -o "$out/single-c$c-r$r.json"
		if [ "$multi" = 1 ]; then
			# Each rank writes its own file; the figures are the same on
			# every rank (the slowest rank's), rank 0's is the one kept.
			export OVERLAP_OUT="$out/multi-c$c-r$r"
			run "multi-c$c-r$r" "$gpufeed" launch --nproc-per-node "$ngpu" -- sh -c \
				'exec "$0" "$@" -o "$OVERLAP_OUT.rank$RANK.json"' "$gpufeed" "${args[@]}"
			[ -f "$out/multi-c$c-r$r.rank0.json" ] && mv "$out/multi-c$c-r$r.rank0.json" "$out/multi-c$c-r$r.json"
		fi
	done
done

# Summary: per (mode, compute ms, bucket) the median over the repeats of
# each figure's median and of the fraction.
python3 - "$out" >"$out/summary.tsv" <<'PY'
import glob, json, os, statistics, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*-c*-r*.json"))):
    base = os.path.basename(f)
    if ".rank" in base:
        continue
    mode = base.split("-")[0]
    d = json.load(open(f))
    for c in d["configs"]:
        k = (mode, d["config"]["compute_ms"], c["bucket_bytes"], c["bucket"], c["buckets"])
        fig = {m: c["figures"][m].get("median") for m in ("compute", "comm", "serial", "overlap")}
        rows.setdefault(k, []).append((fig, c["overlap_fraction"]))
print("mode\tcompute_ms\tbucket\tbuckets\truns\tcompute_med_ms\tcomm_ms\tserial_ms\toverlap_ms\tfraction\tfraction_min\tfraction_max")
med = lambda xs: statistics.median(xs) if xs else float("nan")
for k in sorted(rows):
    v = rows[k]
    fr = [x[1] for x in v if x[1] is not None]
    figs = [med([x[0][m] for x in v if x[0][m] is not None]) for m in ("compute", "comm", "serial", "overlap")]
    print("\t".join([k[0], str(k[1]), k[3], str(k[4]), str(len(v))] + ["%.3f" % x for x in figs] +
                    ["%.3f" % med(fr), "%.3f" % (min(fr) if fr else float("nan")), "%.3f" % (max(fr) if fr else float("nan"))]))
PY
# column(1) is not on every GPU machine (bsdextrautils): the TSV as is there.
if command -v column >/dev/null; then column -t -s $'\t' "$out/summary.tsv" >&2; else cat "$out/summary.tsv" >&2; fi
echo "$0: runs, machine.txt, commands.txt and summary.tsv in $out" >&2
