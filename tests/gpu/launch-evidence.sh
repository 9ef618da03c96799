#!/usr/bin/env bash
# The launch issue's evidence on a GPU machine (2 ranks where there are 2
# GPUs, 1 on a 1-GPU machine, NPROC=N to choose), in one run of about a
# minute (device time is scarce):
#   1. `gpufeed launch --nproc-per-node "$np"` runs tests/gpu/allreduce.py (a
#      PyTorch NCCL all-reduce); while both ranks hold with NCCL up, `gpufeed
#      verify PID` reads each rank's binding back (exit 1 on a mismatch);
#   2. `gpufeed config nccl-topo` writes an NCCL topology XML, which must
#      parse; the all-reduce runs again with NCCL_TOPO_FILE pointing at it
#      and NCCL_DEBUG=INFO, and the log must show NCCL taking the file;
#   3. the two bus bandwidths (mean busbw of the sizes >= 64 MiB) must agree
#      within 2%; when they do not, both runs are repeated once (A B A B) so
#      drift is told from an effect, and the medians decide.
# Run from the repository root with build/gpufeed built from a tree that has
# launch, verify and config (or GPUFEED=path).  Writes 8 files to OUTDIR (the
# device tool's limit): log.txt, plan.json, verify-rank0.json,
# verify-rank1.json, topo.xml, run-default.log, run-topo.log,
# nccl-dump-topo.xml.  Exit 0 when everything holds, 1 when something does
# not, 77 (skip) without a GPU, PyTorch or NCCL.
#   tests/gpu/launch-evidence.sh OUTDIR
set -u
OUT=${1:?usage: tests/gpu/launch-evidence.sh OUTDIR}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
gf=$(realpath "${GPUFEED:-build/gpufeed}" 2>/dev/null)
# Never NVLink multicast on these shared hosts; NCCL's INFO lines in both runs
# alike, so the two differ only in NCCL_TOPO_FILE.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,GRAPH
exec > >(tee "$OUT/log.txt") 2>&1
step() { echo; echo "=== $*"; }
fails=()
fail() { echo "FAIL: $*"; fails+=("$*"); }

[ -n "$gf" ] && [ -x "$gf" ] || { echo "no gpufeed binary (${GPUFEED:-build/gpufeed}): build first"; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "skip: no NVIDIA GPU"; exit 77; }
python3 -c 'import sys, torch, torch.distributed as d
sys.exit(0 if torch.cuda.device_count() >= 1 and d.is_nccl_available() else 1)' 2>/dev/null ||
	{ echo "skip: needs PyTorch with NCCL and a visible GPU"; exit 77; }
# Ranks: NPROC, else 2 where there are 2 GPUs or more, else 1.  One rank
# still shows launch's binding, verify and NCCL taking the file, but an
# all-reduce of one rank moves nothing between GPUs: no bandwidth is compared.
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())')
np=${NPROC:-$((ngpu >= 2 ? 2 : 1))}
last=$((np - 1))
for c in launch verify "config nccl-topo"; do
	# shellcheck disable=SC2086
	"$gf" help $c >/dev/null 2>&1 || fail "this gpufeed has no '$c' (build from a tree with it)"
done
ar=(python3 "$PWD/tests/gpu/allreduce.py")
t_start=$(date +%s)

step "machine"
uname -r; nproc; "$gf" --version
nvidia-smi -L
nvidia-smi topo -m
python3 -c 'import torch; print("torch", torch.__version__, "NCCL", ".".join(map(str, torch.cuda.nccl.version())))'
for g in $(seq 0 "$last"); do "$gf" topo --gpu "$g"; done

step "the plan: gpufeed launch --nproc-per-node "$np" --dry-run"
"$gf" launch --nproc-per-node "$np" --dry-run -- "${ar[@]}" || fail "launch --dry-run exit $?"
"$gf" launch --nproc-per-node "$np" --dry-run --json -- "${ar[@]}" >"$OUT/plan.json" || fail "launch --dry-run --json exit $?"

# busbw RESULT of a run log (rank 0's line), or nothing.
busbw() { sed -n 's/^\[0\] RESULT busbw_gbs=\([0-9.]*\).*/\1/p' "$1" | tail -1; }

step "run 1: default topology, each rank verified while NCCL is up"
rd=$(mktemp -d)
timeout 240 "$gf" launch --nproc-per-node "$np" -- "${ar[@]}" --ready-dir "$rd" --hold 90 >"$OUT/run-default.log" 2>&1 &
lpid=$!
for _ in $(seq 1200); do
	all=1
	for r in $(seq 0 "$last"); do [ -e "$rd/rank.$r" ] || all=0; done
	[ "$all" = 1 ] && break
	kill -0 "$lpid" 2>/dev/null || break
	sleep 0.1
done
for r in $(seq 0 "$last"); do
	if [ ! -e "$rd/rank.$r" ]; then fail "rank $r never reported ready (see run-default.log)"; continue; fi
	pid=$(cat "$rd/rank.$r")
	echo "--- gpufeed verify $pid (rank $r)"
	"$gf" verify "$pid"; rc=$?
	echo "verify rank $r: exit $rc"
	[ "$rc" = 0 ] || fail "verify of rank $r (pid $pid) exit $rc"
	"$gf" verify "$pid" --json >"$OUT/verify-rank$r.json" || true
