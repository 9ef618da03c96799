#!/usr/bin/env bash
# gpufeed exporter on the stand-in NVML (four GPUs): its output read by
# Prometheus's own tools (Debian's prometheus package): promtool check
# metrics on what it serves and writes, and a real Prometheus server,
# started here on a free port, scraping it until its API shows the target
# up and a metric's value equal to the one served; the text file (atomic
# while rewritten, --once, a recording); the HTTP server under bad
# requests (404, 405, 431, idle and slow clients that must not keep a
# scraper out, IPv6); bad input (a taken port, a bad address, an output
# path that is a directory: a clear message and the documented exit code).
# Without promtool or prometheus this skips (77), except under CI.
. "$(dirname "$0")/lib.sh"

unavailable() {
	if [ -n "${CI:-}" ]; then not_ok "$1 (CI must run these checks)"; finish; fi
	echo "skip: $1"; exit 77
}
for tool in promtool prometheus curl python3; do
	command -v "$tool" >/dev/null || unavailable "$tool is needed (scripts/install-deps.sh test)"
done

fake_nvml=${GPUFEED_FAKE_NVML:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libnvidia-ml.so.1}
export GPUFEED_NVML_LIBRARY=$fake_nvml
# The stand-in's four GPUs sit at the h200x4-vm recording's PCI addresses:
# its model stands for this machine's, whose figures are sampled live.
MODEL=$FIX/h200x4-vm/root
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# start_exporter LOG ARGS...: runs it in the background on port 0 and sets
# $pid and $addr (what it says it listens on).
start_exporter() {
	local log=$1; shift
	"$GPUFEED" exporter "$@" 2>"$log" &
	pid=$!
	pids+=("$pid")
	addr=
	for _ in $(seq 100); do
		addr=$(sed -n 's/.*listening on \([^ ]*\) .*/\1/p' "$log")
		[ -n "$addr" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# lint FILE: promtool's verdict.  Its style linter asks for snake_case label
# names and a _total suffix on counters; DCGM exporter's names break both
# (modelName; DCGM_FI_DEV_ECC_*_VOL_TOTAL), and keeping them is the point
# (its dashboards).  So: no parse error, and with modelName spelt
# model_name nothing else than those two counters' suffix.
lint() {
	sed 's/modelName=/model_name=/g' "$1" | promtool check metrics >"$TMP/lint" 2>&1
	local rc=$?
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 3 ] || return 1
	! grep -v '^DCGM_FI_DEV_ECC_[SD]BE_VOL_TOTAL counter metrics should have "_total" suffix$' "$TMP/lint" | grep -q .
}

# ---- usage and bad input ----
expect_rc 2 "neither --listen nor --textfile" "$GPUFEED" exporter
expect_grep "$err" "give --listen" "says what is missing"
expect_rc 2 "--listen without a port" "$GPUFEED" exporter --listen 127.0.0.1
expect_grep "$err" "127.0.0.1" "names the address"
expect_rc 2 "--listen with a name" "$GPUFEED" exporter --listen localhost:9400
expect_rc 2 "--listen port out of range" "$GPUFEED" exporter --listen :65536
expect_rc 2 "--listen IPv6 without brackets" "$GPUFEED" exporter --listen ::1:9400
expect_rc 2 "--interval 0" "$GPUFEED" exporter --textfile "$TMP/x.prom" --interval 0
expect_rc 2 "--once with --listen" "$GPUFEED" exporter --once --listen 127.0.0.1:0 --textfile "$TMP/x.prom"
expect_rc 2 "--root without --once" "$GPUFEED" exporter --root "$FIX/h200x4-vm/root" --textfile "$TMP/x.prom"
expect_grep "$err" "once" "--root: says to use --once"
expect_rc 2 "--root with --model" "$GPUFEED" exporter --once --root "$MODEL" --model "$MODEL" --textfile "$TMP/x.prom"
expect_rc 3 "--model not a recording" "$GPUFEED" exporter --once --model "$TMP/nothing" --textfile "$TMP/x.prom"
expect_grep "$err" "$TMP/nothing" "the message names it"
mkdir "$TMP/dir"
expect_rc 3 "--textfile a directory" "$GPUFEED" exporter --once --interval 0.1 --textfile "$TMP/dir"
expect_grep "$err" "$TMP/dir" "the message names the directory"
[ -d "$TMP/dir" ] && [ -z "$(ls -A "$TMP/dir")" ] && ok "the directory is left as it was" ||
	not_ok "the directory was changed"
expect_rc 3 "--textfile in a missing directory" "$GPUFEED" exporter --once --interval 0.1 --textfile "$TMP/no/x.prom"

# A taken port: exit 3 naming it, whoever holds it.
if start_exporter "$TMP/ex0.log" --listen 127.0.0.1:0 --no-checks; then
	expect_rc 3 "a port in use" "$GPUFEED" exporter --listen "$addr" --no-checks
	expect_grep "$err" "$addr" "the message names the address"
	expect_grep "$err" "in use" "and says why"
	kill -TERM "$pid"; wait "$pid"
	[ $? = 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM: exit not 0"
else not_ok "the exporter did not start: $(head -3 "$TMP/ex0.log")"; fi

# ---- the text file ----
expect_rc 0 "--once --textfile" "$GPUFEED" exporter --model "$MODEL" --once --interval 0.2 --textfile "$TMP/once.prom"
lint "$TMP/once.prom" && ok "promtool accepts --once's file ($(grep -vc '^#' "$TMP/once.prom") samples)" ||
	not_ok "promtool: $(head -3 "$TMP/lint" | tr '\n' ' ')"
for m in DCGM_FI_PROF_SM_ACTIVE DCGM_FI_DEV_FB_USED DCGM_FI_PROF_PCIE_TX_BYTES DCGM_FI_DEV_POWER_USAGE \
	gpufeed_check_result gpufeed_exporter_build_info; do
	expect_grep "$TMP/once.prom" "^$m" "--once: $m"
done
[ "$(grep -c '^DCGM_FI_DEV_FB_USED{' "$TMP/once.prom")" = 4 ] && ok "four GPUs" || not_ok "not four GPUs"
expect_grep "$TMP/once.prom" 'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-[^"]*",pci_bus_id="00000000:00:06.0",device="nvidia[0-9]*",modelName="NVIDIA H200[^"]*",Hostname="[^"]*"}' \
	"DCGM exporter's labels, in its order"
# This machine's own model has no GPU: said, not hidden.
expect_rc 0 "--once without a GPU" "$GPUFEED" exporter --once --interval 0.1 --textfile "$TMP/nogpu.prom"
expect_grep "$TMP/nogpu.prom" '^gpufeed_gpu_unavailable{reason="[^"]' "no GPU: gpufeed_gpu_unavailable with the reason"
expect_no_grep "$TMP/nogpu.prom" '^DCGM_' "no GPU: no DCGM metric"
expect_rc 0 "--once without NVML" env GPUFEED_NVML_LIBRARY="$TMP/none.so" \
	"$GPUFEED" exporter --model "$MODEL" --once --interval 0.1 --no-checks --textfile "$TMP/nonvml.prom"
expect_grep "$TMP/nonvml.prom" '^gpufeed_gpu_unavailable{reason="NVML not available: [^"]*none.so' \
	"without NVML: the reason, naming the library"
expect_rc 4 "--nvml=require without NVML" env GPUFEED_NVML_LIBRARY="$TMP/none.so" \
	"$GPUFEED" exporter --nvml=require --once --interval 0.1 --textfile "$TMP/nonvml2.prom"
[ ! -e "$TMP/nonvml2.prom" ] && ok "nothing written" || not_ok "a file was written"
[ -z "$(ls "$TMP" | grep 'once.prom.tmp')" ] && ok "no temporary file left" || not_ok "a temporary file is left"
ln -s once.prom "$TMP/link.prom"
expect_rc 0 "--textfile through a symbolic link" "$GPUFEED" exporter --once --interval 0.1 --no-checks --textfile "$TMP/link.prom"
[ -L "$TMP/link.prom" ] && ok "the link is kept, its target written" || not_ok "the link was replaced"

expect_rc 0 "--profile inference" "$GPUFEED" exporter --once --interval 0.1 --profile inference --textfile "$TMP/inf.prom"
expect_grep "$TMP/inf.prom" '^gpufeed_check_result{.*profile="inference"} 1' "the checks ran with the inference profile"
expect_rc 0 "--no-checks" "$GPUFEED" exporter --once --interval 0.1 --no-checks --textfile "$TMP/nochk.prom"
expect_no_grep "$TMP/nochk.prom" '^gpufeed_check' "--no-checks: no check result"

# A recording: levels, no rates.
expect_rc 0 "--root with --once" "$GPUFEED" exporter --root "$FIX/h200x4-vm/root" --once --textfile "$TMP/rec.prom"
lint "$TMP/rec.prom" && ok "promtool accepts a recording's file" || not_ok "promtool: $(head -3 "$TMP/lint" | tr '\n' ' ')"
expect_no_grep "$TMP/rec.prom" "^DCGM_FI_PROF_SM_ACTIVE" "a recording: no rate"
expect_no_grep "$TMP/rec.prom" "^gpufeed_numa_cpu_busy_ratio" "a recording: no CPU busy either"
expect_grep "$TMP/rec.prom" "^gpufeed_numa_memory_total_bytes" "a recording: its levels"
expect_grep "$TMP/rec.prom" "^gpufeed_check_result" "a recording: the checks' results"

# Rewritten every interval, never seen half-written.
"$GPUFEED" exporter --textfile "$TMP/loop.prom" --interval 0.05 --no-checks 2>"$TMP/loop.log" &
lpid=$!; pids+=("$lpid")
for _ in $(seq 100); do [ -s "$TMP/loop.prom" ] && break; sleep 0.05; done
stamps=() torn=0
for _ in $(seq 200); do
	s=$(cat "$TMP/loop.prom")
	case $s in *"gpufeed_exporter_sample_errors_total "*) ;; *) torn=$((torn + 1)) ;; esac
	stamps+=("$(sed -n 's/^gpufeed_exporter_sample_timestamp_seconds //p' <<<"$s")")
	sleep 0.01	# the reads span many intervals however fast the machine
