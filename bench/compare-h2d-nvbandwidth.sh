#!/usr/bin/env bash
# `gpufeed bench h2d` against NVIDIA's nvbandwidth on a GPU machine: the
# same copies (CE, pinned, each GPU's own NUMA node, nvbandwidth's default
# 512 MiB buffer and 16 copies per sample), RUNS runs of each, interleaved
# (bench/lib-compare.sh: nvbandwidth first in odd runs, gpufeed first in
# even ones), then per GPU and figure the median over the runs of each
# tool, their ratio, its 95% interval and PASS when |ratio - 1| <= 0.02
# (issue 10's bar; bench/compare_verdict.py).  Testcases: the four one-GPU
# ones and nvbandwidth's four all-GPU ones (host_to_all..., gpufeed's *_all
# directions), each asked of gpufeed with --direction.  An all-GPU
# testcase also gets a row "sum": in each run the GPUs' figures added up
# (gpufeed's all_at_once_sums; nvbandwidth's row summed here), judged by
# the same bar: GPUs sharing a host link may split it differently in the
# two tools while the total the host moved agrees.  gpufeed's pageable
# figure of each is shown beside (nvbandwidth has none).
#
#   bench/compare-h2d-nvbandwidth.sh OUTDIR [RUNS]       (RUNS default 5, at least 5)
#
# Environment: GPUFEED (default build/gpufeed), NVBANDWIDTH (default
# bench/.nvbw/nvbandwidth, built by bench/nvbandwidth-kit.sh), H2D_SIZE
# (default 512M: nvbandwidth's -b is MiB, set from it), H2D_TESTS (a
# space-separated subset of the nvbandwidth testcases below, e.g. to give
# a noisy figure more runs; gpufeed measures the same ones, --direction),
# H2D_PAGEABLE (1, the default: gpufeed also measures pageable memory,
# shown beside; 0: pinned only, faster), NVBW_SAMPLES (samples per figure
# per run in both tools) and NVBW_SPLIT (1: each testcase in a process of
# its own, both tools), bench/lib-nvbw.sh; COMPARE_DEADLINE (seconds: start
# no run that would end later; summarise what ran) and COMPARE_SUMMARY_ONLY
# (1: run nothing, summarise OUTDIR's runs again), bench/lib-compare.sh,
# also read as NVBW_DEADLINE and NVBW_SUMMARY_ONLY.  Needs python3 (no jq).
# OUTDIR gets 6 files: nvbandwidth.jsonl and gpufeed.jsonl (every run's
# JSON, one per line), summary.txt, summary.json, log.txt (commands,
# machine, stderr, each process's start and duration), runs.tsv (a line
# per process: start, wall and CPU seconds, exit status, command).
# Exit 0 all PASS, 1 a figure outside 2%, missing, or SHORT (fewer than 5
# paired runs), 2 usage, 3 a tool failed.
set -uo pipefail

size=${H2D_SIZE:-512M}
# shellcheck source-path=SCRIPTDIR source=lib-nvbw.sh
. "$(dirname "$0")/lib-nvbw.sh"
nvbw_setup "$@"
tests=(host_to_device_memcpy_ce device_to_host_memcpy_ce host_to_device_bidirectional_memcpy_ce
       device_to_host_bidirectional_memcpy_ce host_to_all_memcpy_ce all_to_host_memcpy_ce
       host_to_all_bidirectional_memcpy_ce all_to_host_bidirectional_memcpy_ce)
all_tests=" ${tests[*]} "
[ -n "${H2D_TESTS:-}" ] && read -r -a tests <<<"$H2D_TESTS"
for t in "${tests[@]}"; do
	[[ $all_tests == *" $t "* ]] || { echo "$0: H2D_TESTS: '$t' is not one of:$all_tests" >&2; exit 2; }
