#!/usr/bin/env bash
# fio against `gpufeed bench io` on the same file with the same settings,
# interleaved, and the median ratios gpufeed/fio: against fio at its
# defaults and against fio at its best tuning, each labelled.
#
# usage: bench/compare-fio.sh [--gpufeed PATH] [--fio PATH] [--runs N]
#            [--duration S] [--size SIZE] [--out DIR] [--keep]
#            [--tune-duration S] [--patterns seq,rand] [--fio-extra 'ARGS']
#            [--no-sqpoll] [--best-iomem MODE] FILE_OR_DIR
#
# Patterns (all O_DIRECT, one submitting thread):
#   seq   sequential reads, 1 MiB blocks.  Target: gpufeed >= 0.95x fio GB/s.
#   rand  random reads, 4 KiB blocks.  Target: gpufeed >= 0.90x fio IOPS and
#         gpufeed CPU s/GB <= fio CPU s/GB (ratio <= 1.00).
# Each target is judged against both fio tunings, on the medians of the
# paired runs (bench/compare_verdict.py, with a 95% interval of the ratio);
# fewer than 5 paired runs is SHORT.
#
# The three tools of every run (the order ABC in odd runs, CBA in even ones:
# bench/lib-compare.sh):
#   fio-default  fio's own defaults at the point gpufeed runs: io_uring,
#                --direct=1, the block size, depth, one thread and SQPOLL
#                as chosen below, and nothing else.  Its buffers come from
#                malloc: 4 KiB pages, scattered in physical memory.
#   fio-best     the same point with fio's best options for it:
#                --fixedbufs --registerfiles, --iomem=shmhuge (buffers on
#                reserved 2 MiB huge pages, when enough are free: see
#                --best-iomem), --hipri when the disk has polled queues
#                (/sys/block/DISK/queue/io_poll = 1), and the depth and
#                SQPOLL tuned: --sqthread_poll=0 and =1, iodepth in
#                {4,8,16,32,64} (seq) or {8,16,32,64,128} (rand), each for
#                --tune-duration seconds; the best by throughput (GB/s; for
#                4 KiB blocks the same order as IOPS) is the point.  A
#                configuration fio cannot run (e.g. SQPOLL refused) is
#                reported and skipped.
#   gpufeed      bench io at the point: the same bs / qd / threads / direct
#                / sqpoll (its own buffers: 2 MiB-aligned with MADV_HUGEPAGE
#                from 2 MiB on).
# Why both fio figures: a disk takes a request of at most max_segments
# physically contiguous pieces (/sys/block/DISK/queue/max_segments, 254 on a
# virtio disk).  A 1 MiB read into 256 scattered 4 KiB pages needs 256 and
# the block layer splits it in two; into a huge page it is one segment.
# fio-default pays for that split, fio-best and gpufeed do not
# (docs/bench-io.md, "Against fio").
#
# Method.
# 1. Lay out the test file once (fio sequential O_DIRECT 1 MiB writes of SIZE
#    bytes).  A directory argument gets DIR/compare-fio.dat.  A file that exists
#    and was not made by this script is refused; ours carry a marker file
#    FILE.compare-fio next to them and are reused when their size matches.  The
#    file (and marker) is removed at exit and on Ctrl-C unless --keep.
# 2. Per pattern, tune fio-best (above).
# 3. One discarded gpufeed warm-up per pattern with the chosen point (it also
#    checks the gpufeed command before the measured runs).
# 4. N measured runs, each: per pattern one process of each tool,
#    interleaved; `sync` before each process.  No page-cache drop: every read
#    is O_DIRECT.
#
# fio settings of every fio run, and why (the fairest choice we could make):
#   --thread        the job runs as a pthread inside the one fio process, as
#                   gpufeed's workers do, so the outside CPU count covers one
#                   process for each tool (fio's forked-job mode would be
#                   counted too, but this keeps the two alike).
#   --numjobs=1 --group_reporting   one submitting thread (= gpufeed --threads 1).
#   --time_based --runtime=D --ramp_time=0   gpufeed has no ramp; the bytes
#                   reported must be all the bytes the process moved, because
#                   the outside CPU covers the whole process lifetime.
#   --disable_slat=1 --disable_lat=1   fio keeps one latency per I/O
#                   (completion latency, for p50/p99), as gpufeed does; fio's
#                   extra clock reads for slat/lat would cost fio CPU that
#                   gpufeed does not spend.
#   --randrepeat=0  (rand) fresh offsets each run; fio's default random map
#                   (every block once per pass), as gpufeed bench io does.
#   --allow_file_create=0   fio never creates or extends the file when reading.
#   --fio-extra 'ARGS' appends ARGS to every fio run (tuning and measured), e.g.
#   --fio-extra '--iodepth_batch_submit=16 --iodepth_batch_complete_min=8'.
#   It is printed with the chosen configuration.  gpufeed has no equivalent.
#
# CPU time, counted the same way for every tool: each runs as a child of this
# shell under bash's `time` keyword (bench/lib-compare.sh's cmp_exec), which
# takes the child's user and system CPU seconds from getrusage(RUSAGE_CHILDREN)
# around it, i.e. every thread of the process and anything it waited for,
# from exec to exit, start-up and set-up included.  Since Linux 5.12
# io_uring's SQPOLL thread (iou-sqp-PID) and io-wq workers (iou-wrk-PID) are
# threads of the process that owns the ring, so their CPU (an SQPOLL thread
# spins: about one more core) is in that count for every tool; on older
# kernels they were kernel threads and would be missed for all.  Interrupt
# time lands on whichever task was running unless the kernel accounts IRQ
# time separately.
#   outside CPU s/GB = (user + sys) / (bytes / 1e9), bytes from each tool's
#   JSON (fio .read.io_bytes; gpufeed .bytes).
#   The outside count includes each tool's fixed start-up cost.  For fio that
#   is ~0.07-0.13 s of CPU per run (it spins calibrating its clock and testing
#   clock monotonicity before any I/O): ~1-3% of a 10 s 4 KiB random run on
#   a virtio disk; a longer --duration dilutes it.
#   inside CPU s/GB (information only): fio (usr_cpu + sys_cpu)% x runtime,
#   which fio takes with getrusage(RUSAGE_THREAD): the job thread only (no
#   SQPOLL thread, no fio helper thread); gpufeed's own cpu_s_per_gb.
#
# Environment: COMPARE_DEADLINE=S (start no run that would end past S
# seconds; summarise what ran) and COMPARE_SUMMARY_ONLY=1 (run nothing:
# summarise the runs already in --out DIR again; no FILE_OR_DIR), as every
# bench/compare-*.sh (bench/lib-compare.sh).
#
# Output: the summary on stdout.  With --out DIR also DIR/command.txt
# (command line, date, machine, load, disk and its queue limits, huge pages,
# versions), DIR/summary.txt (the printed tables), DIR/summary.json,
# DIR/raw.csv (a line per measured run), DIR/tuning.csv, the raw JSON of
# every run (TOOL-PATTERN-RUN.json, fio-tune-*.json), DIR/runs.tsv (a line
# per process: start, wall, user and system seconds, exit, command) and
# DIR/runs.log (the same with each process's stderr).
# Exit: 0 every target met against both fio tunings, 1 one missed or SHORT
# (fewer than 5 paired runs), 2 usage or environment error, 3 when a tool
# failed (the message names the tool and the command), 130 on Ctrl-C.
set -euo pipefail
export LC_ALL=C

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cmdline=$(printf '%q ' "$0" "$@")
# shellcheck source-path=SCRIPTDIR source=lib-compare.sh
. "$here/lib-compare.sh"

