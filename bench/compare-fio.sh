#!/usr/bin/env bash
# fio against `gpufeed bench io` on the same file with the same settings,
# interleaved, and the median ratios gpufeed/fio.
#
# usage: bench/compare-fio.sh [--gpufeed PATH] [--fio PATH] [--runs N]
#            [--duration S] [--size SIZE] [--out DIR] [--keep]
#            [--tune-duration S] [--patterns seq,rand] [--fio-extra 'ARGS']
#            FILE_OR_DIR
#
# Patterns (all O_DIRECT, one submitting thread):
#   seq   sequential reads, 1 MiB blocks.  Target: gpufeed >= 0.95x fio GB/s.
#   rand  random reads, 4 KiB blocks.  Target: gpufeed >= 0.90x fio IOPS and
#         gpufeed CPU s/GB <= fio CPU s/GB (ratio <= 1.00).
# Both compare the medians of N runs each; PASS/FAIL is strict (no noise margin).
#
# Method.
# 1. Lay out the test file once (fio sequential O_DIRECT 1 MiB writes of SIZE
#    bytes).  A directory argument gets DIR/compare-fio.dat.  A file that exists
#    and was not made by this script is refused; ours carry a marker file
#    FILE.compare-fio next to them and are reused when their size matches.  The
#    file (and marker) is removed at exit and on Ctrl-C unless --keep.
# 2. Per pattern, tune fio first: its io_uring engine with --direct=1
#    --fixedbufs --registerfiles, --sqthread_poll=0 and =1, iodepth in
#    {4,8,16,32,64} (seq) or {8,16,32,64,128} (rand), numjobs=1, each for
#    --tune-duration seconds; the best by throughput (GB/s; for 4 KiB blocks
#    the same ordering as IOPS) is fio's configuration.  gpufeed then gets the
#    same bs / qd / threads / direct / sqpoll.  A configuration fio cannot run
#    (e.g. SQPOLL refused) is reported and skipped.
# 3. One discarded gpufeed warm-up with the chosen configuration (it also
#    checks the gpufeed command before the measured runs).
# 4. N measured runs of each tool, interleaved: fio first on odd runs, gpufeed
#    first on even runs; `sync` before each run.  No page-cache drop: every
#    read is O_DIRECT.
#
# fio settings, and why (the fairest choice we could make):
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
#                   (every block once per pass), as gpufeed bench io does since
#                   its cold-cache fix (a permutation per pass; before, both ran
#                   uniform offsets with --norandommap).
#   --allow_file_create=0   fio never creates or extends the file when reading.
#   --fio-extra 'ARGS' appends ARGS to every fio run (tuning and measured), e.g.
#   --fio-extra '--iodepth_batch_submit=16 --iodepth_batch_complete_min=8'.
#   It is printed with the chosen configuration.  gpufeed has no equivalent.
#
# CPU time, counted the same way for both: each tool runs as a child of this
# shell under bash's `time` keyword, which takes the child's user and system
# CPU seconds from getrusage(RUSAGE_CHILDREN) around it, i.e. every thread of
# the process and anything it waited for, from exec to exit, start-up and
# set-up included.  Since Linux 5.12 io_uring's SQPOLL thread (iou-sqp-PID)
# and io-wq workers (iou-wrk-PID) are threads of the process that owns the
# ring, so their CPU (an SQPOLL thread spins: about one more core) is in that
# count for both tools; on older kernels they were kernel threads and would be
# missed for both.  Interrupt time lands on whichever task was running unless
# the kernel accounts IRQ time separately.
#   outside CPU s/GB = (user + sys) / (bytes / 1e9), bytes from each tool's
#   JSON (fio .read.io_bytes; gpufeed .bytes).
#   The outside count includes each tool's fixed start-up cost.  For fio that
#   is ~0.07-0.13 s of CPU per run (it spins calibrating its clock and testing
#   clock monotonicity before any I/O): ~1-3% of a 10 s 4 KiB random run on
#   a virtio disk; a longer --duration dilutes it.  gpufeed's start-up (any
#   CUDA/NVML initialisation, say) is counted the same way.
#   inside CPU s/GB (information only): fio (usr_cpu + sys_cpu)% x runtime,
#   which fio takes with getrusage(RUSAGE_THREAD): the job thread only (no
#   SQPOLL thread, no fio helper thread); gpufeed's own cpu_s_per_gb.
#
# Output: a table per pattern on stdout.  With --out DIR also DIR/command.txt
# (command line, date, machine, disk, versions), DIR/raw.csv, DIR/tuning.csv,
# DIR/summary.txt (the printed tables), the raw JSON of every run (fio-*.json,
# gpufeed-*.json) and DIR/runs.log (each run's command, exit status, outside
# wall/user/sys seconds and stderr).
# Exit: 0 when it ran (targets missed or not), 2 usage or environment error,
# 3 when a tool failed (the message names the tool and the command),
# 130 on Ctrl-C.
set -euo pipefail
export LC_ALL=C

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cmdline=$(printf '%q ' "$0" "$@")