done
# The same figures from gpufeed (--direction): host_to_device_bidirectional_memcpy_ce
# is its bidirectional_host_to_device.
h2d_direction() {
	local d=${1%_memcpy_ce}
	case $d in *_bidirectional) d=bidirectional_${d%_bidirectional} ;; esac
	echo "$d"
}
nvbw_test_opts() { echo "--direction $(h2d_direction "$1")"; }	# NVBW_SPLIT=1
dirs=()
for t in "${tests[@]}"; do dirs+=("$(h2d_direction "$t")"); done
gfopts=(--json --size "$size" --quiet)
[ "${NVBW_SPLIT:-0}" = 1 ] || gfopts+=(--direction "$(IFS=,; echo "${dirs[*]}")")
[ "${H2D_PAGEABLE:-1}" = 1 ] && gfopts+=(--pageable)
[ -n "${NVBW_SAMPLES:-}" ] && gfopts+=(--repeats "$NVBW_SAMPLES")
{
	echo "# $(date -u +%FT%TZ) $(hostname) $(uname -r)"
	nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,pcie.link.gen.current,pcie.link.width.current \
		--format=csv 2>&1 || true
	# nvbandwidth numbers devices by CUDA ordinal: in PCI order here, so its
	# column i is NVML's (and gpufeed's) GPU i.
	if [ "${NVBW_SPLIT:-0}" = 1 ]; then
		echo "# NVBW_SPLIT=1: each testcase alone in both tools (-t TEST; --direction of that test)"
	fi
	echo "# CUDA_DEVICE_ORDER=PCI_BUS_ID $nvbw -j -b $mib ${NVBW_SAMPLES:+-i $NVBW_SAMPLES }-t ${tests[*]}"
	echo "# $gpufeed bench h2d ${gfopts[*]}"
} >"$log"

nvbw_runs h2d "${gfopts[@]}"

PYTHONPATH=$(dirname "$0") python3 - "$out" "${tests[@]}" <<'PY'
import json, statistics, sys
from compare_verdict import interval_text, overall, short_note, verdict
out, wanted = sys.argv[1], set(sys.argv[2:])
# nvbandwidth testcase -> gpufeed direction (pinned memory, the GPU's node)
pairs = {
    "host_to_device_memcpy_ce": "host_to_device",
    "device_to_host_memcpy_ce": "device_to_host",
    "host_to_device_bidirectional_memcpy_ce": "bidirectional_host_to_device",
    "device_to_host_bidirectional_memcpy_ce": "bidirectional_device_to_host",
    "host_to_all_memcpy_ce": "host_to_all",
    "all_to_host_memcpy_ce": "all_to_host",
    "host_to_all_bidirectional_memcpy_ce": "bidirectional_host_to_all",
    "all_to_host_bidirectional_memcpy_ce": "bidirectional_all_to_host",
}
SUM = "sum"   # the gpu of a row that sums every GPU of an *_all testcase
nv = {}   # (test, gpu) -> [GB/s per run]; gpu SUM: the run's row summed
for line in open(f"{out}/nvbandwidth.jsonl"):
    for tc in json.loads(line)["nvbandwidth"]["testcases"]:
        if tc.get("status") != "Passed" or tc["name"] not in pairs or tc["name"] not in wanted:
            continue
        cells = tc["bandwidth_matrix"][0]
        for g, cell in enumerate(cells):
            if cell != "N/A":
                nv.setdefault((tc["name"], g), []).append(float(cell))
        # What the host moved with every GPU busy: the per-GPU split of a
        # shared link may differ between tools while the total agrees.
        if "all" in pairs[tc["name"]].split("_") and "N/A" not in cells:
            nv.setdefault((tc["name"], SUM), []).append(sum(float(c) for c in cells))