done
kill -TERM "$lpid"; wait "$lpid"; lrc=$?
[ "$torn" = 0 ] && ok "200 reads while it is rewritten: every one whole" || not_ok "$torn of 200 reads were not whole"
n=$(printf '%s\n' "${stamps[@]}" | sort -u | wc -l)
[ "$n" -ge 3 ] && ok "rewritten every interval ($n samples seen)" || not_ok "only $n samples seen"
[ "$lrc" = 0 ] && ok "textfile mode: SIGTERM, exit 0" || not_ok "textfile mode: exit $lrc"

# The path turns into a directory while it runs: never replaced, said on
# stderr, and written again once it is a path it may write.
"$GPUFEED" exporter --textfile "$TMP/turn.prom" --interval 0.1 --no-checks 2>"$TMP/turn.log" &
tpid=$!; pids+=("$tpid")
for _ in $(seq 100); do [ -s "$TMP/turn.prom" ] && break; sleep 0.05; done
# The exporter may write the file again between rm and mkdir: until the
# directory stands.
for _ in $(seq 50); do rm -f "$TMP/turn.prom"; mkdir "$TMP/turn.prom" 2>/dev/null && break; done
for _ in $(seq 60); do grep -q "turn.prom" "$TMP/turn.log" && break; sleep 0.05; done
[ -d "$TMP/turn.prom" ] && ok "a directory put at the path is left alone" || not_ok "the directory was replaced"
expect_grep "$TMP/turn.log" "turn.prom" "the failed write is said on stderr, naming the path"
rmdir "$TMP/turn.prom"
for _ in $(seq 60); do [ -f "$TMP/turn.prom" ] && break; sleep 0.05; done
[ -f "$TMP/turn.prom" ] && ok "written again at a later interval" || not_ok "not written again"
kill -TERM "$tpid"; wait "$tpid"

