#!/usr/bin/env bash
# gpufeed's loader against PyTorch's DataLoader at its best setting, on the
# same datasets with the same consumer, interleaved in one run, and the
# issue's targets as ratios with PASS/FAIL (docs/bench-loader.md, "Against
# PyTorch's DataLoader").
#
# usage: bench/compare-loader-pytorch.sh [options] WORKDIR
#   WORKDIR             where the datasets go (made here, removed at exit
#                       unless --keep; reused when a dataset of the same size
#                       is already there)
#   --size SIZE         bytes of each dataset (default 4G)
#   --sample-sizes LIST sample sizes (default 4K,128K)
#   --runs N            measured runs, at least 5 (default 5)
#   --epochs N          epochs each warm run reads (default 3): a warm epoch
#                       of 1 GiB takes gpufeed a fraction of a second
#   --cold-bytes SIZE   bytes each cold run reads (default 512M): a cold
#                       PyTorch run of 4 KiB random reads over a whole
#                       dataset takes minutes on a small disk
#   --search-bytes SIZE bytes each PyTorch setting of the search reads
#                       (default 512M, warm)
#   --out DIR           results (default WORKDIR/results)
#   --gpufeed PATH      the binary (default build/gpufeed)
#   --no-cold           warm figures only (cold needs root: drop_caches)
#   --keep              keep the datasets
#
# The datasets (made by this script, per sample size S):
#   flat-S.bin   SIZE bytes, sample i at i x S: PyTorch reads it with a
#                map-style Dataset doing one pread per sample (the usual
#                way to store fixed-size samples for a DataLoader)
#   ds-S/        the same bytes as gpufeed shards: gpufeed pack --record-size S
#   files-S/     (S >= 64K, cold) one file per sample: PyTorch's per-sample
#                random reads, the ImageFolder layout
#   ci-4K/, flat-ci-4K.bin  1 GiB of 4 KiB samples for the CI-machine
#                target when SIZE is not 1 GiB
#
# The tools of every measured run (the order ABBA: bench/lib-compare.sh), one
# process each, per unit (warm-S, cold-S, ci):
#   torch-best   DataLoader at the best setting of the search (below)
#   torch-nw2    DataLoader(num_workers=2), otherwise at its defaults (ci)
#   torch-files  the best setting's DataLoader over files-S/ (cold, S >= 64K)
#   gpufeed      gpufeed's loader (2 threads, its defaults); through
#                `import gpufeed` when it imports (python/, built by `make
#                python`), else `gpufeed bench loader`
#   gpufeed-t1, gpufeed-t16   the same with 1 and 16 threads (warm, the
#                smallest S): the memory growth target
#   bench-io     gpufeed bench io FILE --mode seqread --bs 1M --qd 32
#                --direct: the disk's sequential O_DIRECT rate (cold)
# Cold runs: `sync; echo 1 > /proc/sys/vm/drop_caches` before each process
# (the whole page cache: needs root); gpufeed then reads with O_DIRECT,
# PyTorch through the page cache, as each is used.
#
# PyTorch's best setting: every combination of num_workers in {0,1,2,4,8,16}
# up to the CPUs online, pin_memory on and off (only with a GPU: PyTorch 1.13
# ignores it without one), persistent_workers on and off and prefetch_factor
# 2 and 4 (with workers), one warm run each of --search-bytes; the best by
# samples/s (ties: less CPU).  search.tsv has every setting.
#
# With a GPU (torch.cuda.is_available()): the feed measurement too, see
# bench/loader_consumer.py.  Without one it is skipped with a message.
#
# Environment: COMPARE_DEADLINE, COMPARE_SUMMARY_ONLY=1 (bench/lib-compare.sh);
# PYTHON, the interpreter with torch (default /usr/bin/python3, Debian's).
# Output in --out: command.txt, search.tsv, TOOL-UNIT-RUN.json (a record per
# process), runs.tsv, runs.log, summary.txt, summary.json.
# Exit: 0 every target met, 1 one missed or SHORT, 2 usage, 3 a tool failed.
set -euo pipefail
export LC_ALL=C

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cmdline=$(printf '%q ' "$0" "$@")
# shellcheck source-path=SCRIPTDIR source=lib-compare.sh
. "$here/lib-compare.sh"
py=${PYTHON:-/usr/bin/python3}
drv=$here/loader_consumer.py