gf = {}   # (test, gpu) -> [median GB/s per run], samples kept too
samples = {}
limits = {}
pageable = {}   # (test, gpu) -> [median GB/s per run] of pageable memory, beside
gpus = {}   # test -> how many GPUs gpufeed summed
has_sums = False   # a gpufeed older than its all_at_once_sums: no sum rows
for line in open(f"{out}/gpufeed.jsonl"):
    doc = json.loads(line)
    has_sums |= "all_at_once_sums" in doc
    for p in doc["points"]:
        if p.get("status") == "error":
            continue
        test = next(t for t, d in pairs.items() if d == p["direction"])
        if test not in wanted:
            continue
        if p.get("memory") == "pageable":
            pageable.setdefault((test, p["gpu"]), []).append(p["median"])
            continue
        gf.setdefault((test, p["gpu"]), []).append(p["median"])
        samples.setdefault((test, p["gpu"]), []).extend(p["samples"])
        limits[(test, p["gpu"])] = (p.get("limit_gb_per_s"), p.get("host_node"))
    # gpufeed's own sum of the GPUs' pinned medians (null when one failed)
    for s in doc.get("all_at_once_sums", []):
        test = next(t for t, d in pairs.items() if d == s["direction"])
        if test in wanted and s.get("sum_gb_per_s") is not None:
            gf.setdefault((test, SUM), []).append(s["sum_gb_per_s"])
            gpus[test] = s["gpus"]
if not has_sums:
    nv = {k: v for k, v in nv.items() if k[1] != SUM}
rows = []
order = list(pairs)
def place(key):   # each testcase's GPUs, then their sum
    return (order.index(key[0]), (1, 0) if key[1] == SUM else (0, key[1]))
for key in sorted(set(nv) | set(gf), key=place):
    a, b = gf.get(key, []), nv.get(key, [])
    lim = limits.get(key, (None, None))
    row = {"test": key[0], "gpu": key[1], "gpufeed_runs": a, "nvbandwidth_runs": b,
           "gpufeed_samples": samples.get(key, []),
           "limit_gb_per_s": lim[0], "host_node": lim[1],
           "gpufeed_pageable_runs": pageable.get(key, [])}
    if key[1] == SUM:
        row["gpus"] = gpus.get(key[0])
    if pageable.get(key):
        row["gpufeed_pageable_median"] = statistics.median(pageable[key])
    row.update(verdict(a, b))
    rows.append(row)
result, line = overall(rows)
json.dump({"runs": max([r["paired_runs"] for r in rows] or [0]), "bar": "|median ratio - 1| <= 0.02",
           "figures": rows, "result": result, "all_pass": result == "PASS"},
          open(f"{out}/summary.json", "w"), indent=1)
with open(f"{out}/summary.txt", "w") as f:
    f.write(f"{'testcase':42} {'GPU':>3} {'gpufeed':>9} {'nvbw':>9} {'ratio':>7} {'95% of ratio':>12} {'%limit':>7} {'pageable':>9}  result\n")
    for r in rows:
        lim = r["limit_gb_per_s"]
        pct = f"{100 * r['gpufeed_median'] / lim:6.1f}%" if lim and "gpufeed_median" in r else "      -"
        pct += f" {r['gpufeed_pageable_median']:9.2f}" if "gpufeed_pageable_median" in r else f" {'-':>9}"
        if "ratio" in r:
            f.write(f"{r['test']:42} {r['gpu']:>3} {r['gpufeed_median']:9.2f} {r['nvbandwidth_median']:9.2f} "
                    f"{r['ratio']:7.4f} {interval_text(r):>12} {pct}  {r['result']}{short_note(r)}\n")
        else:
            f.write(f"{r['test']:42} {r['gpu']:>3} {'-':>9} {'-':>9} {'-':>7} {'-':>12} {pct}  MISSING "
                    f"(gpufeed {len(r['gpufeed_runs'])} runs, nvbandwidth {len(r['nvbandwidth_runs'])})\n")
    f.write(line + " (medians over the runs; 95% of ratio: its bootstrap interval over the paired runs; "
            "GB/s = 1e9 bytes/s; GPU sum: an *_all testcase's GPUs added up in each run, "
            "what the host moved with every GPU busy; pageable: gpufeed's figure of the same "
            "copies from pageable memory, which nvbandwidth does not measure)\n")
    if not has_sums:
        f.write("No GPU sums: gpufeed's JSON has no all_at_once_sums (an older gpufeed).\n")
print(open(f"{out}/summary.txt").read(), end="")
sys.exit(0 if result == "PASS" else 1)
PY
