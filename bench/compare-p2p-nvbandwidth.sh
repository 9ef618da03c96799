#!/usr/bin/env bash
# `gpufeed bench p2p` against NVIDIA's nvbandwidth on a GPU machine: the
# same copies (nvbandwidth's d2d read/write testcases, CE and SM,
# unidirectional and bidirectional, and device_local_copy; its default
# 512 MiB buffer and 16 copies per sample), RUNS runs of each, interleaved
# (bench/lib-compare.sh: nvbandwidth first in odd runs, gpufeed first in
# even ones), then per matching figure (a testcase's matrix cell) the
# median over the runs of each tool, their ratio, its 95% interval and PASS
# when |ratio - 1| <= 0.02 (issue 10's bar; bench/compare_verdict.py).  Latency
# (device_to_device_latency_sm) is listed beside it as INFO, outside the
# bar.  One GPU: only device_local_copy matches (nvbandwidth waives the
# peer testcases); N GPUs: every cell of every pair with peer access.
#
#   bench/compare-p2p-nvbandwidth.sh OUTDIR [RUNS]       (RUNS default 5, at least 5)
#
# Environment: GPUFEED (default build/gpufeed), NVBANDWIDTH (default
# bench/.nvbw/nvbandwidth, built by bench/nvbandwidth-kit.sh), P2P_SIZE
# (default 512M: nvbandwidth's -b is MiB, set from it), NVBW_SAMPLES
# (bench/lib-nvbw.sh), COMPARE_DEADLINE and COMPARE_SUMMARY_ONLY
# (bench/lib-compare.sh; also read as NVBW_DEADLINE, NVBW_SUMMARY_ONLY).
# Needs python3 (no jq).
# OUTDIR gets 6 files: nvbandwidth.jsonl and gpufeed.jsonl (every run's
# JSON, one per line), summary.txt, summary.json, log.txt (commands,
# machine, stderr, each process's start and duration), runs.tsv (a line
# per process).  Exit 0 all PASS, 1 a figure outside 2%, missing or SHORT
# (fewer than 5 paired runs: the summary says SHORT, with how many figures
# matched), 2 usage, 3 a tool failed.
set -uo pipefail

size=${P2P_SIZE:-512M}
# shellcheck source-path=SCRIPTDIR source=lib-nvbw.sh
. "$(dirname "$0")/lib-nvbw.sh"
nvbw_setup "$@"
tests=(device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce
       device_to_device_bidirectional_memcpy_read_ce device_to_device_bidirectional_memcpy_write_ce
       device_to_device_memcpy_read_sm device_to_device_memcpy_write_sm
       device_to_device_bidirectional_memcpy_read_sm device_to_device_bidirectional_memcpy_write_sm
       device_local_copy device_to_device_latency_sm)
{
	echo "# $(date -u +%FT%TZ) $(hostname) $(uname -r)"
	nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv 2>&1 || true
	nvidia-smi topo -m 2>&1 || true
	# nvbandwidth numbers devices by CUDA ordinal: in PCI order here, so its
	# row/column i is NVML's (and gpufeed's) GPU i.
	echo "# CUDA_DEVICE_ORDER=PCI_BUS_ID $nvbw -j -b $mib ${NVBW_SAMPLES:+-i $NVBW_SAMPLES }-t ${tests[*]}"
	echo "# $gpufeed bench p2p --json --size $size --quiet${NVBW_SAMPLES:+ --repeats $NVBW_SAMPLES}"
} >"$log"

nvbw_runs p2p --json --size "$size" --quiet ${NVBW_SAMPLES:+--repeats "$NVBW_SAMPLES"}

PYTHONPATH=$(dirname "$0") python3 - "$out" "${tests[@]}" <<'PY'
import json, sys
from compare_verdict import interval_text, overall, short_note, verdict
out, order = sys.argv[1], sys.argv[2:]
nv = {}   # (testcase, row, column) -> [value per run]
for line in open(f"{out}/nvbandwidth.jsonl"):
    for tc in json.loads(line)["nvbandwidth"]["testcases"]:
        if tc.get("status") != "Passed" or tc["name"] not in order:
            continue
        m = tc.get("bandwidth_matrix", [])
        # The bidirectional testcases append read1 (write1), read2 and total
        # to one matrix: its first ncols rows are the first.
        if "bidirectional" in tc["name"] and m:
            m = m[:len(m[0])]
        for r, row in enumerate(m):
            for c, cell in enumerate(row):
                if cell != "N/A":
                    nv.setdefault((tc["name"], r, c), []).append(float(cell))
gf, samples, limits = {}, {}, {}
for line in open(f"{out}/gpufeed.jsonl"):
    for p in json.loads(line)["points"]:
        n = p.get("nvbandwidth")
        if not n or p.get("status") == "error":
            continue
        key = (n["testcase"], n["row"], n["column"])
        gf.setdefault(key, []).append(p["median"])
        samples.setdefault(key, []).extend(p["samples"])
        limits[key] = p.get("limit_gb_per_s")
rows = []
for key in sorted(set(nv) | set(gf), key=lambda k: (order.index(k[0]), k[1], k[2])):
    a, b = gf.get(key, []), nv.get(key, [])
    info = key[0].endswith("latency_sm")
    row = {"test": key[0], "row": key[1], "column": key[2], "gpufeed_runs": a, "nvbandwidth_runs": b,
           "gpufeed_samples": samples.get(key, []), "limit_gb_per_s": limits.get(key),
           "unit": "ns" if info else "GB/s"}
    row.update(verdict(a, b, info))
    rows.append(row)
# A figure both tools gave, PASS, FAIL or SHORT alike
matched = sum("ratio" in r and r["result"] != "INFO" for r in rows)
result, line = overall(rows)
json.dump({"runs": max([r["paired_runs"] for r in rows] or [0]), "bar": "|median ratio - 1| <= 0.02",
           "figures": rows, "matched": matched, "result": result, "all_pass": result == "PASS"},
          open(f"{out}/summary.json", "w"), indent=1)
with open(f"{out}/summary.txt", "w") as f:
    f.write(f"{'testcase':48} {'row':>3} {'col':>3} {'gpufeed':>9} {'nvbw':>9} {'ratio':>7} {'95% of ratio':>12} {'%limit':>7}  result\n")
    for r in rows:
        lim = r["limit_gb_per_s"]
        pct = f"{100 * r['gpufeed_median'] / lim:6.1f}%" if lim and "gpufeed_median" in r else "      -"
        if "ratio" in r:
            f.write(f"{r['test']:48} {r['row']:>3} {r['column']:>3} {r['gpufeed_median']:9.2f} "
                    f"{r['nvbandwidth_median']:9.2f} {r['ratio']:7.4f} {interval_text(r):>12} {pct}  {r['result']}"
                    f"{' (ns, outside the bar)' if r['unit'] == 'ns' else ''}"
                    f"{short_note(r)}\n")
        else:
            f.write(f"{r['test']:48} {r['row']:>3} {r['column']:>3} {'-':>9} {'-':>9} {'-':>7} {'-':>12} {pct}  "
                    f"{r['result']} (gpufeed {len(r['gpufeed_runs'])} runs, nvbandwidth {len(r['nvbandwidth_runs'])})\n")
    f.write(line + " (medians over the runs; 95% of ratio: its bootstrap interval over the paired runs; "
            "GB/s = 1e9 bytes/s; bidirectional: nvbandwidth's read1/write1)\n")
print(open(f"{out}/summary.txt").read(), end="")
sys.exit(0 if result == "PASS" else 1)
PY