usage_err() { echo "$prog: $*" >&2; exit 2; }
exec 3>&2
log() { echo "$prog: $*" >&3; }

gf=$repo/build/gpufeed size_arg=4G sizes_arg=4K,128K runs=5 epochs=3 cold_arg=512M search_arg=512M out= keep=0 cold=1 wd=
while (($#)); do
	case $1 in
	--size | --sample-sizes | --runs | --epochs | --cold-bytes | --search-bytes | --out | --gpufeed)
		(($# >= 2)) || usage_err "$1 needs a value"
		case $1 in
		--size) size_arg=$2 ;; --sample-sizes) sizes_arg=$2 ;; --runs) runs=$2 ;; --epochs) epochs=$2 ;;
		--cold-bytes) cold_arg=$2 ;; --search-bytes) search_arg=$2 ;; --out) out=$2 ;; --gpufeed) gf=$2 ;;
		esac
		shift 2 ;;
	--keep) keep=1; shift ;;
	--no-cold) cold=0; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) usage_err "unknown option: $1" ;;
	*) [[ -z $wd ]] || usage_err "one WORKDIR only"; wd=$1; shift ;;
	esac
done
cmp_check "$runs" --runs
[[ $epochs =~ ^[1-9][0-9]*$ ]] || usage_err "--epochs: a whole number >= 1"
to_bytes() {
	local s=$1 n u
	[[ $s =~ ^([0-9]+)([kKmMgG]?)$ ]] || return 1
	n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2],,}
	case $u in k) n=$((n << 10)) ;; m) n=$((n << 20)) ;; g) n=$((n << 30)) ;; esac
	echo "$n"
}
size=$(to_bytes "$size_arg") || usage_err "--size: cannot read '$size_arg' (4G, 512M, bytes)"
cold_bytes=$(to_bytes "$cold_arg") || usage_err "--cold-bytes: cannot read '$cold_arg'"
search_bytes=$(to_bytes "$search_arg") || usage_err "--search-bytes: cannot read '$search_arg'"
sizes=()
IFS=, read -ra words <<<"$sizes_arg"
for w in "${words[@]}"; do
	b=$(to_bytes "$w") && ((b >= 512 && b % 512 == 0)) || usage_err "--sample-sizes: '$w' is not a size of whole 512-byte sectors"
	sizes+=("$b")