# ---- the HTTP server ----
if ! start_exporter "$TMP/ex1.log" --model "$MODEL" --listen 127.0.0.1:0 --interval 1; then
	not_ok "the exporter did not start: $(head -3 "$TMP/ex1.log")"; finish
fi
epid=$pid eaddr=$addr
url=http://$eaddr
code() { curl -s -o /dev/null -m 5 -w '%{http_code}' "$@"; }
curl -s -m 5 -D "$TMP/h" "$url/metrics" >"$TMP/served.prom"
expect_grep "$TMP/h" "^HTTP/1.1 200" "GET /metrics: 200"
expect_grep "$TMP/h" "Content-Type: text/plain; version=0.0.4" "the text format's content type"
lint "$TMP/served.prom" && ok "promtool accepts /metrics" || not_ok "promtool: $(head -3 "$TMP/lint" | tr '\n' ' ')"
[ "$(code "$url/")" = 200 ] && ok "GET /: 200" || not_ok "GET /: not 200"
[ "$(code "$url/nope")" = 404 ] && ok "another path: 404" || not_ok "another path: not 404"
[ "$(code -X POST "$url/metrics")" = 405 ] && ok "POST: 405" || not_ok "POST: not 405"
[ "$(code -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "$url/metrics")" = 431 ] &&
	ok "a request over 8 KiB: 431" || not_ok "a huge request: not 431"
