#!/usr/bin/env bash
# Issue 8 on a lent GPU machine, read-only (never tune there): `gpufeed check`
# live (text, --all, JSON, Prometheus), as an unprivileged user, against a
# recording of the same machine, and its timing.  The JSON documents land in
# $OUT so the comparisons (root vs nobody, live vs replay) run with jq back
# home: the GPU machines have no jq.  Run from the repository
# root with a built build/gpufeed; writes a few files to $OUT.  Changes
# nothing: check only reads (no tune, no revert, no GPU setting).
set -u
OUT=${OUT:-/tmp/gpufeed-check-evidence}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
gf=${GPUFEED:-build/gpufeed}
exec > >(tee -a "$OUT/log.txt") 2>&1
step() { echo; echo "=== $*"; }

step "machine"
uname -a; nproc; "$gf" --version; id
nvidia-smi -L || { echo "no GPU here"; exit 77; }
nvidia-smi --query-gpu=index,name,driver_version,persistence_mode,ecc.mode.current,mig.mode.current,power.limit,power.default_limit,clocks_event_reasons.active --format=csv

step "gpufeed check (text, problems)"
"$gf" check; echo "check rc=$?"
step "gpufeed check --all (every result)"
"$gf" check --all > "$OUT/check-all.txt"; echo "check --all rc=$?"
cat "$OUT/check-all.txt"
"$gf" check --json > "$OUT/check.json"; echo "check --json rc=$?"
"$gf" check --profile inference --json > "$OUT/check-inference.json"; echo "inference rc=$?"
"$gf" check --prom "$OUT/check.prom" > /dev/null; echo "check --prom rc=$?"
step "inference profile (text)"
"$gf" check --profile inference; echo "inference rc=$?"

step "as nobody (needs-root, never a false pass)"
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	cp "$gf" /tmp/gf-nobody && chmod 755 /tmp/gf-nobody
	setpriv --reuid=nobody --regid=nogroup --clear-groups /tmp/gf-nobody check --json > "$OUT/check-nobody.json"
	echo "nobody rc=$?"
fi

step "recording replays the same statuses"
rm -rf /tmp/rec && "$gf" record /tmp/rec >/dev/null; echo "record rc=$?"
"$gf" record "$OUT/recording.tar.gz" >/dev/null; echo "record FILE.tar.gz rc=$?"
"$gf" check --root /tmp/rec --json > "$OUT/check-replay.json"; echo "replay rc=$?"

step "timing: 10 runs each (ms): live, live --nvml=off, recording"
for mode in live nvml-off replay; do
	t=()
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		s=$(date +%s%N)
		case $mode in
		live) "$gf" check --json > /dev/null ;;
		nvml-off) "$gf" check --json --nvml=off > /dev/null ;;
		replay) "$gf" check --json --root /tmp/rec > /dev/null ;;
		esac
		t+=($(( ($(date +%s%N) - s) / 1000 )))
	done
	printf '%s' "$mode us:"; printf ' %s' "${t[@]}"; echo
done