done
((${#sizes[@]})) || usage_err "--sample-sizes: none"
[[ -n $wd || $cmp_summary_only == 1 ]] || usage_err "missing WORKDIR (--help)"
[[ -n $out ]] || out=$wd/results
if [[ $cmp_summary_only == 1 ]]; then
	cmp_start "$out" runs.log runs.tsv
	exec $py "$drv" summary "$out"
fi
[[ -x $gf ]] || usage_err "--gpufeed: '$gf' is not an executable (make first)"
$py -c 'import torch' 2>/dev/null || usage_err "$py cannot import torch (apt install python3-torch)"
if ((cold)) && ! [[ -w /proc/sys/vm/drop_caches ]]; then
	usage_err "cold runs drop the page cache (/proc/sys/vm/drop_caches): run as root, or --no-cold"
fi
((size % (1 << 20) == 0 && size >= 16 << 20)) || usage_err "--size: a multiple of 1 MiB, at least 16M"
mkdir -p "$wd" || usage_err "cannot create $wd"
wd=$(cd "$wd" && pwd)
made=()
cleanup() {
	((keep)) || for m in "${made[@]}"; do rm -rf -- "$m"; done
	cmp_cleanup
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM HUP
cmp_start "$out" runs.log
out=$(cd "$out" && pwd)

# The gpufeed tool: the Python binding when it imports, else the bench target.
gf_tool=gpufeed-cli
export PYTHONPATH=$repo/python${PYTHONPATH:+:$PYTHONPATH}
if $py -c 'import gpufeed; gpufeed.Loader' 2>/dev/null; then
	gf_tool=gpufeed
fi
gpu=$($py -c 'import torch; print(int(torch.cuda.is_available()))')
ncpu=$(nproc)

# ---- datasets -------------------------------------------------------------------

human() { local b=$1; if ((b % 1024 == 0)); then echo "$((b >> 10))K"; else echo "$b"; fi; }
make_sets() { # S BYTES TAG: flat-TAG.bin and ds-TAG/ of BYTES
	local s=$1 n=$2 tag=$3 flat=$wd/flat-$3.bin ds=$wd/ds-$3
	if [[ -f $flat && $(stat -c %s "$flat") == "$n" && -f $ds/manifest.json ]]; then
		log "reusing $flat and $ds"
		return
	fi
	rm -rf -- "$flat" "$ds"
	made+=("$flat" "$ds")
	log "making $flat ($n bytes) and $ds (gpufeed pack --record-size $s)"
	$py "$drv" make-flat "$flat" "$n" || { log "making $flat failed"; exit 3; }
	"$gf" pack --record-size "$s" "$flat" "$ds" >"$out/pack-$tag.txt" 2>&1 ||
		{ log "gpufeed pack failed: $(tail -n 3 "$out/pack-$tag.txt")"; exit 3; }
}
tags=()
for s in "${sizes[@]}"; do
	tag=$(human "$s")
	tags+=("$tag")
	make_sets "$s" "$size" "$tag"
	if ((cold && s >= 65536)) && [[ ! -d $wd/files-$tag ]]; then
		made+=("$wd/files-$tag")
		log "making $wd/files-$tag (one file per sample)"
		$py "$drv" make-files "$wd/flat-$tag.bin" "$wd/files-$tag" "$s" || exit 3
	fi
done
ci_tag=4K
if ((size != 1 << 30)) || [[ " ${sizes[*]} " != *" 4096 "* ]]; then
	ci_tag=ci-4K
	make_sets 4096 $((1 << 30)) "$ci_tag"
fi

{
	echo "command: $cmdline"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "uname: $(uname -a)"
	echo "load before: $(cat /proc/loadavg)"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $ncpu CPUs online"
	echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "filesystem: $(df --output=fstype,source,target "$wd" | tail -n 1 | tr -s ' ')"
	echo "python: $py $($py -c 'import sys, torch, numpy; print(sys.version.split()[0], "torch", torch.__version__, "numpy", numpy.__version__, "cuda", torch.cuda.is_available())')"
	echo "gpufeed: $gf ($("$gf" --version | head -1)); loader through: $gf_tool"
	echo "datasets: ${tags[*]} of $size bytes each; ci: $ci_tag; warm runs read $epochs epochs, cold runs $cold_bytes bytes"
} >"$out/command.txt"

drop() { sync; echo 1 >/proc/sys/vm/drop_caches; }
warm_cache() { cat "$@" >/dev/null; } # buffered readers start from a full cache

# ---- PyTorch's best setting, per sample size (warm) --------------------------------

batch_of() { if (($1 >= 65536)); then echo 32; else echo 256; fi; }
printf 'size\tworkers\tpin\tpersistent\tprefetch\tsamples_per_s\tcpu_s_per_gb\tpeak_pss_sum_bytes\n' >"$out/search.tsv"
declare -A BEST
for i in "${!sizes[@]}"; do
	s=${sizes[$i]} tag=${tags[$i]}
	warm_cache "$wd/flat-$tag.bin"
	pins=0
	((gpu)) && pins="0 1"
	for w in 0 1 2 4 8 16; do
		((w <= ncpu)) || continue
		for pin in $pins; do
			if ((w == 0)); then combos="0:2"; else combos="0:2 0:4 1:2 1:4"; fi
			for c in $combos; do
				pers=${c%:*} pf=${c#*:}
				cmp_run=search cmp_unit=$tag
				cmp_exec torch "$out/search-$tag-w$w-p$pin-s$pers-f$pf.json" $py "$drv" run --tool torch \
					--data "flat:$wd/flat-$tag.bin" --sample-size "$s" --batch-size "$(batch_of "$s")" \
					--workers "$w" --pin "$pin" --persistent "$pers" --prefetch "$pf" --samples $((search_bytes / s))
				((CMP_RC == 0)) || { log "torch search w=$w failed: $(tail -n 2 "$CMP_ERR")"; exit 3; }
				$py - "$out/search-$tag-w$w-p$pin-s$pers-f$pf.json" "$tag" >>"$out/search.tsv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("\t".join(str(x) for x in (sys.argv[2], r["workers"], int(r["pin_memory"]), int(r["persistent_workers"]),
      r["prefetch_factor"] or "-", round(r["samples_per_s"]), round(r["cpu_s_per_gb"], 4), r["peak_pss_sum_bytes"])))
PY
			done
		done
	done
	BEST[$tag]=$($py - "$out/search.tsv" "$tag" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["size"] == sys.argv[2]]
b = max(rows, key=lambda r: (float(r["samples_per_s"]), -float(r["cpu_s_per_gb"])))
print(b["workers"], b["pin"], b["persistent"], b["prefetch"] if b["prefetch"] != "-" else 2)
PY
)
	log "[$tag] PyTorch's best: workers pin persistent prefetch = ${BEST[$tag]}"
	echo "best $tag: workers pin persistent prefetch = ${BEST[$tag]}" >>"$out/command.txt"
done

# ---- the measured runs -------------------------------------------------------------

# cmp_tool TOOL UNIT: one process (bench/lib-compare.sh); tools a unit has
# not are skipped.
cmp_tool() {
	local tool=$1 unit=$2 mode=${2%%-*} tag=${2#*-} s args json
	[[ $unit == ci ]] && mode=warm tag=$ci_tag
	s=$(to_bytes "${tag#ci-}")
	json=$out/$tool-$unit-$cmp_run.json
	args=(--sample-size "$s" --batch-size "$(batch_of "$s")" --cache "$mode" --seed "$cmp_run")
	if [[ $mode == cold ]]; then args+=(--samples $((cold_bytes / s))); else args+=(--epochs "$epochs"); fi
	read -r w pin pers pf <<<"${BEST[${tag}]:-2 0 0 2}"
	case $tool in
	torch-best)
		[[ $unit != ci ]] || return 0
		args+=(--tool torch --data "flat:$wd/flat-$tag.bin" --workers "$w" --pin "$pin" --persistent "$pers" --prefetch "$pf") ;;
	torch-nw2)
		[[ $unit == ci ]] || return 0
		args+=(--tool torch --data "flat:$wd/flat-$tag.bin" --workers 2) ;;
	torch-files)
		[[ $mode == cold && -d $wd/files-$tag ]] || return 0
		args+=(--tool torch --data "files:$wd/files-$tag" --workers "$w" --pin "$pin" --persistent "$pers" --prefetch "$pf") ;;
	gpufeed)
		args+=(--tool "$gf_tool" --gpufeed "$gf" --data "gpufeed:$wd/ds-$tag" --threads 2) ;;
	gpufeed-t1 | gpufeed-t16)
		[[ $unit == "warm-${tags[0]}" ]] || return 0
		args+=(--tool "$gf_tool" --gpufeed "$gf" --data "gpufeed:$wd/ds-$tag" --threads "${tool#gpufeed-t}") ;;
	bench-io)
		[[ $mode == cold ]] || return 0
		drop
		cmp_exec "$tool" "$json" "$gf" bench io "$wd/flat-$tag.bin" --mode seqread --bs 1M --qd 32 --direct \
			--duration 5 --json --quiet
		((CMP_RC == 0)) || { log "bench io failed: $(tail -n 2 "$CMP_ERR")"; exit 3; }
		return 0 ;;
	esac
	if [[ $mode == cold ]]; then drop; else warm_cache "$wd/flat-$tag.bin" "$wd/ds-$tag"/*.bin; fi
	cmp_exec "$tool" "$json" $py "$drv" run "${args[@]}"
	((CMP_RC == 0)) || { log "$tool failed on $unit: $(tail -n 3 "$CMP_ERR")"; exit 3; }
}
units=()
for t in "${tags[@]}"; do units+=("warm-$t"); done
((cold)) && for t in "${tags[@]}"; do units+=("cold-$t"); done
units+=(ci)
cmp_tools=(torch-best torch-nw2 torch-files gpufeed gpufeed-t1 gpufeed-t16 bench-io)
cmp_runs "${units[@]}"
echo "load after: $(cat /proc/loadavg)" >>"$out/command.txt"

if ((gpu)); then
	log "GPU: the feed measurement (a training step of fixed GPU time)"
	$py "$drv" feed --out "$out" --gpufeed "$gf" --tool "$gf_tool" --data "$wd/ds-${tags[-1]}" \
		--flat "$wd/flat-${tags[-1]}.bin" --sample-size "${sizes[-1]}" --batch-size "$(batch_of "${sizes[-1]}")" \
		--torch-setting "${BEST[${tags[-1]}]}" || log "the feed measurement failed (see above)"
else
	log "no GPU here (torch.cuda.is_available() is False): the feed measurement is skipped"
fi
$py "$drv" summary "$out"