printf 'BREW /pot HTCPCP/1.0\r\n\r\n' >"$TMP/bad.req"
python3 - "$eaddr" "$TMP/bad.req" >"$TMP/bad.resp" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=5)
s.sendall(open(sys.argv[2], "rb").read())
print(s.recv(200).decode(errors="replace").splitlines()[0])
PY
expect_grep "$TMP/bad.resp" "^HTTP/1.1 400" "a malformed request line: 400"
# A NUL byte in the request: 400 at once, not silence until the read timeout.
printf 'GET /met\0rics HTTP/1.1\r\nHost: x\r\n\r\n' >"$TMP/nul.req"
python3 - "$eaddr" "$TMP/nul.req" >"$TMP/nul.resp" 2>&1 <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=2)
s.sendall(open(sys.argv[2], "rb").read())
print(s.recv(200).decode(errors="replace").splitlines()[0])
PY
expect_grep "$TMP/nul.resp" "^HTTP/1.1 400" "a request with a NUL byte: 400 at once"

# Idle and slow clients: 80 connections that send nothing and one that
# sends a byte every 0.2 s; a scrape still gets its page at once.
python3 - "$eaddr" >"$TMP/slow.out" 2>&1 <<'PY' &
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
idle = [socket.create_connection((host, int(port))) for _ in range(80)]
slow = socket.create_connection((host, int(port)))
print("open", flush=True)
for c in b"GET /metrics HTTP/1.1\r\nHost: x\r\n":
    try:
        slow.send(bytes([c]))
    except OSError:
        break
    time.sleep(0.2)
PY
spid=$!; pids+=("$spid")
for _ in $(seq 50); do grep -q open "$TMP/slow.out" && break; sleep 0.1; done
t0=$(date +%s.%N)
c=$(code -m 3 "$url/metrics")
t1=$(date +%s.%N)
[ "$c" = 200 ] && ok "with 80 idle and a slow client open, a scrape: 200 in $(echo "$t1 - $t0" | bc 2>/dev/null || echo '?') s" ||
	not_ok "with idle and slow clients open, a scrape got '$c'"
