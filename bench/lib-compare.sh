# shellcheck shell=bash
# Sourced by bench/compare-*.sh: what every comparison of gpufeed with
# another tool on the same machine does, written once (fio, nvbandwidth and
# the comparisons to come): the checks, the interleaved run loop, the time
# limit, summarising again without running, and the log of every process.
# bench/compare_verdict.py is its other half: pairing the runs, the ratio's
# interval and the verdict.  Not run alone.
#
# A comparison sets cmp_tools (the tools' names, in the order of odd runs)
# and defines cmp_tool TOOL UNIT, which runs one process of TOOL for UNIT
# (a testcase, a pattern: what the script splits a run into) through
# cmp_exec.
#
# Environment, the same for every comparison (the older NVBW_ names are
# still read when the COMPARE_ ones are not set):
#   COMPARE_DEADLINE=S (NVBW_DEADLINE): start no run that would end more
#     than S seconds after the script began, judging by the longest run so
#     far, and summarise the runs done: a time limit then costs the last
#     run, not every run's summary.  Fewer than 5 runs is reported SHORT.
#   COMPARE_SUMMARY_ONLY=1 (NVBW_SUMMARY_ONLY): run nothing; summarise the
#     runs already in the output folder again (its log untouched), e.g.
#     after a run cut short.  Neither tool is needed.

CMP_MIN_RUNS=5
cmp_deadline=${COMPARE_DEADLINE:-${NVBW_DEADLINE:-}}
cmp_deadline_var=COMPARE_DEADLINE
[ -z "${COMPARE_DEADLINE:-}" ] && [ -n "${NVBW_DEADLINE:-}" ] && cmp_deadline_var=NVBW_DEADLINE
cmp_summary_only=${COMPARE_SUMMARY_ONLY:-${NVBW_SUMMARY_ONLY:-0}}
cmp_run=- cmp_unit=- cmp_log=/dev/null cmp_out='' cmp_scratch=''

