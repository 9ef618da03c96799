#!/usr/bin/env bash
# gpufeed watch: usage errors and their messages; this machine live with the
# stand-in NVML (the table within 100 columns, JSON Lines that parse, CSV
# whose header matches its rows, --parts, --nvml, a closed pipe); a process;
# Ctrl-C ending cleanly with -o FILE written; the h200x4-vm recording
# (--root) printed once with its four GPUs (--gpus, --parts) or refused.
. "$(dirname "$0")/lib.sh"
H200=$FIX/h200x4-vm/root
fake_nvml=${GPUFEED_FAKE_NVML:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libnvidia-ml.so.1}
# Every live run on the stand-in NVML, bounded in time.
gf() { timeout 30 env GPUFEED_NVML_LIBRARY="$fake_nvml" "$GPUFEED" "$@"; }
# widest FILE: the longest line's length.
widest() { awk '{ if (length > w) w = length } END { print w + 0 }' "$1"; }
# csv_check FILE ROWS PYTHON: FILE is a header and ROWS rows of as many
# fields; PYTHON (with head, body, row: the last row by column) holds too.
csv_check() {
	python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
assert len(body) == int(sys.argv[2]), len(body)
assert all(len(r) == len(head) for r in body), [len(r) for r in body]
row = dict(zip(head, body[-1]))
exec(sys.argv[3])
' "$@"
}

# --- usage ------------------------------------------------------------------
expect_rc 2 "--interval 0" gf watch --interval 0
expect_grep "$err" "--interval: '0' is not a number of seconds above 0" "the bad interval is named"
expect_rc 2 "--interval -1" gf watch --interval -1
expect_rc 2 "--interval abc" gf watch -i abc
expect_grep "$err" "'abc'" "and named"
expect_rc 2 "--interval nan" gf watch -i nan
expect_rc 2 "--count 0" gf watch --count 0
expect_grep "$err" "--count: '0'" "the bad count is named"
expect_rc 2 "--count x" gf watch -c x
expect_rc 2 "--json with --csv" gf watch --json --csv -c 1
expect_grep "$err" "give one" "says to pick one"
expect_rc 2 "--children without --pid" gf watch --children -c 1
expect_rc 2 "--parts with an unknown part" gf watch --parts gpu,cpus -c 1
expect_grep "$err" "'cpus' is not gpu, numa, disk, nic or pagecache" "the part is named with the choices"
expect_rc 2 "--pid abc" gf watch --pid abc
expect_rc 2 "--pid 0" gf watch --pid 0
expect_rc 2 "--gpus with --parts numa" gf watch --gpus 0 --parts numa -c 1
expect_grep "$err" "--gpus with no GPU part" "says why"
expect_rc 2 "--gpus with --nvml=off" gf watch --gpus 0 --nvml=off -c 1
expect_rc 2 "an operand" gf watch extra
expect_rc 0 "--help" gf watch --help
expect_grep "$out" "^Usage: gpufeed watch" "shows the usage"

# A PID that was just reaped: exit 3, the message names it.
sleep 0 & gone=$!
wait $gone
expect_rc 3 "--pid of a process that does not exist" gf watch --pid "$gone" -c 1 -i 0.1
expect_grep "$err" "$gone" "the message names the PID"
[ ! -s "$out" ] && ok "and nothing is printed" || not_ok "it printed $(wc -l <"$out") lines"