usage() {
	cat <<EOF
usage: $prog [options] FILE_OR_DIR

Runs fio at its defaults, fio at its best io_uring tuning and \`gpufeed bench
io\` on the same file at the same point per pattern (seq 1M / rand 4K reads,
O_DIRECT), interleaved, and prints the median ratios gpufeed/fio against
each fio with PASS/FAIL against the targets.

  FILE_OR_DIR          test file to create (must not exist), or a directory to
                       create compare-fio.dat in
  --gpufeed PATH       gpufeed binary (default: $repo/build/gpufeed)
  --fio PATH           fio binary (default: $repo/build-fio/fio, else fio in PATH)
  --runs N             measured runs per tool and pattern, at least 5 (default 5)
  --duration S         seconds per measured run (default 10)
  --size SIZE          test file size, e.g. 4G, 512M, bytes (default 4G)
  --out DIR            keep command.txt, summary.txt, summary.json, raw.csv,
                       tuning.csv, runs.tsv, runs.log and every run's JSON in DIR
  --keep               keep the test file at exit (a later run reuses it)
  --tune-duration S    seconds per fio tuning run (default 3)
  --patterns LIST      seq, rand or seq,rand (default seq,rand)
  --fio-extra 'ARGS'   extra fio options for every fio run (word-split)
  --no-sqpoll          tune fio without SQPOLL only (a comparison where neither
                       tool spends a core on a kernel submission thread)
  --best-iomem MODE    fio-best's buffers: shmhuge, mmaphuge:FILE (a file on
                       hugetlbfs), malloc, or auto (default): shmhuge when
                       enough huge pages are free (/proc/meminfo), else malloc
  -h, --help           this text

Environment: COMPARE_DEADLINE=S, COMPARE_SUMMARY_ONLY=1 (with --out DIR).
Exit status: 0 every target met, 1 one missed or SHORT, 2 usage/environment
error, 3 a tool failed, 130 interrupted.
EOF
}

usage_err() {
	echo "$prog: $*" >&2
	echo "try: $prog --help" >&2
	exit 2
}

env_err() {
	echo "$prog: $*" >&2
	exit 2
}

# fd 3: the script's stderr, also inside cmp_exec's redirections (a trap can
# run there).
exec 3>&2
log() { echo "$prog: $*" >&3; }
fio_py() { PYTHONPATH=$here python3 "$here/compare_fio.py" "$@"; }

# ---- options -----------------------------------------------------------------

gf=$repo/build/gpufeed
fio=
runs=5
dur=10
size_arg=4G
out=
keep=0
sqpolls="0 1"
tune_dur=3
patterns=seq,rand
fio_extra=
best_iomem=auto
target=

while (($#)); do
	if [[ $1 == --*=* ]]; then
		set -- "${1%%=*}" "${1#*=}" "${@:2}"
	fi
	case $1 in
	--gpufeed | --fio | --runs | --duration | --size | --out | --tune-duration | --patterns | --fio-extra | --best-iomem)
		(($# >= 2)) || usage_err "$1 needs a value"
		case $1 in
		--gpufeed) gf=$2 ;;
		--fio) fio=$2 ;;
		--runs) runs=$2 ;;
		--duration) dur=$2 ;;
		--size) size_arg=$2 ;;
		--out) out=$2 ;;
		--tune-duration) tune_dur=$2 ;;
		--patterns) patterns=$2 ;;
		--fio-extra) fio_extra=$2 ;;
		--best-iomem) best_iomem=$2 ;;
		esac
		shift 2
		;;
	--keep) keep=1; shift ;;
	--no-sqpoll) sqpolls="0"; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage_err "unknown option: $1" ;;
	*)
		[[ -z $target ]] || usage_err "one FILE_OR_DIR only (got '$target' and '$1')"
		target=$1
		shift
		;;
	esac
done
if (($#)); then
	[[ -z $target && $# -eq 1 ]] || usage_err "one FILE_OR_DIR only"
	target=$1
fi

is_uint() { [[ $1 =~ ^[0-9]+$ ]] && (($1 >= 1)); }
cmp_check "$runs" --runs
is_uint "$dur" || usage_err "--duration: want whole seconds >= 1, got '$dur'"
is_uint "$tune_dur" || usage_err "--tune-duration: want whole seconds >= 1, got '$tune_dur'"
case $best_iomem in
auto | malloc | shmhuge | mmaphuge:/*) ;;
*) usage_err "--best-iomem: want auto, shmhuge, mmaphuge:/PATH or malloc (got '$best_iomem')" ;;
esac

if [[ $cmp_summary_only == 1 ]]; then
	[[ -n $out ]] || usage_err "COMPARE_SUMMARY_ONLY=1 summarises --out DIR: give it"
	cmp_start "$out" runs.log runs.tsv
	fio_py summary "$out"
	exit
fi
[[ -n $target ]] || usage_err "missing FILE_OR_DIR"

# SIZE: bytes, or a number with K/M/G/T (powers of 1024, as fio reads them).
to_bytes() {
	local s=$1 n u
	[[ $s =~ ^([0-9]+)([kKmMgGtT]?)([iI]?[bB]?)$ ]] || return 1
	n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2],,}
	case $u in
	'') ;;
	k) n=$((n << 10)) ;;
	m) n=$((n << 20)) ;;
	g) n=$((n << 30)) ;;
	t) n=$((n << 40)) ;;
	esac
	echo "$n"
}
size=$(to_bytes "$size_arg") || usage_err "--size: cannot read '$size_arg' (e.g. 4G, 512M, 1073741824)"
((size >= 16 << 20)) || usage_err "--size: at least 16M please (got $size bytes)"
((size % (1 << 20) == 0)) || usage_err "--size: want a multiple of 1 MiB (got $size bytes)"

plist=()
IFS=, read -ra words <<<"$patterns"
for p in "${words[@]}"; do
	case $p in
	seq | rand) [[ " ${plist[*]} " == *" $p "* ]] || plist+=("$p") ;;
	*) usage_err "--patterns: want seq, rand or seq,rand (got '$patterns')" ;;
	esac
done
((${#plist[@]} > 0)) || usage_err "--patterns: nothing to run"
read -ra fio_extra_args <<<"$fio_extra"

# ---- tools -------------------------------------------------------------------

if [[ -z $fio ]]; then
	if [[ -x $repo/build-fio/fio ]]; then
		fio=$repo/build-fio/fio
	else
		fio=$(command -v fio) || env_err "no fio: pass --fio PATH (or build it into $repo/build-fio/fio)"
	fi
fi
resolve() { # PATH-or-name -> executable path
	if [[ $1 == */* ]]; then
		[[ -x $1 && -f $1 ]] && echo "$1"
	else
		command -v "$1"
	fi
}
fio_path=$(resolve "$fio") || env_err "--fio: '$fio' is not an executable file"
gf_path=$(resolve "$gf") || env_err "--gpufeed: '$gf' is not an executable file"
fio_version=$("$fio_path" --version 2>/dev/null) || env_err "'$fio_path --version' failed"
"$fio_path" --enghelp=io_uring >/dev/null 2>&1 || env_err "$fio_path has no io_uring engine"
gf_version=$("$gf_path" --version 2>/dev/null | head -1) || gf_version="unknown ('$gf_path --version' failed)"
[[ -n $gf_version ]] || gf_version=unknown

# ---- test file, work directory, cleanup ----------------------------------------

if [[ -d $target ]]; then
	file=${target%/}/compare-fio.dat
else
	file=$target
fi
[[ $file == /* ]] || file=$PWD/$file
fdir=$(dirname "$file")
[[ -d $fdir ]] || usage_err "no such directory: $fdir"
[[ -w $fdir ]] || env_err "cannot write in $fdir"
marker=$file.compare-fio

own_file=0   # 1 once the file at $file is ours to remove
reuse=0
if [[ -e $file || -L $file ]]; then
	if [[ -f $file && ! -L $file && -f $marker ]] && grep -q '^compare-fio test file' "$marker"; then
		own_file=1
		if grep -qx "state=ready size=$size" "$marker" && (($(stat -c %s "$file") == size)); then
			reuse=1
		fi
	else
		env_err "$file exists and was not made by $prog; refusing to touch it (give a new file name or a directory)"
	fi
fi

tmp_wd=
if [[ -n $out ]]; then
	mkdir -p "$out" || env_err "cannot create --out $out"
	wd=$(cd "$out" && pwd)
else
	tmp_wd=$(mktemp -d "${TMPDIR:-/tmp}/compare-fio.XXXXXX")
	wd=$tmp_wd
fi

# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
	if ((own_file && !keep)); then
		rm -f -- "$file" "$marker"
	fi
	[[ -z $tmp_wd ]] || rm -rf -- "$tmp_wd"
	cmp_cleanup
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM HUP
rm -f -- "$wd"/tuning.csv "$wd"/summary.txt "$wd"/summary.json "$wd"/raw.csv
cmp_start "$wd" runs.log

# ---- the disk under the file, huge pages ---------------------------------------

# The whole disk the file's filesystem sits on (sda for sda1), or nothing.
disk=
src=$(df --output=source "$fdir" 2>/dev/null | tail -n 1)
dev=$(readlink -f "$src" 2>/dev/null || echo "$src")
if [[ -e /sys/class/block/${dev##*/} ]]; then
	disk=${dev##*/}
	[[ -e /sys/class/block/$disk/partition ]] && disk=$(basename "$(readlink -f "/sys/class/block/$disk/..")")
fi
queue() { cat "/sys/block/$disk/queue/$1" 2>/dev/null || echo NA; }

# --hipri (polled completions) only where the disk has polled queues.
hipri=0
[[ -n $disk && $(queue io_poll) == 1 ]] && hipri=1

# fio sizes its buffers iodepth x bs plus a page, rounded up to the huge
# page size with shmhuge/mmaphuge, and fio 3.33 takes one huge page more
# than that (measured: 32 x 1 MiB needs 18 pages, 128 x 4 KiB 2): the
# deepest tuning run must fit.
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
hp_kb=$(meminfo Hugepagesize)
hp_free=$(meminfo HugePages_Free)
hp_need=0
for p in "${plist[@]}"; do
	case $p in seq) b=$((64 << 20)) ;; rand) b=$((128 << 12)) ;; esac
	n=$(((b + 4096 + (${hp_kb:-2048} << 10) - 1) / (${hp_kb:-2048} << 10) + 1))
	((n > hp_need)) && hp_need=$n
done
iomem_note=
if [[ $best_iomem == auto ]]; then
	if ((${hp_free:-0} >= hp_need)); then
		best_iomem=shmhuge
	else
		best_iomem=malloc
		iomem_note="fio-best without huge pages: ${hp_free:-0} of $hp_need free (as root: sysctl vm.nr_hugepages=$hp_need, or --best-iomem)"
		log "$iomem_note"
	fi
fi

# ---- command.txt -----------------------------------------------------------------

{
	echo "command: $cmdline"
	echo "cwd: $PWD"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "uname: $(uname -a)"
	echo "load: $(uptime)"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs online"
	echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "huge pages: ${hp_free:-0} free of $(meminfo HugePages_Total) (${hp_kb:-?} kB each), fio-best needs $hp_need;" \
		"transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo NA)"
	echo "test file: $file ($size bytes)"
	echo "filesystem: $(df --output=fstype,source,target "$fdir" 2>/dev/null | tail -n 1 | tr -s ' ')"
	if [[ -n $disk ]]; then
		echo "disk: $disk, model $(tr -s ' ' <"/sys/block/$disk/device/model" 2>/dev/null || echo NA)," \
			"scheduler $(queue scheduler)"
		# What splits a request (docs/bench-io.md, "Against fio").
		echo "queue limits: max_segments $(queue max_segments), max_segment_size $(queue max_segment_size)," \
			"max_sectors_kb $(queue max_sectors_kb), max_hw_sectors_kb $(queue max_hw_sectors_kb)," \
			"io_poll $(queue io_poll), nr_requests $(queue nr_requests)"
	fi
	echo "fio: $fio_path ($fio_version)"
	echo "gpufeed: $gf_path ($gf_version)"
	echo "runs: $runs  duration: ${dur}s  tune duration: ${tune_dur}s  patterns: $patterns"
	echo "fio-best: --iomem=$best_iomem --fixedbufs --registerfiles$( ((hipri)) && echo " --hipri")${iomem_note:+ ($iomem_note)}"
	echo "fio extra options: ${fio_extra:-none}"
} >"$wd/command.txt"

# ---- commands ----------------------------------------------------------------------

declare -A P_RW P_FBS P_GBS P_MODE P_QDS QD SQ
P_RW[seq]=read P_FBS[seq]=1m P_GBS[seq]=1M P_MODE[seq]=seqread P_QDS[seq]="4 8 16 32 64"
P_RW[rand]=randread P_FBS[rand]=4k P_GBS[rand]=4K P_MODE[rand]=randread P_QDS[rand]="8 16 32 64 128"

# fio_cmd TUNING PAT QD SQPOLL SECONDS JSON: sets CMD (TUNING default or best).
fio_cmd() {
	local tuning=$1 pat=$2 qd=$3 sq=$4 secs=$5 json=$6
	CMD=("$fio_path" --name="compare-$pat" --filename="$file" --size="$size"
		--allow_file_create=0 --ioengine=io_uring --direct=1 --sqthread_poll="$sq"
		--rw="${P_RW[$pat]}" --bs="${P_FBS[$pat]}" --iodepth="$qd"
		--numjobs=1 --thread --group_reporting
		--time_based --runtime="$secs" --ramp_time=0
		--disable_slat=1 --disable_lat=1)
	if [[ $tuning == best ]]; then
		CMD+=(--iomem="$best_iomem" --fixedbufs --registerfiles)
		((hipri)) && CMD+=(--hipri)
	fi
	[[ $pat == rand ]] && CMD+=(--randrepeat=0)
	CMD+=("${fio_extra_args[@]}" --eta=never --output-format=json --output="$json")
}

# gf_cmd PAT QD SQPOLL SECONDS: sets CMD.
gf_cmd() {
	local pat=$1 qd=$2 sq=$3 secs=$4
	CMD=("$gf_path" bench io "$file" --mode "${P_MODE[$pat]}" --bs "${P_GBS[$pat]}"
		--qd "$qd" --threads 1 --direct --engine uring)
	((sq)) && CMD+=(--sqpoll)
	CMD+=(--duration "$secs" --json --force)
}

tool_fail() { # TOOL MESSAGE: exit 3 naming the tool and the command
	{
		echo "$prog: $1 failed: $2"
		echo "  command: $(cmp_quote "${CMD[@]}")"
		if [[ -s $CMP_ERR ]]; then
			echo "  stderr (last lines):"
			tail -n 15 "$CMP_ERR" | sed 's/^/    /'
		fi
	} >&3
	exit 3
}

# run TOOL STDOUT: CMD once, after a sync (bench/lib-compare.sh's cmp_exec).
run() {
	sync
	cmp_exec "$1" "$2" "${CMD[@]}"
	if [[ $2 == "$cmp_scratch/stdout" && -s $2 ]]; then cat "$2" >>"$cmp_log"; fi
}

# cmp_tool TOOL PAT (bench/lib-compare.sh): one measured run.
cmp_tool() {
	local tool=$1 pat=$2 json=$wd/$1-$2-$cmp_run.json msg
	if [[ $tool == gpufeed ]]; then
		gf_cmd "$pat" "${QD[$pat]}" "${SQ[$pat]}" "$dur"
		run "$tool" "$json"
	else
		fio_cmd "${tool#fio-}" "$pat" "${QD[$pat]}" "${SQ[$pat]}" "$dur" "$json"
		run "$tool" "$cmp_scratch/stdout"
	fi
	((CMP_RC == 0)) || tool_fail "$tool" "exit status $CMP_RC"
	msg=$(fio_py check "$tool" "$json" "${SQ[$pat]}") || tool_fail "$tool" "$msg"
	log "[$pat] run $cmp_run/$runs $(printf '%-11s' "$tool") $msg"
}

# ---- lay out the test file --------------------------------------------------------

cmp_run=layout
if ((reuse)); then
	log "reusing $file ($size bytes, made by an earlier run of $prog)"
else
	avail=$(df -B1 --output=avail "$fdir" | tail -n 1 | tr -d ' ')
	if ((own_file)); then
		avail=$((avail + $(stat -c %s "$file")))
	fi
	((avail >= size + (256 << 20))) || env_err "not enough space in $fdir: $avail bytes free, want $size + 256 MiB"
	own_file=1
	rm -f -- "$file"
	printf 'compare-fio test file\nstate=laying size=%s\n' "$size" >"$marker"
	log "laying out $file ($size bytes) ..."
	CMD=("$fio_path" --name=layout --filename="$file" --size="$size" --rw=write --bs=1m
		--direct=1 --ioengine=io_uring --iodepth=16 --thread --end_fsync=1
		--eta=never --output-format=json --output="$wd/fio-layout.json")
	run fio "$cmp_scratch/stdout"
	((CMP_RC == 0)) || tool_fail fio "exit status $CMP_RC while laying out the test file (does the filesystem take O_DIRECT?)"
	(($(stat -c %s "$file") == size)) || tool_fail fio "the laid-out file is $(stat -c %s "$file") bytes, want $size"
	printf 'compare-fio test file\nstate=ready size=%s\n' "$size" >"$marker"
	log "laid out in ${CMP_WALL}s"
fi

# ---- fio-best's tuning, gpufeed's warm-up --------------------------------------------

for pat in "${plist[@]}"; do
	cmp_run=tune cmp_unit=$pat
	log "[$pat] tuning fio-best: sqpoll {$sqpolls} x iodepth {${P_QDS[$pat]}}, ${tune_dur}s each"
	for sq in $sqpolls; do
		for qd in ${P_QDS[$pat]}; do
			json=$wd/fio-tune-$pat-sq$sq-qd$qd.json
			fio_cmd best "$pat" "$qd" "$sq" "$tune_dur" "$json"
			run fio-best "$cmp_scratch/stdout"
			if msg=$(fio_py tune-row "$wd" "$pat" "$sq" "$qd" "$CMP_RC" "$CMP_USER" "$CMP_SYS" "$json"); then
				log "[$pat]   $msg"
			else
				log "[$pat]   sqpoll=$sq qd=$qd failed (exit $CMP_RC): $(tail -n 1 "$CMP_ERR" 2>/dev/null) $msg"
			fi
		done
	done
	read -r qd sq < <(fio_py tune-best "$wd" "$pat") ||
		tool_fail fio-best "every tuning configuration failed for pattern $pat"
	QD[$pat]=$qd SQ[$pat]=$sq
	log "[$pat] chosen: qd ${QD[$pat]}, sqpoll ${SQ[$pat]}"

	cmp_run=warm-up
	log "[$pat] gpufeed warm-up (${tune_dur}s, discarded)"
	gf_cmd "$pat" "${QD[$pat]}" "${SQ[$pat]}" "$tune_dur"
	run gpufeed "$wd/gpufeed-$pat-warmup.json"
	((CMP_RC == 0)) || tool_fail gpufeed "exit status $CMP_RC"
	msg=$(fio_py check gpufeed "$wd/gpufeed-$pat-warmup.json" "${SQ[$pat]}") || tool_fail gpufeed "$msg"
done

# ---- the measured runs, and the summary ----------------------------------------------

cmp_tools=(fio-default fio-best gpufeed)
cmp_runs "${plist[@]}"
rc=0
fio_py summary "$wd" || rc=$?
if [[ -n $out ]]; then
	log "results in $wd"
fi
exit "$rc"