# ... and the sampler goes on meanwhile: a later scrape has a later sample.
ts() { curl -s -m 3 "$url/metrics" | sed -n 's/^gpufeed_exporter_sample_timestamp_seconds //p'; }
a1=$(ts); sleep 2.2; a2=$(ts)
[ -n "$a1" ] && [ -n "$a2" ] && [ "$a1" != "$a2" ] && ok "the sampler went on while they were connected" ||
	not_ok "no new sample while clients were connected ('$a1', '$a2')"
kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null

# IPv6, where the host has it.
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	if start_exporter "$TMP/ex6.log" --listen '[::1]:0' --no-checks; then
		[ "$(code -g "http://$addr/metrics")" = 200 ] && ok "IPv6 [::1]: 200" || not_ok "IPv6: not 200"
		kill -TERM "$pid"; wait "$pid"
	else not_ok "no IPv6 listener: $(head -2 "$TMP/ex6.log")"; fi
	# Every address: one socket for IPv6 and IPv4.
	if start_exporter "$TMP/exall.log" --listen :0 --no-checks; then
		port=${addr##*:}
		[ "$(code -g "http://[::1]:$port/metrics") $(code "http://127.0.0.1:$port/metrics")" = "200 200" ] &&
			ok ":PORT ($addr): 200 over IPv6 and IPv4" || not_ok ":PORT: not both IPv6 and IPv4"
		kill -TERM "$pid"; wait "$pid"
	else not_ok "no listener on every address: $(head -2 "$TMP/exall.log")"; fi
else ok "# SKIP no IPv6 on this host"; fi

# ---- a real Prometheus scrapes it ----
pport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: gpufeed
    static_configs:
      - targets: ['$eaddr']
EOF
promtool check config "$TMP/prometheus.yml" >/dev/null 2>&1 && ok "promtool accepts the scrape config" ||
	not_ok "promtool refuses the scrape config"
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$TMP/prom.log" 2>&1 &
ppid_=$!; pids+=("$ppid_")
api=http://127.0.0.1:$pport/api/v1
up=
for _ in $(seq 100); do
	curl -s -m 2 "$api/targets" >"$TMP/targets.json" 2>/dev/null &&
		[ "$(jq -r '.data.activeTargets[0].health' "$TMP/targets.json" 2>/dev/null)" = up ] && { up=1; break; }
	sleep 0.2
done
[ -n "$up" ] && ok "Prometheus: the target is up" ||
	not_ok "Prometheus: target not up: $(jq -c '.data.activeTargets[0] | {health, lastError}' "$TMP/targets.json" 2>/dev/null) $(tail -2 "$TMP/prom.log")"
# A level the stand-in keeps still (power limit) and the checks' count:
# Prometheus' value must be the exporter's.
for q in 'DCGM_FI_DEV_POWER_MGMT_LIMIT{gpu="2"}' 'gpufeed_check_results{status="pass"}'; do
	served=$(curl -s -m 5 "$url/metrics" | grep -F "${q%\}}" | grep -v '^#' | head -1 | awk '{print $NF}')
	got=
	for _ in $(seq 50); do
		got=$(curl -s -m 2 --data-urlencode "query=$q" "$api/query" | jq -r '.data.result[0].value[1] // empty')
		[ -n "$got" ] && break
		sleep 0.2
	done
	[ -n "$served" ] && [ "$got" = "$served" ] && ok "Prometheus has $q = $got, as served" ||
		not_ok "Prometheus has $q = '$got', the exporter served '$served'"
done
kill -TERM "$ppid_" 2>/dev/null; wait "$ppid_" 2>/dev/null
kill -TERM "$epid"; wait "$epid"
[ $? = 0 ] && ok "the server: SIGTERM, exit 0" || not_ok "the server: exit not 0 after SIGTERM"
finish