# --- live: this machine, NVML the stand-in's --------------------------------
# The model lists the GPUs on this machine's PCI bus: none on a CI VM,
# whatever the stand-in NVML says (its GPUs' addresses are not here).  The
# four-GPU table is checked on the h200x4-vm recording below, the widest
# figures by tests/unit/test_monitor_output.
ngpus=$(gf topo --json 2>/dev/null | jq '.gpus | length')
expect_rc 0 "--count 3 --interval 0.1" gf watch --count 3 --interval 0.1
cp "$out" "$TMP/table.txt"
cp "$err" "$TMP/table.err"
w=$(widest "$TMP/table.txt")
[ "$w" -le 100 ] && ok "every line fits 100 columns (widest $w)" || not_ok "a line of $w columns"
rows=$(grep -cE '^ +[0-9]+ ' "$TMP/table.txt")
[ "$rows" = $((3 * ngpus)) ] && ok "a row per GPU of the model ($ngpus) per sample" || not_ok "$rows GPU rows for $ngpus GPUs"
# (How long each interval really was depends on the machine's load.)
[ "$(grep -cE '^# .* over [0-9.]+ s$' "$TMP/table.txt")" = 3 ] && ok "three samples, each over an interval" ||
	not_ok "the time lines: $(grep '^# ' "$TMP/table.txt" | head -2)"
expect_no_grep "$TMP/table.txt" "levels only" "the priming sample is not printed"
expect_grep "$TMP/table.txt" "^ node0 .* cpu .* iowait .* mem free .* GiB" "a row per NUMA node"
expect_grep "$TMP/table.txt" "^ pagecache .* cached .* dirty .* writeback" "the page cache"
if [ "$ngpus" = 0 ]; then
	[ "$(grep -c '^# no GPU figures: ' "$TMP/table.txt")" = 3 ] && ok "no GPU: each sample says why" ||
		not_ok "no GPU: the reason is not in the table"
	[ "$(grep -c 'no GPU figures' "$TMP/table.err")" = 1 ] && ok "and stderr says it once" ||
		not_ok "stderr: $(head -3 "$TMP/table.err")"
	expect_no_grep "$TMP/table.txt" "^#gpu" "no GPU header without GPU rows"
	expect_rc 4 "--gpus on a machine without a GPU" gf watch --gpus 0 -c 1 -i 0.1
	expect_grep "$err" "--gpus 0: no GPU on this machine" "says so"
fi

expect_rc 0 "--json -c 2" gf watch --json -c 2 -i 0.1
cp "$out" "$TMP/w.jsonl"
[ "$(wc -l <"$TMP/w.jsonl")" = 2 ] && ok "one line per sample" || not_ok "$(wc -l <"$TMP/w.jsonl") lines"
if jq -e -s "length == 2 and all(.[]; .schema == \"gpufeed-monitor/1\" and .interval_s > 0 and
	(.gpus | length) == $ngpus and (.nodes | length) >= 1 and .proc == null and
	(.nodes | all(.[]; .cpu_busy >= 0 and .cpu_busy <= 1)))" "$TMP/w.jsonl" >/dev/null; then
	ok "every line parses: the schema, an interval, the model's GPUs, nodes with a busy fraction"
else not_ok "the JSON lines: $(head -c 300 "$TMP/w.jsonl")"; fi

expect_rc 0 "--csv -c 3" gf watch --csv -c 3 -i 0.1
csv_check "$out" 3 'assert head[:3] == ["t", "interval_s", "node0.cpu_busy"] and "pagecache.cached" in head, head[:8]
assert all(float(r[1]) > 0 for r in body)' &&
	ok "CSV: a header and three rows, each with the header's fields" || not_ok "CSV shape"

expect_rc 0 "--parts numa,pagecache" gf watch --parts numa,pagecache --json -c 1 -i 0.1
expect_jq "$out" '(.gpus | length) == 0 and (.nodes | length) >= 1 and (.disks | length) == 0 and
	(.nics | length) == 0 and .pagecache != null' "only the parts asked for"
expect_rc 0 "--parts disk" gf watch --parts disk --json -c 1 -i 0.1
expect_jq "$out" '(.nodes | length) == 0 and .pagecache == null and .gpu_why == null' "disks alone"

expect_rc 0 "--nvml=off" gf watch --nvml=off --json -c 1 -i 0.1
expect_jq "$out" '(.gpus | length) == 0 and .gpu_why == null' "no GPU part at all"
expect_rc 4 "--nvml=require without NVML" env GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
	timeout 30 "$GPUFEED" watch --nvml=require -c 1 -i 0.1