# cmp_check RUNS NAME: the checks every comparison makes before it runs
# anything (NAME: how its usage names RUNS).  Exits 2.
cmp_check() {
	[ "$1" -ge "$CMP_MIN_RUNS" ] 2>/dev/null ||
		{ echo "$0: $2 must be a number >= $CMP_MIN_RUNS" >&2; exit 2; }
	[[ ${cmp_deadline:-1} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "$0: $cmp_deadline_var must be a number of seconds > 0" >&2; exit 2; }
	command -v python3 >/dev/null || { echo "$0: python3 is needed" >&2; exit 2; }
	cmp_nruns=$1
}

# cmp_start OUT LOG FILE...: OUT is the output folder, OUT/LOG the log.
# With COMPARE_SUMMARY_ONLY=1 each FILE must already be in OUT (exit 2 if
# not) and nothing is written but the summary; otherwise OUT is made, LOG
# and OUT/runs.tsv (a line per process: run, unit, tool, start, wall, user
# and system seconds, exit status, command) start empty.
cmp_start() {
	local f
	cmp_out=$1
	if [ "$cmp_summary_only" = 1 ]; then
		shift 2
		for f in "$@"; do
			[ -f "$cmp_out/$f" ] ||
				{ echo "$0: COMPARE_SUMMARY_ONLY=1: $cmp_out/$f is not there" >&2; exit 2; }
		done
		return
	fi
	mkdir -p "$cmp_out" || { echo "$0: cannot create $cmp_out" >&2; exit 2; }
	cmp_log=$cmp_out/$2
	: >"$cmp_log"
	printf 'run\tunit\ttool\tstarted\twall_s\tuser_s\tsys_s\texit\tcommand\n' >"$cmp_out/runs.tsv"
	cmp_scratch=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")
}

# cmp_cleanup: removes cmp_exec's scratch files (the calling script's EXIT trap).
cmp_cleanup() { [ -z "$cmp_scratch" ] || rm -rf -- "$cmp_scratch"; }

cmp_now() { TZ=UTC printf '%(%Y-%m-%dT%H:%M:%SZ)T' -1; }

# cmp_quote WORD...: the words as a shell would read them back, quoted only
# where they need it (printf %q alone turns every comma into "\,").
cmp_quote() {
	local a q=()
	for a; do
		if [[ $a =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then q+=("$a"); else q+=("$(printf '%q' "$a")"); fi
	done
	echo "${q[*]}"
}

cmp_label() { if [[ $cmp_run =~ ^[0-9]+$ ]]; then echo "run $cmp_run of $cmp_nruns"; else echo "$cmp_run"; fi; }

# cmp_exec TOOL STDOUT CMD...: runs CMD once, its stdout to the file
# STDOUT and its stderr to the log, with a line before (start time, the
# command) and after (wall, user and system seconds, exit status) on
# stderr and in the log, and a line in runs.tsv.  CPU seconds are the
# child's rusage as bash's `time` takes it: every thread of the process,
# io_uring's SQPOLL and io-wq threads included (Linux 5.12 on).  Sets
# CMP_RC, CMP_WALL, CMP_USER, CMP_SYS and CMP_ERR (a file holding the
# stderr, until the next call).  Returns 0: the caller judges CMP_RC.
cmp_exec() {
	local tool=$1 stdout=$2 cmd start TIMEFORMAT='%3R %3U %3S'
	shift 2
	cmd=$(cmp_quote "$@")
	start=$(cmp_now)
	echo "$(cmp_label) [$start] $tool: $cmd" | tee -a "$cmp_log" >&2
	CMP_ERR=$cmp_scratch/stderr CMP_RC=0 CMP_WALL=- CMP_USER=- CMP_SYS=-
	{ time "$@" >"$stdout" 2>"$CMP_ERR" 3>&- || CMP_RC=$?; } 2>"$cmp_scratch/time"
	cat "$CMP_ERR" >>"$cmp_log"
	read -r CMP_WALL CMP_USER CMP_SYS <"$cmp_scratch/time" || true
	echo "$(cmp_label) [$(cmp_now)] $tool: $CMP_WALL s (user $CMP_USER s, sys $CMP_SYS s), exit $CMP_RC" |
		tee -a "$cmp_log" >&2
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cmp_run" "$cmp_unit" "$tool" "$start" \
		"$CMP_WALL" "$CMP_USER" "$CMP_SYS" "$CMP_RC" "$cmd" >>"$cmp_out/runs.tsv"
}

# cmp_runs UNIT...: cmp_nruns runs; in each, for each UNIT in turn, one
# process of every tool (cmp_tool TOOL UNIT).  The order alternates: the
# tools as cmp_tools lists them in odd runs, the other way round in even
# ones (ABBA; with three tools ABC CBA), so a machine whose state drifts
# over seconds (a VM's host, a GPU coming out of idle after the other
# tool's process) favours no tool's median.  COMPARE_DEADLINE stops it.
cmp_runs() {
	local r u t t0 took longest=0 order
	[ "$cmp_summary_only" = 1 ] && return
	for r in $(seq 1 "$cmp_nruns"); do
		if [ -n "$cmp_deadline" ] && [ "$r" -gt 1 ] && [ $((SECONDS + longest)) -gt "$cmp_deadline" ]; then
			echo "stopped after $((r - 1)) of $cmp_nruns runs: another (up to ${longest} s) would end past" \
				"$cmp_deadline_var=$cmp_deadline s (at $SECONDS s)" | tee -a "$cmp_log" >&2
			break
		fi
		t0=$SECONDS
		cmp_run=$r
		order=("${cmp_tools[@]}")
		if [ $((r % 2)) = 0 ]; then
			order=()
			for t in "${cmp_tools[@]}"; do order=("$t" "${order[@]}"); done
		fi
		for u in "$@"; do
			cmp_unit=$u
			for t in "${order[@]}"; do cmp_tool "$t" "$u"; done
		done
		took=$((SECONDS - t0))
		echo "run $r of $cmp_nruns [$(cmp_now)]: $took s" | tee -a "$cmp_log" >&2
		[ "$took" -gt "$longest" ] && longest=$took
	done
	cmp_run=- cmp_unit=-
}
