#!/usr/bin/env bash
# bench coll's "NCCL chose" column against what NCCL was made to choose, on a
# lent machine of 2 or more GPUs: NCCL_ALGO/NCCL_PROTO force the algorithm
# and protocol (NCCL's environment page), NCCL_MAX_NCHANNELS bounds the
# channels, and every row must report exactly that; unforced, every row of a
# collective has a choice and no reason for its absence; and NCCL's own
# TUNING lines of the timed calls (the user's NCCL_DEBUG on stdout) name the
# same algorithm, protocol and channels as the column for each size.
# Elsewhere it skips (exit 77) with one line saying why.  Output under $OUT
# (or a temp directory): each run's JSON and the NCCL log of the last.
#   tests/gpu/coll-choice-evidence.sh        exit 0 all ok, 1 a mismatch, 77 skipped
set -u
cd "$(dirname "$0")/../.."
gf=${GPUFEED:-$PWD/build/gpufeed}
if ! command -v nvidia-smi >/dev/null 2>&1 || [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]; then
	echo "skip: fewer than 2 NVIDIA GPUs here"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: python3 is needed to read the JSON"
	exit 77
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
unset NCCL_ALGO NCCL_PROTO NCCL_MAX_NCHANNELS NCCL_DEBUG NCCL_DEBUG_SUBSYS NCCL_DEBUG_FILE
sizes=(--gpus 0,1 --min-bytes 64K --max-bytes ${COLL_MAX_BYTES:-256M} --step-factor 16 --iters 5 --warmup-iters 2)
"$gf" bench coll "${sizes[@]}" --max-bytes 64K --quiet >"$out/probe.txt" 2>&1
case $? in
0) ;;
4) echo "skip: $(tail -1 "$out/probe.txt")"; exit 77 ;;
*) echo "not ok - bench coll failed:"; tail -5 "$out/probe.txt"; exit 1 ;;
esac
if grep -q "^NCCL's choice: not shown" "$out/probe.txt"; then
	echo "skip: $(grep "^NCCL's choice: not shown" "$out/probe.txt")"
	exit 77
fi
rc=0

# check NAME JSON PYTHON-EXPR: the expression over `rows` (the results) and `doc` must hold
check() {
	local name=$1 json=$2 expr=$3
	if python3 - "$json" "$expr" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["results"]
ok = eval(sys.argv[2])
if not ok:
    for r in rows:
        print("#   %10d %s/%s/%s" % (r["size"], r["nccl_algorithm"], r["nccl_protocol"], r["nccl_channels"]))
    print("#   absent: %s" % doc["nccl"]["choice_absent"])
sys.exit(0 if ok else 1)
PY
	then echo "ok - $name"; else echo "not ok - $name"; rc=1; fi
}

# run NAME ENV... -- BENCH-ARGS...: bench coll's JSON into $out/NAME.json
run() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	if ! env "${envs[@]}" "$gf" bench coll "${sizes[@]}" "$@" --json --quiet >"$out/$name.json" 2>"$out/$name.err"; then
		echo "not ok - $name: bench coll failed"; tail -3 "$out/$name.err"; rc=1; return 1
	fi
}

run unforced -- --op all_reduce &&
	check "unforced all_reduce: every row has NCCL's choice" "$out/unforced.json" \
		'doc["nccl"]["choice_absent"] is None and all(r["nccl_algorithm"] and r["nccl_protocol"] and r["nccl_channels"] >= 1 for r in rows)'
for ap in Ring:Simple Ring:LL Ring:LL128 Tree:Simple Tree:LL; do
	a=${ap%:*} p=${ap#*:}
	A=$(echo "$a" | tr a-z A-Z) P=$(echo "$p" | tr a-z A-Z)
	run "ar-$a-$p" NCCL_ALGO="$a" NCCL_PROTO="$p" -- --op all_reduce &&
		check "all_reduce with NCCL_ALGO=$a NCCL_PROTO=$p: every row $A/$P" "$out/ar-$a-$p.json" \
			"all(r['nccl_algorithm'] == '$A' and r['nccl_protocol'] == '$P' for r in rows)"
done
for op in all_gather reduce_scatter broadcast reduce; do
	run "$op-ring-simple" NCCL_ALGO=Ring NCCL_PROTO=Simple -- --op "$op" &&
		check "$op with NCCL_ALGO=Ring NCCL_PROTO=Simple: every row RING/SIMPLE" "$out/$op-ring-simple.json" \
			"all(r['nccl_algorithm'] == 'RING' and r['nccl_protocol'] == 'SIMPLE' for r in rows)"
done
run max-ch-2 NCCL_ALGO=Ring NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=2 -- --op all_reduce &&
	check "NCCL_MAX_NCHANNELS=2: no row above 2 channels" "$out/max-ch-2.json" \
		"all(1 <= r['nccl_channels'] <= 2 for r in rows)"
run alltoall -- --op alltoall &&
	check "alltoall: no choice, and why" "$out/alltoall.json" \
		"'point-to-point' in doc['nccl']['choice_absent'] and all(r['nccl_algorithm'] is None for r in rows)"

# NCCL's own lines of the timed calls (NCCL_DEBUG on stdout, put back after
# each capture) against the column: the same choice for each size.  Text
# output, on the same stdout as NCCL's lines (--output would take NCCL's
# stdout lines into the file too).
if env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING "$gf" bench coll "${sizes[@]}" --op all_reduce --quiet \
	>"$out/logged.txt" 2>"$out/logged.err"; then
	if python3 - "$out/logged.txt" <<'PY'
import re, sys
line_re = re.compile(r"NCCL INFO AllReduce: (\d+) Bytes -> Algo (\S+) proto (\S+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}")
row_re = re.compile(r"^\s*(\d+)\s+(\d+)\s+float\s.*\s(\S+)/(\S+)/(\d+)$")
seen, rows = {}, []
for line in open(sys.argv[1], errors="replace"):
    m = line_re.search(line)
    if m:
        seen.setdefault(int(m.group(1)), set()).add((m.group(2), m.group(3), int(m.group(5)) - int(m.group(4)) + 1))
        continue
    m = row_re.match(line.rstrip("\n"))
    if m:
        rows.append((int(m.group(1)), (m.group(3), m.group(4), int(m.group(5)))))
bad = 0
for size, got in rows:
    want = seen.get(size, set())
    if want != {got}:
        print("#   %d bytes: column %s, NCCL logged %s" % (size, got, sorted(want)))
        bad += 1
if not rows:
    print("#   no table row with a choice")
sys.exit(1 if bad or not rows else 0)
PY
	then echo "ok - the column matches NCCL's own lines of the timed calls, size by size"
	else echo "not ok - the column differs from NCCL's own lines"; rc=1; fi
else
	echo "not ok - bench coll with the user's NCCL_DEBUG failed"; tail -3 "$out/logged.err"; rc=1
fi
echo "output in $out"
exit $rc
