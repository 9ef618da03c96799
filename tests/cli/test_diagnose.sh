#!/usr/bin/env bash
# gpufeed diagnose on real small jobs, with the stand-in NVML: Python jobs
# that call gpufeed.step() and sleep (host-bound), burn their CPU (host),
# read a slow pipe from a process they start (input-bound on another
# process), or read a file whose pages they drop (the disk part); --pid
# attached to a running job with and without GPUFEED_DIAGNOSE; a job that
# exits non-zero or is killed (its status passed through); --samples and
# --replay; usage errors and files refused.  The jobs are in
# tests/cli/diagnose/.  Skips (77) without python3-dev (the extension is
# built here as tests/cli/test_python.sh builds it).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
BUILD=${BUILD:-build}
case $BUILD in /*) build=$BUILD ;; *) build=$SRC/$BUILD ;; esac
JOBS=$SRC/tests/cli/diagnose
export GPUFEED_NVML_LIBRARY="$build/fakes/libnvidia-ml.so.1"
unset GPUFEED_DIAGNOSE
gf() { timeout 120 "$GPUFEED" "$@"; }

# usage
expect_rc 2 "no job, no --pid, no --replay" gf diagnose
expect_grep "$err" "put '--' before the command" "no job: says what to give"
expect_rc 2 "--pid with a command" gf diagnose --pid 1 -- true
expect_rc 2 "nothing after --" gf diagnose --
expect_rc 2 "--interval junk" gf diagnose --interval soon -- true
expect_rc 2 "--interval 0" gf diagnose --interval 0 -- true
expect_rc 2 "--pid not a number" gf diagnose --pid 12x
expect_rc 2 "--samples with --replay" gf diagnose --samples "$TMP/s" --replay "$TMP/s"
expect_rc 2 "an operand before --" gf diagnose stray -- true

# a command that cannot run: env(1)'s codes, nothing left behind
mkdir -p "$TMP/tmp"
expect_rc 127 "a command not found" env TMPDIR="$TMP/tmp" "$GPUFEED" diagnose -- /no/such/command
expect_grep "$err" "/no/such/command" "not found: named"
printf 'data\n' >"$TMP/not-executable"
expect_rc 126 "a file that is not executable" gf diagnose -- "$TMP/not-executable"
left=$(find "$TMP/tmp" -mindepth 1 | head -3)
[ -z "$left" ] && ok "diagnose's private directory is removed" || not_ok "left behind: $left"

# the job's status passes through, and the report is still written
expect_rc 5 "a job that exits 5" gf diagnose --interval 0.2 -- sh -c 'sleep 0.5; exit 5'
expect_grep "$out" "job: exited 5" "exit 5: reported"
expect_rc 143 "a job killed by SIGTERM: 128+15" gf diagnose --interval 0.2 -- sh -c 'sleep 0.3; kill -TERM $$'
expect_grep "$out" "killed by signal 15" "SIGTERM: reported"
expect_rc 0 "--json of a job that ends at once" gf diagnose --json -- true
expect_jq "$out" '.schema == "gpufeed-diagnose/1" and .job.exit_code == 0' "--json: schema and exit code"

# NCCL's log: the job gets NCCL_DEBUG_FILE in diagnose's directory (a job
# standing in for NCCL writes a recorded log there), and the analysis of
# 'gpufeed nccl log' is in the report; --no-nccl-log leaves NCCL alone
nccl_job='f=$(printf %s "$NCCL_DEBUG_FILE" | sed "s/%h/$(hostname)/; s/%p/$$/"); cp "$1" "$f"; sleep 0.3'
run gf diagnose --json -- sh -c "$nccl_job" sh "$SRC/tests/fixtures/nccl/h200x2/mixed-versions.log"
expect_jq "$out" '.nccl.log_files == 1 and .nccl.clean == false' "NCCL: the job's log read"
expect_jq "$out" '.nccl.findings | map(test("nccl.version-mismatch")) | any' "NCCL: its findings in the report"
expect_rc 0 "--no-nccl-log: NCCL's environment left alone" \
	env -u NCCL_DEBUG -u NCCL_DEBUG_FILE "$GPUFEED" diagnose --no-nccl-log -- sh -c '[ -z "${NCCL_DEBUG_FILE:-}${NCCL_DEBUG:-}" ]'
expect_rc 0 "GPUFEED_DIAGNOSE is set for the job" gf diagnose -- sh -c '[ -d "$GPUFEED_DIAGNOSE" ]'

# samples of known GPU jobs replayed (tests/fixtures/diagnose)
FIXD=$SRC/tests/fixtures/diagnose
for want in compute:compute comm:communication launch:host straggler:input; do
	run gf diagnose --json --replay "$FIXD/${want%%:*}.jsonl"
	expect_jq "$out" ".bound == \"${want#*:}\" and .gpu" "replay ${want%%:*}: ${want#*:}-bound, with GPU figures"
done
expect_jq "$out" '.straggler.index == 1 and .mixed_with == "communication"' \
	"replay straggler: rank 1's input stall is the others' communication"

# the Python jobs need the extension
"$PY" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' || {
	echo "# skip the Python jobs: no Python.h for $PY (apt-get install python3-dev)"; finish; }
asan=$(ldd "$build/libgpufeed.so" 2>/dev/null | awk '/libasan/ {print $3}')
penv=()
[ -z "$asan" ] || penv=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-})
pkg=$build/diagnose-python/gpufeed
mkdir -p "$pkg"
cp "$SRC"/python/gpufeed/*.py "$pkg"/
if ! make -C "$SRC" -s BUILD="$BUILD" CC="${CC:-cc}" ${asan:+SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer"} \
	PY_EXT="$pkg/_gpufeed.abi3.so" python >"$TMP/make.log" 2>&1; then
	not_ok "make python failed"; tail -5 "$TMP/make.log" | sed 's/^/#   /'; finish
fi
pyjob() { env "${penv[@]}" PYTHONPATH="$build/diagnose-python" "$@"; }

# sleeping each step: host-bound, steps from the markers
run pyjob "$GPUFEED" diagnose --json -- "$PY" "$JOBS/sleeper.py" 30 0.05
[ "$rc" = 0 ] && ok "sleeper: exit 0" || not_ok "sleeper: exit $rc"
expect_jq "$out" '.bound == "host" and .parts.host.fraction > 0.6' "sleeper: host-bound"
expect_jq "$out" '.parts.host.why | test("slept or polled")' "sleeper: the host part is sleeping"
expect_jq "$out" '.steps.source == "markers" and .steps.count == 29' "sleeper: 30 markers, 29 steps timed between them"
expect_jq "$out" '.steps.mean_s >= 0.05 and .steps.mean_s < 0.5' "sleeper: the mean step is at least the sleep"
expect_jq "$out" '.gpu == false and .ranks == 1' "sleeper: no GPU of its own on the stand-in NVML, one rank"
expect_jq "$out" '[.notes[] | select(test("NVML not available"))] | length == 0' "sleeper: the stand-in NVML was loaded"

# burning the CPU: host-bound on CPU work (its own, or waiting for a CPU on a busy machine)
run pyjob "$GPUFEED" diagnose --json -- "$PY" "$JOBS/burner.py" 2
expect_jq "$out" '.bound == "host" and (.parts.host.why | test("own CPU work|CPU contention"))' "burner: host-bound on CPU"
expect_jq "$out" '.parts.host.why | test("slept") | not' "burner: not sleeping"
expect_jq "$out" '.checks.only == "cpu" and (.checks.count | type) == "number"' "burner: gpufeed check's cpu category run beside the verdict"

# a slow pipe from a process it started: input-bound, another process
run pyjob "$GPUFEED" diagnose --json --samples "$TMP/pipe.jsonl" -- "$PY" "$JOBS/pipe_reader.py" 20 0.1
expect_jq "$out" '.bound == "input" and .parts.input.fraction > 0.6' "pipe reader: input-bound"
expect_jq "$out" '.parts.input.why | test("pipe or socket")' "pipe reader: the input is another process"
expect_jq "$out" '.parts.input.speedup_if_free > 2' "pipe reader: the speed-up if input were free"
expect_jq "$out" '.checks.only == "cpu"' "pipe reader: input from another process: the cpu checks"
expect_jq "$out" '.ranks == 1' "pipe reader: the writer it started is not a rank (the marker's process is)"
lines=$(wc -l <"$TMP/pipe.jsonl")
[ "$lines" -ge 1 ] && ok "--samples: $lines intervals written" || not_ok "--samples: empty"
expect_rc 0 "--replay of the pipe reader's samples" gf diagnose --replay "$TMP/pipe.jsonl" --json
expect_jq "$out" '.bound == "input" and .job.mode == "replay"' "--replay: the same verdict"

# a file whose pages are dropped: the disk part is measured
head -c 32M /dev/urandom >"$TMP/data"
run pyjob "$GPUFEED" diagnose --json -- "$PY" "$JOBS/disk_reader.py" "$TMP/data" 3
fs=$(stat -f -c %T "$TMP")
if [ "$fs" = tmpfs ]; then
	count=$((count + 1)); echo "ok $count - # skip the disk reader: $TMP is on tmpfs"
else
	expect_jq "$out" '.parts.input.fraction > 0.05 and (.parts.input.why | test("disk: the step thread blocked reading files"))' \
		"disk reader: blocked reading the file, named as the disk"
fi

# two ranks under gpufeed launch: rank 1 waits for its input, rank 0 does not
run pyjob "$GPUFEED" diagnose --json -- "$GPUFEED" launch --no-bind --nproc-per-node 2 -- "$PY" "$JOBS/ranked.py" 3
[ "$rc" = 0 ] && ok "launch: exit 0" || not_ok "launch: exit $rc"
expect_jq "$out" '.ranks == 2' "launch: each rank sampled on its own"
expect_jq "$out" '.straggler.rank == 1 and .straggler.input_fraction > 0.6 and .straggler.others_input_fraction < 0.3' \
	"launch: rank 1 named as the straggler, by its RANK"
expect_jq "$out" '.parts.input.why | test("pipe or socket")' "launch: the straggler's input explained"

# --pid: a job started with GPUFEED_DIAGNOSE publishes markers diagnose finds
mkdir -p "$TMP/chan"
env GPUFEED_DIAGNOSE="$TMP/chan" "${penv[@]}" PYTHONPATH="$build/diagnose-python" "$PY" "$JOBS/sleeper.py" 100 0.05 &
job=$!
sleep 0.5
run gf diagnose --json --duration 1.5 --pid "$job"
[ "$rc" = 0 ] && ok "--pid: exit 0" || not_ok "--pid: exit $rc"
expect_jq "$out" '.job.mode == "attach" and .bound == "host" and .steps.source == "markers" and .steps.count >= 10' \
	"--pid: attached, host-bound, steps from the job's markers"
kill "$job" 2>/dev/null; wait "$job" 2>/dev/null
# and one without: no markers, said so
"$PY" -c 'import time; time.sleep(30)' &
job=$!
run gf diagnose --duration 1 --pid "$job"
expect_grep "$out" "not started with GPUFEED_DIAGNOSE" "--pid without markers: said"
expect_grep "$out" "no step boundaries" "--pid without markers: no step boundaries"
kill "$job" 2>/dev/null; wait "$job" 2>/dev/null
expect_rc 3 "--pid of no process" gf diagnose --pid 999999999
expect_grep "$err" "no such process" "--pid of no process: said"

# bad replay files, a report path that is a directory
printf '{"t":0,"dt":1,"ranks":[]}\n{"t":1,"dt":1,"ranks":[{"pid":1,"run":2}]}\n' >"$TMP/bad.jsonl"
expect_rc 3 "--replay: a rank with run 2" gf diagnose --replay "$TMP/bad.jsonl"
expect_grep "$err" "bad.jsonl:2: ranks\[0\]: run 2" "--replay: the line and the field named"
# A wait is a fraction of the interval like run: 5 (500%) or a negative one
# that hides another wait is refused, not reported as "500% of the time".
printf '{"t":0,"dt":1,"ranks":[{"pid":1,"run":0.2,"runq":0.1,"blocked":{"disk":5}}]}\n' >"$TMP/bad.jsonl"
expect_rc 3 "--replay: a rank blocked on disk 5 times the interval" gf diagnose --replay "$TMP/bad.jsonl"
expect_grep "$err" "bad.jsonl:1: ranks\[0\]: .*disk 5" "--replay: the wait named"
printf '{"t":0,"dt":1,"ranks":[{"pid":1,"run":0.2,"runq":0.1,"blocked":{"disk":-5,"pipe":0.6}}]}\n' >"$TMP/bad.jsonl"
expect_rc 3 "--replay: a negative wait" gf diagnose --replay "$TMP/bad.jsonl"
printf 'not json\n' >"$TMP/garbage"
expect_rc 3 "--replay: not JSON" gf diagnose --replay "$TMP/garbage"
expect_grep "$err" "garbage:1: not JSON" "--replay garbage: the line named"
mkdir "$TMP/dir"
expect_rc 3 "--report to a directory" gf diagnose --report "$TMP/dir" --replay "$TMP/pipe.jsonl"
[ -d "$TMP/dir" ] && ok "--report: the directory is left alone" || not_ok "--report: the directory was replaced"
expect_rc 0 "--report FILE" gf diagnose --report "$TMP/report.txt" --replay "$TMP/pipe.jsonl"
expect_grep "$TMP/report.txt" "verdict: input-bound" "--report: the report is in FILE"
finish