expect_grep "$err" "NVML" "says NVML is missing"
expect_rc 0 "no NVML, no --nvml: host rows and the reason" env GPUFEED_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 \
	timeout 30 "$GPUFEED" watch -c 1 -i 0.1
expect_grep "$out" "^# no GPU figures: " "the table says why there are no GPU rows"
expect_grep "$out" "^ node0 " "the host is still watched"

# A closed pipe ends watch at its next sample: exit 3, said on stderr.
(
	timeout 30 env GPUFEED_NVML_LIBRARY="$fake_nvml" "$GPUFEED" watch --json -i 0.05 2>"$TMP/pipe.err"
	echo $? >"$TMP/pipe.rc"
) | head -n 1 >/dev/null
[ "$(cat "$TMP/pipe.rc")" = 3 ] && ok "watch | head -n 1: exit 3 when the reader is gone" ||
	not_ok "into a closed pipe: exit $(cat "$TMP/pipe.rc")"
expect_grep "$TMP/pipe.err" "Broken pipe" "the message says EPIPE"

# --- a process --------------------------------------------------------------
sleep 30 & victim=$!
expect_rc 0 "--pid: a sleeping process" gf watch --pid "$victim" --children --json -c 1 -i 0.1
expect_jq "$out" ".proc.pid == $victim and .proc.alive and .proc.nprocs == 1 and .proc.rss > 0 and
	(.proc.threads | length) == 1" "its share is in the sample: one process, its RSS, its thread"
expect_rc 0 "--pid as text" gf watch --pid "$victim" -c 1 -i 0.1
expect_grep "$out" "^ pid $victim " "its rows are labelled with the PID"
w=$(widest "$out")
[ "$w" -le 100 ] && ok "and fit 100 columns" || not_ok "a line of $w columns"
kill "$victim"
wait "$victim" 2>/dev/null
sleep 1 & short=$!
expect_rc 0 "--pid without --count ends when the process exits" gf watch --pid "$short" -i 0.2
expect_grep "$err" "process $short has exited" "and says so on stderr"
expect_grep "$out" "^ pid $short  *has exited; its last figures:" "the last sample says so"
wait "$short" 2>/dev/null

# --- Ctrl-C -----------------------------------------------------------------
# SIGINT once two samples are in the temporary file beside FILE (polled, so
# a loaded machine only makes it wait longer): exit 0, FILE renamed into
# place with whole lines.
env GPUFEED_NVML_LIBRARY="$fake_nvml" "$GPUFEED" watch -i 0.1 --json -o "$TMP/int.jsonl" 2>"$TMP/int.err" &
watcher=$!
for _ in $(seq 200); do
	[ "$(cat "$TMP"/int.jsonl.tmp-* 2>/dev/null | wc -l)" -ge 2 ] && break
	sleep 0.1
done
kill -INT "$watcher"
wait "$watcher"
rc=$?
[ "$rc" = 0 ] && ok "Ctrl-C ends watch with exit 0" || not_ok "Ctrl-C: exit $rc ($(head -2 "$TMP/int.err"))"
n=$(jq -s length "$TMP/int.jsonl" 2>/dev/null)
[ "${n:-0}" -ge 2 ] && ok "and -o FILE holds the $n samples taken, whole" || not_ok "-o FILE: '${n:-}' samples"
ls "$TMP"/int.jsonl.tmp-* >/dev/null 2>&1 && not_ok "a temporary file is left" || ok "no temporary file is left"

# --- a recording: four H200s ------------------------------------------------
expect_rc 2 "--root without --count 1" "$GPUFEED" watch --root "$H200"
expect_grep "$err" "holds no counters" "says why"
expect_rc 2 "--root with --count 2" "$GPUFEED" watch --root "$H200" --count 2
expect_rc 0 "--root DIR --count 1" "$GPUFEED" watch --root "$H200" --count 1
cp "$out" "$TMP/rec.txt"
expect_grep "$err" "is a recording: it holds no counters" "says the rates are missing and why"
[ "$(grep -cE '^ +[0-9]+ ' "$TMP/rec.txt")" = 4 ] && ok "the recording's four GPUs" ||
	not_ok "$(grep -cE '^ +[0-9]+ ' "$TMP/rec.txt") GPU rows"