done
touch "$rd/go"
wait "$lpid"; rc=$?
echo "launch exit $rc"
[ "$rc" = 0 ] || fail "run 1 (default topology): launch exit $rc"
grep -E '^\[[0-9]+\] binding: (Cpus|Mems)_allowed_list|^\[[0-9]+\] binding: (CUDA_VISIBLE_DEVICES|torch.cuda|memory policy)' \
	"$OUT/run-default.log"
grep -E '^\[0\] ( |#)' "$OUT/run-default.log"
rm -rf "$rd"

step "gpufeed config nccl-topo"
"$gf" config nccl-topo -o "$OUT/topo.xml"; rc=$?
echo "config nccl-topo exit $rc"
[ "$rc" = 0 ] || fail "config nccl-topo exit $rc"
python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot()
print("topo.xml parses:", r.tag, r.attrib, len(list(r.iter())), "elements")' "$OUT/topo.xml" ||
	fail "topo.xml does not parse as XML"
cat "$OUT/topo.xml"

step "run 2: NCCL_TOPO_FILE=topo.xml"
NCCL_TOPO_FILE=$OUT/topo.xml NCCL_TOPO_DUMP_FILE=$OUT/nccl-dump-topo.xml \
	timeout 240 "$gf" launch --nproc-per-node "$np" -- "${ar[@]}" >"$OUT/run-topo.log" 2>&1; rc=$?
echo "launch exit $rc"
[ "$rc" = 0 ] || fail "run 2 (NCCL_TOPO_FILE): launch exit $rc"
grep -E '^\[0\] ( |#)' "$OUT/run-topo.log"
echo "--- what NCCL said about the file"
grep -E 'NCCL_TOPO_FILE|[Tt]opology file|XML' "$OUT/run-topo.log" | sort -u
if ! grep -q "NCCL_TOPO_FILE set by environment to $OUT/topo.xml" "$OUT/run-topo.log"; then
	fail "NCCL did not report taking NCCL_TOPO_FILE"
elif grep -q "Could not open XML topology file" "$OUT/run-topo.log"; then
	fail "NCCL could not open topo.xml"
else
	echo "NCCL loaded $OUT/topo.xml"
fi
grep ' WARN ' "$OUT/run-topo.log" | sort -u | head -20
[ -s "$OUT/nccl-dump-topo.xml" ] && echo "NCCL's own dump of the topology it used: nccl-dump-topo.xml ($(wc -l <"$OUT/nccl-dump-topo.xml") lines)"

step "bandwidth: default vs NCCL_TOPO_FILE"
a=$(busbw "$OUT/run-default.log") b=$(busbw "$OUT/run-topo.log")
if [ "$np" = 1 ]; then
	echo "not compared: one rank moves nothing between GPUs (needs 2 GPUs)"
	a=skip
fi
echo "busbw default: ${a:-none} GB/s, with topo.xml: ${b:-none} GB/s"
within() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); r = b / a
print("ratio %.4f (%+.2f%%)" % (r, (r - 1) * 100)); sys.exit(0 if abs(r - 1) <= 0.02 else 1)' "$1" "$2"; }
if [ "$a" = skip ]; then
	:
elif [ -z "$a" ] || [ -z "$b" ]; then
	fail "no RESULT line in a run log"
elif ! within "$a" "$b"; then
	echo "outside 2%: both again (A B A B), the medians decide"
	tmp=$(mktemp -d)
	timeout 240 "$gf" launch --nproc-per-node "$np" -- "${ar[@]}" >"$tmp/a2.log" 2>&1
	NCCL_TOPO_FILE=$OUT/topo.xml timeout 240 "$gf" launch --nproc-per-node "$np" -- "${ar[@]}" >"$tmp/b2.log" 2>&1
	a2=$(busbw "$tmp/a2.log") b2=$(busbw "$tmp/b2.log")
	echo "second pair: default ${a2:-none}, with topo.xml ${b2:-none} GB/s"
	ma=$(python3 -c 'import sys; v = sorted(float(x) for x in sys.argv[1:] if x); print(v[len(v) // 2])' "$a" "$a2")
	mb=$(python3 -c 'import sys; v = sorted(float(x) for x in sys.argv[1:] if x); print(v[len(v) // 2])' "$b" "$b2")
	echo "upper medians: default $ma, with topo.xml $mb GB/s"
	within "$ma" "$mb" || fail "busbw with topo.xml differs by more than 2%"
	rm -rf "$tmp"
fi

step "summary ($(($(date +%s) - t_start)) s)"
if [ ${#fails[@]} -eq 0 ]; then
	if [ "$np" = 1 ]; then
		echo "PASS: launch ran 1 bound rank, verify found it local, NCCL loaded topo.xml (bandwidth not compared: 1 GPU)"
	else
		echo "PASS: launch ran $np bound ranks, verify found each rank local, NCCL loaded topo.xml, busbw within 2%"
	fi
	exit 0
fi
printf 'FAIL: %s\n' "${fails[@]}"
exit 1
