#!/usr/bin/env bash
# gpufeed bench mem: usage errors, an absent node, the --quick run on this
# machine (1x1 here), its JSON contract (matrices, raw samples, placement
# checked), the text matrices.  Checks behaviour and shape, not speed.
. "$(dirname "$0")/lib.sh"

gf() { timeout 120 "$GPUFEED" "$@"; }

expect_rc 2 "an operand" gf bench mem extra
expect_rc 2 "--threads 0" gf bench mem --threads 0
expect_rc 2 "--threads past the bound" gf bench mem --threads 99999
expect_rc 2 "--size under 1M" gf bench mem --size 4K
expect_grep "$err" "--size" "the bad option is named"
expect_rc 2 "--size junk" gf bench mem --size 12Q
expect_rc 2 "--repeats -1" gf bench mem --repeats -1
expect_rc 2 "--nodes junk" gf bench mem --nodes 0,x
expect_grep "$err" "--nodes: '0,x'" "the bad list is named"
expect_rc 2 "--nodes empty" gf bench mem --nodes ''
expect_rc 2 "an unknown option" gf bench mem --latency-only
expect_rc 4 "--nodes naming an absent node" gf bench mem --quick --nodes 0,63
expect_grep "$err" "no NUMA node 63 here" "the absent node is named, with the nodes there are"
expect_rc 0 "bench mem --help" gf bench mem --help
expect_grep "$out" "--nodes LIST" "help lists --nodes"
gf bench --help >"$TMP/bench-help" 2>&1
expect_grep "$TMP/bench-help" "mem" "bench --help lists mem"

nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
cpu_nodes=0
for n in /sys/devices/system/node/node[0-9]*; do [ -n "$(cat "$n/cpulist" 2>/dev/null)" ] && cpu_nodes=$((cpu_nodes + 1)); done

# What makes --quick quick is asserted on its configuration below (buffer,
# repeats, sample time), not timed: a wall-clock bar fails on a loaded machine.
expect_rc 0 "--quick --json runs" gf bench mem --quick --json
cp "$out" "$TMP/q.json"
expect_jq "$TMP/q.json" '.schema == "gpufeed-bench-mem/1" and (.gpufeed_version | type) == "string"' "schema and version"
expect_jq "$TMP/q.json" "(.mem_nodes | length) == $nodes and (.cpu_nodes | length) == $cpu_nodes" \
	"every node: $cpu_nodes CPU node(s) x $nodes memory node(s)"
expect_jq "$TMP/q.json" "[.matrices[]] | length == 4 and all(.[]; length == $cpu_nodes and all(.[]; length == $nodes and all(.[]; . > 0)))" \
	"four matrices, ${cpu_nodes}x${nodes}, every figure > 0"
expect_jq "$TMP/q.json" '.pairs | length > 0 and all(.[]; .latency.n == 3 and (.latency.samples | length) == 3 and .read.median > 0 and .copy.unit == "GB/s" and .latency.unit == "ns")' \
	"each pair: 3 raw samples, median, units"
expect_jq "$TMP/q.json" '.pairs | all(.[]; .latency.min <= .latency.median and .latency.median <= .latency.max and .read.iqr >= 0)' \
	"min <= median <= max, IQR >= 0"
expect_jq "$TMP/q.json" '.pairs | all(.[]; .placement.verified and .placement.pages_on_node == .placement.pages_checked and .placement.pages_checked > 0)' \
	"pages checked with move_pages: all on the memory node"
expect_jq "$TMP/q.json" '.matrices.latency_ns[0][0] == .pairs[0].latency.median' "the matrix holds the medians"
# The largest last-level cache, as sysfs says: --quick takes 64 MiB or four
# times that cache, whichever is larger (a smaller buffer measures the cache).
llc=0
for f in /sys/devices/system/cpu/cpu[0-9]*/cache/index*/; do
	[ "$(cat "$f/level" 2>/dev/null)" = 3 ] || continue
	v=$(cat "$f/size"); n=${v%[KM]}
	case $v in *K) n=$((n << 10)) ;; *M) n=$((n << 20)) ;; esac
	[ "$n" -gt "$llc" ] && llc=$n
done
want=$((64 << 20)); [ $((4 * llc)) -gt "$want" ] && want=$((4 * llc))
expect_jq "$TMP/q.json" ".config.buffer_bytes == $want and .config.repeats == 3 and .config.warmup == 1 and .config.sample_s <= 0.02 and .config.quick" \
	"--quick: max(64 MiB, 4 x the $((llc >> 20)) MiB L3), 1 warm-up and 3 repeats of at most 20 ms"
expect_jq "$TMP/q.json" '[.flags[] | select(.message | test("last-level cache"))] | length == 0' \
	"a default buffer draws no cache warning"
if [ "$llc" -ge $((1 << 20)) ]; then
	expect_rc 0 "a buffer smaller than the cache" "$GPUFEED" bench mem --quick --size 1M --repeats 1 --json
	expect_jq "$out" '[.flags[] | select(.level == "warning" and (.message | test("last-level cache")))] | length == 1' \
		"is measured with a warning: the figures are partly the cache's"
fi
expect_jq "$TMP/q.json" '(.conventions.copy | test("read \\+ bytes written")) and .machine.numa_nodes >= 1 and (.machine.nodes | length) >= 1' \
	"conventions and the topology summary"
expect_jq "$TMP/q.json" '.findings == 0 and (.flags | all(.[]; .level == "warning"))' "no findings"

expect_rc 0 "text, one node, 2 MiB, 1 thread, 2 repeats" gf bench mem --nodes 0 --size 2M --threads 1 --repeats 2 --quiet
expect_grep "$out" "^Idle latency, ns per dependent load" "the latency matrix"
expect_grep "$out" "^cpu node 0 " "a row per CPU node"
expect_grep "$out" "^mem node 0: 128 of 128 pages checked are on node 0" "placement in words"
expect_grep "$out" "1 bandwidth thread," "--threads 1"
[ ! -s "$err" ] && ok "--quiet: nothing on stderr" || not_ok "--quiet wrote to stderr: $(head -2 "$err")"
expect_rc 0 "progress on stderr without --quiet" gf bench mem --nodes 0 --size 2M --repeats 1
expect_grep "$err" "ETA" "progress lines have an ETA"

if grep -q sse2 /proc/cpuinfo 2>/dev/null; then
	expect_rc 0 "--nt" gf bench mem --nodes 0 --size 2M --repeats 1 --nt --json
	expect_jq "$out" '.config.nt and .pairs[0].write.median > 0' "--nt: non-temporal writes measured"
fi
# Ctrl-C: exit 3 and one message naming the command once (it was
# "gpufeed bench p2p: gpufeed bench p2p: interrupted").
"$GPUFEED" bench mem --quiet --repeats 1000 >/dev/null 2>"$TMP/int.err" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc = 3 ] && ok "SIGINT: exit 3" || not_ok "SIGINT: exit $rc"
[ "$(cat "$TMP/int.err")" = "gpufeed bench mem: interrupted" ] && ok "  one message, the command named once" ||
	not_ok "  stderr: $(cat "$TMP/int.err")"
# More memory than there is: refused (exit 4), not OOM-killed.
expect_rc 4 "--size beyond the memory available" gf bench mem --size 1T --quiet
expect_grep "$err" "MemAvailable" "  says what it compared with"
finish