usage() {
	cat <<EOF
usage: $prog [options] FILE_OR_DIR

Runs fio and \`gpufeed bench io\` on the same file with fio's best io_uring
configuration per pattern (seq 1M / rand 4K reads, O_DIRECT), interleaved, and
prints median ratios gpufeed/fio with PASS/FAIL against the targets.

  FILE_OR_DIR          test file to create (must not exist), or a directory to
                       create compare-fio.dat in
  --gpufeed PATH       gpufeed binary (default: $repo/build/gpufeed)
  --fio PATH           fio binary (default: $repo/build-fio/fio, else fio in PATH)
  --runs N             measured runs per tool and pattern (default 5)
  --duration S         seconds per measured run (default 10)
  --size SIZE          test file size, e.g. 4G, 512M, bytes (default 4G)
  --out DIR            keep command.txt, raw.csv, tuning.csv, summary.txt and
                       every run's JSON in DIR
  --keep               keep the test file at exit (a later run reuses it)
  --tune-duration S    seconds per fio tuning run (default 3)
  --patterns LIST      seq, rand or seq,rand (default seq,rand)
  --fio-extra 'ARGS'   extra fio options for every fio run (word-split)
  --no-sqpoll          tune fio without SQPOLL only (a comparison where neither
                       tool spends a core on a kernel submission thread)
  -h, --help           this text

Exit status: 0 ran (whether or not targets were met), 2 usage/environment
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

# fd 3: the script's stderr, also inside `{ time ...; } 2>FILE` (a trap can
# run there).
exec 3>&2
log() { echo "$prog: $*" >&3; }

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
target=

while (($#)); do
	if [[ $1 == --*=* ]]; then
		set -- "${1%%=*}" "${1#*=}" "${@:2}"
	fi
	case $1 in
	--gpufeed | --fio | --runs | --duration | --size | --out | --tune-duration | --patterns | --fio-extra)
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
[[ -n $target ]] || usage_err "missing FILE_OR_DIR"

is_uint() { [[ $1 =~ ^[0-9]+$ ]] && (($1 >= 1)); }
is_uint "$runs" || usage_err "--runs: want an integer >= 1, got '$runs'"
is_uint "$dur" || usage_err "--duration: want whole seconds >= 1, got '$dur'"
is_uint "$tune_dur" || usage_err "--tune-duration: want whole seconds >= 1, got '$tune_dur'"
((runs >= 5)) || log "note: --runs $runs is fewer than the 5 runs the comparison asks for"

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

want_seq=0 want_rand=0
IFS=, read -ra plist <<<"$patterns"
for p in "${plist[@]}"; do
	case $p in
	seq) want_seq=1 ;;
	rand) want_rand=1 ;;
	*) usage_err "--patterns: want seq, rand or seq,rand (got '$patterns')" ;;
	esac
done
((want_seq + want_rand > 0)) || usage_err "--patterns: nothing to run"
read -ra fio_extra_args <<<"$fio_extra"

# ---- tools -------------------------------------------------------------------

command -v jq >/dev/null || env_err "jq is required (apt-get install jq)"
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
	if [[ -n $tmp_wd ]]; then
		rm -rf -- "$tmp_wd"
	elif [[ -n ${scratch:-} ]]; then
		rm -rf -- "$scratch"
	fi
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM HUP

# ---- running one tool ------------------------------------------------------------

# timed BASE STDOUT CMD...: runs CMD with stdout to STDOUT, stderr to
# $scratch/err, the outside wall / user / sys seconds (bash's time keyword:
# the child's rusage, all its threads) to $scratch/time; sets T_CMD T_WALL
# T_USER T_SYS T_RC and appends all of it to DIR/runs.log.
timed() {
	local base=$1 stdout=$2
	shift 2
	local TIMEFORMAT='%3R %3U %3S'
	T_CMD=$(printf '%q ' "$@")
	sync
	T_RC=0 T_WALL='' T_USER='' T_SYS=''
	{ time "$@" >"$stdout" 2>"$scratch/err" 3>&- || T_RC=$?; } 2>"$scratch/time"
	read -r T_WALL T_USER T_SYS <"$scratch/time" || true
	if [[ ! ${T_SYS:-} =~ ^[0-9.]+$ ]] && ((T_RC == 0)); then
		T_RC=99	# no time line: cannot count its CPU
	fi
	{
		echo "== ${base##*/}"
		echo "command: $T_CMD"
		echo "exit: $T_RC  wall_s: $T_WALL  user_s: $T_USER  sys_s: $T_SYS"
		if [[ $stdout == "$scratch/out" && -s $stdout ]]; then
			echo "stdout:"
			sed 's/^/  /' "$stdout"
		fi
		if [[ -s $scratch/err ]]; then
			echo "stderr:"
			sed 's/^/  /' "$scratch/err"
		fi
	} >>"$wd/runs.log"
}

tool_fail() { # TOOL BASE MESSAGE: exit 3 naming the tool and the command
	local tool=$1 base=$2 msg=$3
	{
		echo "$prog: $tool failed: $msg"
		echo "  command: $T_CMD"
		if [[ -s $scratch/err ]]; then
			echo "  stderr (last lines):"
			tail -n 15 "$scratch/err" | sed 's/^/    /'
		fi
	} >&3
	exit 3
}

# Result of the last parse, all as printable numbers ("NA" where unknown).
R_GBPS='' R_IOPS='' R_P50='' R_P99='' R_BYTES='' R_SECS='' R_CPUGB_OUT='' R_CPUGB_IN=''

# parse_fio BASE: fills R_* from BASE.json (fio --output); 1 if unusable.
parse_fio() {
	local base=$1 line
	line=$(jq -r '
		def us(x): if x == null then "NA" else x / 1000 end;
		.jobs[0] as $j | $j.read as $r
		| [ $r.bw_bytes / 1e9, $r.iops,
		    us($r.clat_ns.percentile["50.000000"]), us($r.clat_ns.percentile["99.000000"]),
		    $r.io_bytes, $r.runtime / 1000,
		    ($j.usr_cpu + $j.sys_cpu) / 100 * $r.runtime / 1000 ]
		| map(tostring) | join(" ")' "$base.json" 2>/dev/null) || return 1
	local cpu_in
	read -r R_GBPS R_IOPS R_P50 R_P99 R_BYTES R_SECS cpu_in <<<"$line"
	R_BYTES=$(awk -v b="${R_BYTES:-0}" 'BEGIN { printf "%.0f", b }')
	((R_BYTES > 0)) || return 1
	R_CPUGB_IN=$(awk -v c="$cpu_in" -v b="$R_BYTES" 'BEGIN { printf "%.6g", c / (b / 1e9) }')
}

# parse_gf BASE: fills R_* from BASE.json (gpufeed --json stdout); 1 if unusable.
# GB/s is bytes / seconds / 1e9 (gpufeed's own gb_per_s is rounded to 3 decimals).
parse_gf() {
	local base=$1 line
	line=$(jq -r '
		def n(x): if x == null then "NA" else x end;
		[ .gb_per_s, .iops, n(.lat_p50_us), n(.lat_p99_us), .bytes, .seconds, n(.cpu_s_per_gb) ]
		| if (.[0] | type) != "number" or (.[1] | type) != "number"
		     or (.[4] | type) != "number" or (.[5] | type) != "number"
		  then error("missing gb_per_s/iops/bytes/seconds") else . end
		| map(tostring) | join(" ")' "$base.json" 2>/dev/null) || return 1
	read -r R_GBPS R_IOPS R_P50 R_P99 R_BYTES R_SECS R_CPUGB_IN <<<"$line"
	R_BYTES=$(awk -v b="$R_BYTES" 'BEGIN { printf "%.0f", b }')
	((R_BYTES > 0)) || return 1
	R_GBPS=$(awk -v b="$R_BYTES" -v s="$R_SECS" -v g="$R_GBPS" 'BEGIN { if (s > 0) printf "%.9g", b / s / 1e9; else print g }')
}

# gf_check BASE SQPOLL: the point gpufeed ran is the one asked for (status ok,
# io_uring, O_DIRECT, sqpoll as asked), where its JSON says so; else a
# message on stdout and 1.
gf_check() {
	jq -r --argjson sq "$2" '
		[ (if has("status") and .status != "ok" then "status \(.status)" else empty end),
		  (if has("engine_used") and .engine_used != "uring" then "engine_used \(.engine_used) (fell back from io_uring)" else empty end),
		  (if has("direct_used") and .direct_used != true then "direct_used \(.direct_used) (not O_DIRECT)" else empty end),
		  (if has("sqpoll") and .sqpoll != ($sq == 1) then "sqpoll \(.sqpoll), asked \($sq == 1)" else empty end),
		  (if (.note // "") != "" then "note: \(.note)" else empty end) ]
		| join("; ")' "$1.json" 2>/dev/null
}

cpu_per_gb() { # USER SYS BYTES
	awk -v u="$1" -v s="$2" -v b="$3" 'BEGIN { printf "%.6g", (u + s) / (b / 1e9) }'
}

# Pattern parameters.
declare -A P_RW P_FBS P_GBS P_MODE P_QDS P_NAME
P_RW[seq]=read P_FBS[seq]=1m P_GBS[seq]=1M P_MODE[seq]=seqread P_QDS[seq]="4 8 16 32 64"
P_RW[rand]=randread P_FBS[rand]=4k P_GBS[rand]=4K P_MODE[rand]=randread P_QDS[rand]="8 16 32 64 128"
P_NAME[seq]="A: sequential read, 1 MiB, O_DIRECT"
P_NAME[rand]="B: random read, 4 KiB, O_DIRECT"

# fio_cmd PAT QD SQPOLL SECONDS JSON: sets CMD.
fio_cmd() {
	local pat=$1 qd=$2 sq=$3 secs=$4 json=$5
	CMD=("$fio_path" --name="compare-$pat" --filename="$file" --size="$size"
		--allow_file_create=0 --ioengine=io_uring --direct=1
		--fixedbufs --registerfiles --sqthread_poll="$sq"
		--rw="${P_RW[$pat]}" --bs="${P_FBS[$pat]}" --iodepth="$qd"
		--numjobs=1 --thread --group_reporting
		--time_based --runtime="$secs" --ramp_time=0
		--disable_slat=1 --disable_lat=1)
	if [[ $pat == rand ]]; then
		CMD+=(--randrepeat=0)
	fi
	CMD+=("${fio_extra_args[@]}" --eta=never --output-format=json --output="$json")
}

# gf_cmd PAT QD SQPOLL SECONDS: sets CMD.
gf_cmd() {
	local pat=$1 qd=$2 sq=$3 secs=$4
	CMD=("$gf_path" bench io "$file" --mode "${P_MODE[$pat]}" --bs "${P_GBS[$pat]}"
		--qd "$qd" --threads 1 --direct --engine uring)
	if ((sq)); then
		CMD+=(--sqpoll)
	fi
	CMD+=(--duration "$secs" --json --force)
}

# run_fio BASE PAT QD SQ SECONDS [soft]: run + parse; exit 3 on failure, or
# return 1 when "soft" (tuning).
run_fio() {
	local base=$1 pat=$2 qd=$3 sq=$4 secs=$5 soft=${6:-}
	fio_cmd "$pat" "$qd" "$sq" "$secs" "$base.json"
	timed "$base" "$scratch/out" "${CMD[@]}"
	if ((T_RC != 0)); then
		[[ -n $soft ]] && return 1
		tool_fail fio "$base" "exit status $T_RC"
	fi
	if ! parse_fio "$base"; then
		[[ -n $soft ]] && return 1
		tool_fail fio "$base" "no usable JSON in $base.json (want .jobs[0].read with io_bytes > 0)"
	fi
	R_CPUGB_OUT=$(cpu_per_gb "$T_USER" "$T_SYS" "$R_BYTES")
}

run_gf() {
	local base=$1 pat=$2 qd=$3 sq=$4 secs=$5
	gf_cmd "$pat" "$qd" "$sq" "$secs"
	timed "$base" "$base.json" "${CMD[@]}"
	((T_RC == 0)) || tool_fail gpufeed "$base" "exit status $T_RC"
	parse_gf "$base" || tool_fail gpufeed "$base" "no usable JSON on stdout (want numbers gb_per_s, iops, bytes > 0, seconds)"
	local bad
	bad=$(gf_check "$base" "$sq")
	if [[ -n $bad ]]; then
		if [[ $bad == note:* ]]; then
			log "gpufeed ${base##*/}: $bad"
		else
			tool_fail gpufeed "$base" "did not run the point asked for: $bad"
		fi
	fi
	R_CPUGB_OUT=$(cpu_per_gb "$T_USER" "$T_SYS" "$R_BYTES")
}

fmt_row() { # fields... -> CSV
	local IFS=,
	echo "$*"
}

# ---- command.txt -----------------------------------------------------------------

disk_info() {
	local src dev name parent
	src=$(df --output=source "$fdir" 2>/dev/null | tail -n 1)
	echo "filesystem: $(df --output=fstype,source,target "$fdir" 2>/dev/null | tail -n 1 | tr -s ' ')"
	dev=$(readlink -f "$src" 2>/dev/null || echo "$src")
	name=${dev##*/}
	if [[ -e /sys/class/block/$name ]]; then
		parent=$name
		if [[ -e /sys/class/block/$name/partition ]]; then
			parent=$(basename "$(readlink -f "/sys/class/block/$name/..")")
		fi
		echo "block device: /dev/$name (disk $parent)"
		[[ -r /sys/block/$parent/device/model ]] && echo "disk model: $(tr -s ' ' <"/sys/block/$parent/device/model")"
		[[ -r /sys/block/$parent/queue/scheduler ]] && echo "scheduler: $(cat "/sys/block/$parent/queue/scheduler")"
		local s
		for s in /sys/block/"$parent"/slaves/*; do
			[[ -e $s ]] && echo "  member: ${s##*/}"
		done
	fi
	local m
	for m in /sys/block/*/device/model; do
		[[ -r $m ]] || continue
		echo "disk $(basename "$(dirname "$(dirname "$m")")"): $(tr -s ' ' <"$m")"
	done
	if command -v lsblk >/dev/null; then
		lsblk -d -o NAME,MODEL,SIZE,ROTA,TRAN 2>/dev/null | sed 's/^/  /'
	fi
}

{
	echo "command: $cmdline"
	echo "cwd: $PWD"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "uname: $(uname -a)"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs online"
	lscpu 2>/dev/null | grep -E '^(CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)):' | sed 's/^/  /'
	echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "test file: $file ($size bytes)"
	disk_info
	echo "fio: $fio_path ($fio_version)"
	echo "gpufeed: $gf_path ($gf_version)"
	echo "runs: $runs  duration: ${dur}s  tune duration: ${tune_dur}s  patterns: $patterns"
	echo "fio extra options: ${fio_extra:-none}"
} >"$wd/command.txt"

echo "pattern,sqpoll,iodepth,gb_per_s,iops,p50_us,p99_us,cpu_user_s,cpu_sys_s,cpu_s_per_gb_outside,cpu_s_per_gb_inside,ok" >"$wd/tuning.csv"
echo "pattern,tool,run,gb_per_s,iops,p50_us,p99_us,cpu_user_s,cpu_sys_s,cpu_s_per_gb_outside,cpu_s_per_gb_inside,bytes,seconds,wall_s" >"$wd/raw.csv"
: >"$wd/summary.txt"
: >"$wd/runs.log"
scratch=$(mktemp -d "$wd/.scratch.XXXXXX")

say() { echo "$*" | tee -a "$wd/summary.txt"; }

# ---- lay out the test file --------------------------------------------------------

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
	base=$wd/fio-layout
	CMD=("$fio_path" --name=layout --filename="$file" --size="$size" --rw=write --bs=1m
		--direct=1 --ioengine=io_uring --iodepth=16 --thread --end_fsync=1
		--eta=never --output-format=json --output="$base.json")
	timed "$base" "$scratch/out" "${CMD[@]}"
	((T_RC == 0)) || tool_fail fio "$base" "exit status $T_RC while laying out the test file (does the filesystem take O_DIRECT?)"
	(($(stat -c %s "$file") == size)) || tool_fail fio "$base" "the laid-out file is $(stat -c %s "$file") bytes, want $size"
	printf 'compare-fio test file\nstate=ready size=%s\n' "$size" >"$marker"
	log "laid out in ${T_WALL}s"
fi

# ---- one pattern --------------------------------------------------------------------

overall=PASS

do_pattern() {
	local pat=$1 thr_key thr_name
	if [[ $pat == seq ]]; then thr_key=gb_per_s thr_name="GB/s"; else thr_key=iops thr_name=IOPS; fi

	# Tuning.
	log "[$pat] tuning fio: sqpoll {$sqpolls} x iodepth {${P_QDS[$pat]}}, ${tune_dur}s each"
	local best_qd='' best_sq='' best_thr=0 best_cpu='' sq qd base n_ok=0
	local tune_lines=()
	for sq in $sqpolls; do
		for qd in ${P_QDS[$pat]}; do
			base=$wd/fio-tune-$pat-sq$sq-qd$qd
			if run_fio "$base" "$pat" "$qd" "$sq" "$tune_dur" soft; then
				n_ok=$((n_ok + 1))
				fmt_row "$pat" "$sq" "$qd" "$R_GBPS" "$R_IOPS" "$R_P50" "$R_P99" "$T_USER" "$T_SYS" "$R_CPUGB_OUT" "$R_CPUGB_IN" 1 >>"$wd/tuning.csv"
				tune_lines+=("$(printf '  sqpoll=%d qd=%-4d %8.3f GB/s %10.0f IOPS  p50 %8.1f us  p99 %8.1f us  cpu %6.3f s/GB (outside) %6.3f (inside)' \
					"$sq" "$qd" "$R_GBPS" "$R_IOPS" "$(na0 "$R_P50")" "$(na0 "$R_P99")" "$R_CPUGB_OUT" "$(na0 "$R_CPUGB_IN")")")
				log "${tune_lines[-1]# }"
				local thr
				if [[ $thr_key == gb_per_s ]]; then thr=$R_GBPS; else thr=$R_IOPS; fi
				if awk -v a="$thr" -v b="$best_thr" 'BEGIN { exit !(a > b) }'; then
					best_thr=$thr best_qd=$qd best_sq=$sq best_cpu=$R_CPUGB_OUT
				fi
			else
				fmt_row "$pat" "$sq" "$qd" NA NA NA NA NA NA NA NA 0 >>"$wd/tuning.csv"
				tune_lines+=("$(printf '  sqpoll=%d qd=%-4d failed (exit %s): %s' "$sq" "$qd" "$T_RC" "$(tail -n 1 "$scratch/err" 2>/dev/null)")")
				log "${tune_lines[-1]# }"
			fi
		done
	done
	if ((n_ok == 0)); then
		tool_fail fio "$base" "every tuning configuration failed for pattern $pat"
	fi

	say ""
	say "== ${P_NAME[$pat]} =="
	say "fio tuning (io_uring, direct, fixedbufs, registerfiles, numjobs=1, ${tune_dur}s each):"
	local l
	for l in "${tune_lines[@]}"; do say "$l"; done
	say "chosen (best fio $thr_name): bs=${P_GBS[$pat]} qd=$best_qd threads=1 direct sqpoll=$( ((best_sq)) && echo on || echo off)${fio_extra:+  fio extra: $fio_extra}  ($(awk -v t="$best_thr" -v k="$thr_key" -v c="$best_cpu" 'BEGIN { if (k == "gb_per_s") printf "%.3f GB/s", t; else printf "%.0f IOPS", t; printf ", cpu %.4f s/GB outside", c }'))"
	fio_cmd "$pat" "$best_qd" "$best_sq" "$dur" "$wd/fio-$pat-RUN.json"
	say "fio:     $(printf '%q ' "${CMD[@]}")"
	gf_cmd "$pat" "$best_qd" "$best_sq" "$dur"
	say "gpufeed: $(printf '%q ' "${CMD[@]}")"

	# Warm-up of gpufeed (discarded); also catches a broken gpufeed early.
	log "[$pat] gpufeed warm-up (${tune_dur}s, discarded)"
	run_gf "$wd/gpufeed-$pat-warmup" "$pat" "$best_qd" "$best_sq" "$tune_dur"

	# Measured runs, interleaved.
	local r order tool
	for ((r = 1; r <= runs; r++)); do
		if ((r % 2)); then order="fio gpufeed"; else order="gpufeed fio"; fi
		for tool in $order; do
			base=$wd/$tool-$pat-$r
			if [[ $tool == fio ]]; then
				run_fio "$base" "$pat" "$best_qd" "$best_sq" "$dur"
			else
				run_gf "$base" "$pat" "$best_qd" "$best_sq" "$dur"
			fi
			fmt_row "$pat" "$tool" "$r" "$R_GBPS" "$R_IOPS" "$R_P50" "$R_P99" "$T_USER" "$T_SYS" "$R_CPUGB_OUT" "$R_CPUGB_IN" "$R_BYTES" "$R_SECS" "$T_WALL" >>"$wd/raw.csv"
			log "[$pat] run $r/$runs $(printf '%-7s %8.3f GB/s %10.0f IOPS  cpu %6.3f s/GB' "$tool" "$R_GBPS" "$R_IOPS" "$R_CPUGB_OUT")"
		done
	done

	# Summary.
	local table verdict
	table=$(awk -F, -v pat="$pat" -v runs="$runs" '
		function med(a, n,   i, j, t, b) {
			for (i = 1; i <= n; i++) b[i] = a[i]
			for (i = 2; i <= n; i++) { t = b[i]; for (j = i - 1; j >= 1 && b[j] > t; j--) b[j + 1] = b[j]; b[j + 1] = t }
			return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
		}
		function mn(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
		function mx(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
		function f(v, fmt) { return v == "NA" ? "NA" : sprintf(fmt, v) }
		NR > 1 && $1 == pat {
			t = $2; k = ++n[t]
			gb[t, k] = $4; io[t, k] = $5; p50[t, k] = $6; p99[t, k] = $7
			us[t, k] = $8; sy[t, k] = $9; co[t, k] = $10; ci[t, k] = $11
			rows[++nr] = sprintf("%3d  %-7s %8.3f %10.0f %9s %9s %7.3f %7.3f %9.4f %9s", \
				$3, t, $4, $5, f($6, "%.1f"), f($7, "%.1f"), $8, $9, $10, f($11, "%.4f"))
		}
		function stats(t, name,   k, a, m, cnt, fields, i, key, out) {
			# columns: gb_per_s iops p50 p99 user sys cpu_out cpu_in
			split("gb io p50 p99 us sy co ci", fields, " ")
			out = ""
			for (i = 1; i <= 8; i++) {
				delete a; cnt = 0
				for (k = 1; k <= n[t]; k++) {
					v = (fields[i] == "gb") ? gb[t, k] : (fields[i] == "io") ? io[t, k] : (fields[i] == "p50") ? p50[t, k] : \
					    (fields[i] == "p99") ? p99[t, k] : (fields[i] == "us") ? us[t, k] : (fields[i] == "sy") ? sy[t, k] : \
					    (fields[i] == "co") ? co[t, k] : ci[t, k]
					if (v != "NA") a[++cnt] = v + 0
				}
				S[t, fields[i], "med"] = cnt ? med(a, cnt) : "NA"
				S[t, fields[i], "min"] = cnt ? mn(a, cnt) : "NA"
				S[t, fields[i], "max"] = cnt ? mx(a, cnt) : "NA"
			}
		}
		function srow(t, w) {
			return sprintf("%-12s %8.3f %10.0f %9s %9s %7.3f %7.3f %9.4f %9s", w " " t, \
				S[t, "gb", w], S[t, "io", w], f(S[t, "p50", w], "%.1f"), f(S[t, "p99", w], "%.1f"), \
				S[t, "us", w], S[t, "sy", w], S[t, "co", w], f(S[t, "ci", w], "%.4f"))
		}
		END {
			print "run  tool        GB/s       IOPS    p50_us    p99_us  user_s   sys_s  cpu/GB(o) cpu/GB(i)"
			for (i = 1; i <= nr; i++) print rows[i]
			if (!n["fio"] || !n["gpufeed"]) { print "verdict: FAIL (missing runs)"; exit }
			stats("fio"); stats("gpufeed")
			print "---- median, and spread (min .. max) over " n["fio"] " fio and " n["gpufeed"] " gpufeed runs"
			print srow("fio", "med"); print srow("gpufeed", "med")
			print srow("fio", "min"); print srow("fio", "max")
			print srow("gpufeed", "min"); print srow("gpufeed", "max")
			rg = S["gpufeed", "gb", "med"] / S["fio", "gb", "med"]
			ri = S["gpufeed", "io", "med"] / S["fio", "io", "med"]
			rc = S["gpufeed", "co", "med"] / S["fio", "co", "med"]
			print "---- gpufeed / fio, medians"
			# Also the median of the per-run ratios (run k of one tool
			# against run k of the other, back to back): less sensitive
			# to a disk whose speed drifts between runs.
			np = n["fio"] < n["gpufeed"] ? n["fio"] : n["gpufeed"]
			delete pr
			for (k = 1; k <= np; k++) pr[k] = (gb["fio", k] > 0) ? gb["gpufeed", k] / gb["fio", k] : 0
			printf "paired      %.4fx   (median of per-run GB/s ratios; information)\n", med(pr, np)
			if (pat == "seq") {
				okg = rg >= 0.95
				printf "GB/s        %.4fx   target >= 0.95x   %s\n", rg, okg ? "PASS" : "FAIL"
				printf "IOPS        %.4fx\n", ri
				printf "CPU s/GB    %.4fx   (outside count; information)\n", rc
				ok = okg
			} else {
				oki = ri >= 0.90; okc = rc <= 1.0
				printf "IOPS        %.4fx   target >= 0.90x   %s\n", ri, oki ? "PASS" : "FAIL"
				printf "GB/s        %.4fx\n", rg
				printf "CPU s/GB    %.4fx   target <= 1.00x   %s   (outside count)\n", rc, okc ? "PASS" : "FAIL"
				ok = oki && okc
			}
			if (S["fio", "ci", "med"] != "NA" && S["gpufeed", "ci", "med"] != "NA" && S["fio", "ci", "med"] > 0)
				printf "CPU s/GB    %.4fx   (inside counts, information: fio job thread vs gpufeed cpu_s_per_gb)\n", \
					S["gpufeed", "ci", "med"] / S["fio", "ci", "med"]
			print "verdict: " (ok ? "PASS" : "FAIL")
		}' "$wd/raw.csv")
	say "$table"
	verdict=$(sed -n 's/^verdict: //p' <<<"$table")
	[[ $verdict == PASS ]] || overall=FAIL
}

na0() { if [[ $1 == NA ]]; then echo 0; else echo "$1"; fi; }

if ((want_seq)); then do_pattern seq; fi
if ((want_rand)); then do_pattern rand; fi

say ""
if ((runs < 5)); then
	say "note: $runs runs per tool; the comparison asks for at least 5"
fi
say "overall: $overall  (fio ${fio_version}, gpufeed ${gf_version}; $runs runs x ${dur}s per tool and pattern; $file)"
if [[ -n $out ]]; then
	log "results in $wd"
fi
exit 0
