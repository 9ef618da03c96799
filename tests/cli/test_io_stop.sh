#!/usr/bin/env bash
# bench io stops when asked, whatever the engine is going through: with
# every read cut to one byte (GPUFEED_IO_FAULT=read:short=1: a 1 MiB request
# is a million resubmits, and Ctrl-C used to be ignored for 11 minutes)
# SIGINT and SIGTERM end the run within 2 s on both engines and the file it
# created is removed; an EAGAIN on every attempt fails the run in well under
# a second of I/O instead of 3.5 s per request.
. "$(dirname "$0")/lib.sh"

now() { date +%s%N; }

# stop_run ENGINE SIGNAL: starts a cut-read run, signals it once its reads
# are under way, checks how fast it ended and what it left.
stop_run() {
	local engine=$1 sig=$2 f=$TMP/stop-$1-$2.bin pid t0 t1 ms
	GPUFEED_IO_FAULT=read:short=1 timeout -s KILL 60 "$GPUFEED" bench io "$f" --mode seqread --bs 1M \
		--engine "$engine" --size 16M --duration 30 -q >"$TMP/stop.out" 2>"$TMP/stop.err" &
	pid=$!
	# Reading once the layout is done: the file is there at full size.
	for _ in $(seq 100); do
		[ "$(stat -c %s "$f" 2>/dev/null)" = 16777216 ] && break
		sleep 0.1
	done
	sleep 0.5
	t0=$(now)
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	t1=$(now)
	ms=$(((t1 - t0) / 1000000))
	if [ "$ms" -lt 2000 ] && [ "$rc" -ne 137 ]; then ok "$engine: SIG$sig ends cut reads in $ms ms (exit $rc)"; else
		not_ok "$engine: SIG$sig took $ms ms (exit $rc)"; sed 's/^/#   /' "$TMP/stop.err" | head -5; fi
	[ ! -e "$f" ] && ok "$engine: SIG$sig removed the file it created" || not_ok "$engine: $f left behind"
	[ "$rc" -ne 0 ] && ok "$engine: a stopped run does not exit 0" || not_ok "$engine: exit 0 after SIG$sig"
}

for engine in uring psync; do
	stop_run "$engine" INT
	stop_run "$engine" TERM
done

# EAGAIN on every read: the run fails, soon, saying why.
t0=$(now)
GPUFEED_IO_FAULT=read:eagain expect_rc 3 "EAGAIN storm fails the run" \
	timeout 60 "$GPUFEED" bench io "$TMP/eagain.bin" --mode randread --qd 4 --size 4M --duration 5 -q
ms=$((($(now) - t0) / 1000000))
expect_grep "$err" "Resource temporarily unavailable" "and names EAGAIN"
[ "$ms" -lt 3000 ] && ok "in $ms ms (layout included)" || not_ok "EAGAIN storm took $ms ms"
[ ! -e "$TMP/eagain.bin" ] && ok "and removes its file" || not_ok "eagain.bin left behind"

finish