w=$(widest "$TMP/rec.txt")
[ "$w" -le 100 ] && ok "the four-GPU table fits 100 columns (widest $w)" || not_ok "a line of $w columns"
expect_grep "$TMP/rec.txt" "^#gpu  *sm  *occ  *tc  *mem  *pcirx" "the GPU table's header"
expect_grep "$TMP/rec.txt" "^#idx .* GB/s .* %lim" "and its units"
# A rate is '-', never 0, in every GPU row: sm, pcirx and nvlrx.
if awk '/^ +[0-9]+ / { if ($2 != "-" || $6 != "-" || $9 != "-") bad = 1 } END { exit bad }' "$TMP/rec.txt"; then
	ok "every rate of the recording is '-'"
else not_ok "a rate printed: $(grep -E '^ +0 ' "$TMP/rec.txt")"; fi
expect_grep "$TMP/rec.txt" "^ node0 .* cpu     -  iowait     -  mem free" "a node's rates '-', its memory a level"
expect_rc 0 "--root FILE.tar.gz --count 1 --json" \
	"$GPUFEED" watch --root "$SRC/tests/fixtures/machines/h200x4-vm/root.tar.gz" --count 1 --json
cp "$out" "$TMP/rec.json"
expect_jq "$TMP/rec.json" '(.gpus | length) == 4 and .interval_s == 0 and (.gpus | all(.[]; .sm_active == null and
	.pcie_rx_bps == null and .pcie_limit_bps > 0 and .nvlink_limit_bps > 0))' \
	"the same from the archive: rates null, the model's limits"
uuid=$(jq -r '.gpus[2].uuid' "$TMP/rec.json")
expect_rc 0 "--gpus 1,0000:00:09.0" "$GPUFEED" watch --root "$H200" -c 1 --gpus 1,0000:00:09.0 --json
expect_jq "$out" '[.gpus[].index] == [1, 3]' "only the GPUs named, by index and PCI address"
expect_rc 0 "--gpus by a UUID prefix" "$GPUFEED" watch --root "$H200" -c 1 --gpus "${uuid:0:12}"
[ "$(grep -cE '^ +[0-9]+ ' "$out")" = 1 ] && expect_grep "$out" "^   2 " "one GPU row: GPU 2" ||
	not_ok "rows: $(grep -E '^ +[0-9]+ ' "$out")"
# A prefix shorter than 8 characters names nothing, as --help says.
expect_rc 2 "--gpus with a UUID prefix of 7 characters" "$GPUFEED" watch --root "$H200" -c 1 --gpus "${uuid:0:7}"
"$GPUFEED" watch --help >"$TMP/whelp"
expect_grep "$TMP/whelp" "it of 8 characters or more" "--help says a UUID prefix has 8 characters or more"
expect_rc 2 "--gpus naming no GPU" "$GPUFEED" watch --root "$H200" -c 1 --gpus 1,7
expect_grep "$err" "--gpus: '7' names no GPU" "the name is in the message"
expect_rc 0 "--parts gpu" "$GPUFEED" watch --root "$H200" -c 1 --parts gpu --json
expect_jq "$out" '(.gpus | length) == 4 and (.nodes | length) == 0 and (.disks | length) == 0 and .pagecache == null' \
	"GPUs alone"
expect_rc 0 "--root --count 1 --csv" "$GPUFEED" watch --root "$H200" --count 1 --csv
csv_check "$out" 1 'assert row["gpu3.sm_active"] == "" and float(row["gpu3.pcie_limit_bps"]) > 0, row' &&
	ok "CSV: a header and one row of its fields, a rate empty, a limit known" || not_ok "CSV of the recording"
expect_rc 4 "--nvml=require on a recording without nvml.json" "$GPUFEED" watch --root "$FIX/ci-vm/root" -c 1 --nvml=require

finish
