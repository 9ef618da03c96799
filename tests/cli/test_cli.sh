#!/usr/bin/env bash
# The command-line convention: --help, --version, --json, --root, exit codes.
. "$(dirname "$0")/lib.sh"
DUAL=$FIX/dual-8gpu-pcie-switch/root
HGX=$FIX/hgx-h100-8gpu/root
CI=$FIX/ci-vm/root

expect_rc 0 "gpufeed --help" "$GPUFEED" --help
expect_grep "$out" "report" "top-level help lists report"
expect_grep "$out" "Exit codes" "top-level help has the exit codes"
expect_rc 0 "gpufeed --version" "$GPUFEED" --version
expect_grep "$out" "^gpufeed [0-9]" "version line"
expect_rc 2 "no command is a usage error" "$GPUFEED"
expect_rc 2 "unknown command" "$GPUFEED" frobnicate
expect_grep "$err" "unknown command 'frobnicate'" "unknown command is named"
for cmd in topo report record; do
	expect_rc 0 "$cmd --help" "$GPUFEED" "$cmd" --help
	expect_grep "$out" "Exit codes" "$cmd --help documents exit codes"
	expect_grep "$out" "\-\-root" "$cmd --help documents --root"
	expect_grep "$out" "\-\-json" "$cmd --help documents --json"
	expect_rc 0 "$cmd --version" "$GPUFEED" "$cmd" --version
	expect_rc 0 "help $cmd" "$GPUFEED" help "$cmd"
	expect_rc 2 "$cmd with an unknown option" "$GPUFEED" "$cmd" --bogus
	expect_grep "$err" "unknown option '--bogus'" "$cmd names the unknown option"
done
# "Did you mean": the nearest command, subcommand or option, never a far guess.
expect_rc 2 "a mistyped command" "$GPUFEED" tpo
expect_grep "$err" "Did you mean 'gpufeed topo'?" "  suggests the command it looks like"
expect_rc 2 "two letters swapped" "$GPUFEED" cehck
expect_grep "$err" "Did you mean 'gpufeed check'?" "  suggests check"
run "$GPUFEED" frobnicate
expect_no_grep "$err" "Did you mean" "a word near no command gets no guess"
expect_rc 2 "a mistyped option" "$GPUFEED" check --jsn
expect_grep "$err" "unknown option '--jsn'; did you mean '--json'?" "  suggests --json"
expect_rc 2 "a mistyped option with a value" "$GPUFEED" topo --gpuu=1
expect_grep "$err" "did you mean '--gpu'?" "  suggests --gpu"
expect_rc 2 "a mistyped subcommand" "$GPUFEED" bench oi
expect_grep "$err" "did you mean 'bench io'?" "  suggests bench io"
expect_rc 2 "help for a mistyped command" "$GPUFEED" help tpo
expect_grep "$err" "Did you mean 'gpufeed topo'?" "  suggests topo"
expect_rc 2 "help for a mistyped subcommand" "$GPUFEED" help nccl lgo
expect_grep "$err" "Did you mean 'gpufeed nccl log'?" "  suggests nccl log"
expect_rc 2 "--root without a value" "$GPUFEED" topo --root
expect_grep "$err" "needs a value" "missing value is explained"
expect_rc 2 "--nvml with a bad mode" "$GPUFEED" topo --nvml=sometimes
expect_rc 2 "stray argument" "$GPUFEED" topo extra
expect_rc 2 "help for an unknown command" "$GPUFEED" help frobnicate
expect_rc 2 "an empty --root (an unset variable) is refused" "$GPUFEED" topo --root ""
expect_grep "$err" "empty one was given" "and explained"
expect_rc 2 "a value given to a flag" "$GPUFEED" topo --json=1
expect_grep "$err" "unexpected value '--json=1'" "the word is quoted"
expect_rc 2 "a malformed --pci-locality is a usage error" "$GPUFEED" topo --root "$CI" --pci-locality=junk
expect_grep "$err" "expected PCI=NODE" "the format is given"

# Input errors (3) name the input.
expect_rc 3 "--root that does not exist" "$GPUFEED" topo --root /no/such/dir
expect_grep "$err" "/no/such/dir" "missing recording is named"
touch "$TMP/plainfile"
expect_rc 3 "--root that is a file" "$GPUFEED" topo --root "$TMP/plainfile"
expect_grep "$err" "not a directory" "file as recording is explained"
expect_rc 3 "malformed locality override" env GPUFEED_PCI_LOCALITY="0000:3b:00.0" "$GPUFEED" topo --root "$CI"
expect_grep "$err" "GPUFEED_PCI_LOCALITY" "the variable is named"
cp -a "$HGX" "$TMP/hgx"
echo '{"schema": "gpufeed-nvml-facts/1", "gpus": [' > "$TMP/hgx/nvml.json"
expect_rc 3 "truncated nvml.json" "$GPUFEED" topo --root "$TMP/hgx"
expect_grep "$err" "nvml.json" "nvml.json is named"
echo 'garbage' > "$TMP/hgx/sys/devices/system/cpu/online"
cp "$HGX/nvml.json" "$TMP/hgx/nvml.json"
expect_rc 3 "garbage CPU list in online" "$GPUFEED" topo --root "$TMP/hgx"
expect_grep "$err" "sys/devices/system/cpu/online: not a CPU list: 'garbage'" "the file and its content are named"
cp "$HGX/sys/devices/system/cpu/online" "$TMP/hgx/sys/devices/system/cpu/online"
echo 'x16' > "$TMP/hgx/sys/devices/pci0000:18/0000:18:01.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0/current_link_width"
cp "$HGX/nvml.json" "$TMP/hgx/nvml.json"
sed -i '0,/"pci": "0000:43:00.0"/s//"pci": "0000:1b:00.0"/' "$TMP/hgx/nvml.json"
expect_rc 3 "two GPUs at one PCI address in nvml.json" "$GPUFEED" topo --root "$TMP/hgx"
expect_grep "$err" "nvml.json: gpus\[1\].pci: 0000:1b:00.0 is also gpus\[0\]'s" "the key is named"
cp "$HGX/nvml.json" "$TMP/hgx/nvml.json"
mkfifo "$TMP/hgx/sys/devices/system/node/node0/meminfo.fifo"
rm "$TMP/hgx/sys/devices/system/node/node0/meminfo" && mv "$TMP/hgx/sys/devices/system/node/node0/meminfo.fifo" "$TMP/hgx/sys/devices/system/node/node0/meminfo"
expect_rc 0 "a FIFO in a recording is refused, not waited on" timeout 10 "$GPUFEED" topo --root "$TMP/hgx"
expect_grep "$err" "node0/meminfo: not a regular file" "and named"
rm "$TMP/hgx/sys/devices/system/node/node0/meminfo" && cp "$HGX/sys/devices/system/node/node0/meminfo" "$TMP/hgx/sys/devices/system/node/node0/"
printf 'h\xffost\n' > "$TMP/hgx/proc/sys/kernel/hostname"
expect_rc 0 "a host name that is not UTF-8" "$GPUFEED" topo --json --root "$TMP/hgx"
expect_jq "$out" '.machine.hostname == "h\ufffdost"' "JSON stays valid, the bad byte replaced"
cp "$HGX/proc/sys/kernel/hostname" "$TMP/hgx/proc/sys/kernel/hostname"
expect_rc 0 "a malformed optional attribute is a warning" "$GPUFEED" topo --root "$TMP/hgx"
expect_grep "$err" "warning: .*0000:1b:00.0/current_link_width: not an integer: 'x16'" "the warning names the file"
expect_rc 0 "--quiet silences warnings" "$GPUFEED" topo --root "$TMP/hgx" --quiet
[ -s "$err" ] && not_ok "--quiet left stderr: $(head -1 "$err")" || ok "--quiet leaves stderr empty"

# Not available here (4).
expect_rc 4 "--nvml=require on a recording without NVML" "$GPUFEED" topo --root "$DUAL" --nvml=require
expect_grep "$err" "NVML not available" "the reason is given"
expect_rc 4 "--nvml=require without libnvidia-ml" env GPUFEED_NVML_LIBRARY=/nonexistent.so "$GPUFEED" topo --nvml=require
expect_grep "$err" "/nonexistent.so not found" "the library is named"
if [ -f "${GPUFEED_FAKE_NVML:-}" ]; then
	expect_rc 4 "--nvml=require when the driver is not loaded" env GPUFEED_NVML_LIBRARY="$GPUFEED_FAKE_NVML" \
		FAKE_NVML_SCENARIO=init_fail "$GPUFEED" topo --nvml=require
	expect_grep "$err" "Driver Not Loaded" "NVML's words are passed on"
	expect_rc 0 "live NVML (stand-in library)" env GPUFEED_NVML_LIBRARY="$GPUFEED_FAKE_NVML" "$GPUFEED" topo --nvml=require --json
	expect_jq "$out" '.machine.nvml == true and .machine.nvidia_driver == "580.159.04"' "live NVML facts are used"
fi

# Findings (1) only when asked.
expect_rc 0 "report exits 0 with problems by default" "$GPUFEED" report --root "$DUAL"
expect_rc 1 "report --strict exits 1 with problems" "$GPUFEED" report --root "$DUAL" --strict
expect_rc 0 "report --strict exits 0 without problems" "$GPUFEED" report --root "$HGX" --strict
# Every help offers exit 1 for --strict: topo honours it too.
expect_rc 0 "topo exits 0 with findings by default" "$GPUFEED" topo --root "$DUAL"
expect_rc 1 "topo --strict exits 1 with warnings" "$GPUFEED" topo --root "$DUAL" --strict
expect_grep "$out" "^Findings:" "and still prints the model"
expect_rc 1 "topo --strict --json too" "$GPUFEED" topo --root "$DUAL" --strict --json
expect_rc 0 "topo --strict exits 0 without warnings" "$GPUFEED" topo --root "$HGX" --strict
expect_rc 0 "topo --help" "$GPUFEED" topo --help
expect_grep "$out" "\-\-strict" "topo --help offers --strict"

# JSON: the documented minimum of the schema.
expect_rc 0 "topo --json" "$GPUFEED" topo --json --root "$DUAL"
expect_jq "$out" '.schema == "gpufeed-topo/2" and (.gpufeed_version | type) == "string" and (.generated_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"))' "schema tag, version and time"
expect_jq "$out" '[.gpus[].index] == [0,1,2,3,4,5,6,7]' "gpus[].index"
expect_jq "$out" 'all(.gpus[]; (.pci | test("^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$")))' "gpus[].pci"
expect_jq "$out" 'all(.gpus[]; (.numa_node | type) == "number")' "gpus[].numa_node is an integer (here known)"
expect_jq "$out" '.nics[] | select(.label == "eno1") | .numa_node == null' "an unknown node is null, not -1"
expect_jq "$out" '[.. | objects | to_entries[] | select(.key | test("gbps|mem_bytes"))] | length == 0' "no gbps or mem_bytes keys"
expect_jq "$out" '[.paths[] | select(.kind == "host-gpu") | .link] | unique == ["PHB"]' "host paths are PHB"
expect_jq "$out" '.gpus[0].cpus == "0-31,64-95"' "gpus[].cpus is a cpulist string"
expect_jq "$out" '(.matrix.devices | length) as $n | (.matrix.links | length) == $n and all(.matrix.links[]; length == $n)' "matrix.links is square"
expect_jq "$out" '.matrix.links[0][1] == "PIX" and .matrix.devices[0] == "GPU0"' "matrix vocabulary"
expect_rc 0 "report --json" "$GPUFEED" report --json --root "$DUAL"
expect_jq "$out" '.schema == "gpufeed-report/2" and .finding_counts == {"info": 1, "warning": 2, "error": 0, "total": 3} and (.findings | length) == 3' "report schema, findings and their counts"
expect_jq "$out" '(.generated_at | type) == "string" and (.gpufeed_version | type) == "string"' "report has version and time"
SOURCE_DATE_EPOCH=0 "$GPUFEED" report --json --root "$DUAL" >"$TMP/r0.json"
expect_jq "$TMP/r0.json" '.generated_at == "1970-01-01T00:00:00Z"' "SOURCE_DATE_EPOCH sets generated_at"
expect_rc 0 "report on the dual-socket host" "$GPUFEED" report --root "$DUAL"
expect_grep "$out" "^Findings: 3 (2 warnings or errors)" "report says Findings, as topo does"
expect_no_grep "$out" "Problems" "and never Problems"

# The matrix is nvidia-smi's, field for field: on the lent 4xH200 VM its rows
# equal `nvidia-smi topo -m` byte for byte (no NIC column: eth0 is virtio).
H200=$FIX/h200x4-vm/root
SMI=$SRC/bench/results/2026-11-22-h200x4-topo/nvidia-smi-topo-m.txt
expect_rc 0 "topo --matrix on the H200 VM recording" "$GPUFEED" topo --root "$H200" --matrix --color=never
sed 's/\x1b\[[0-9;]*m//g' "$SMI" | sed -n 1,5p >"$TMP/smi"
if sed -n 1,5p "$out" | cmp -s - "$TMP/smi"; then ok "matrix rows equal nvidia-smi's (tabs, ' X ', N/A)"; else
	not_ok "matrix rows differ from nvidia-smi's"; sed -n 1,5p "$out" | diff "$TMP/smi" - | sed 's/^/#   /'; fi
expect_rc 0 "topo --matrix on the dual-socket recording" "$GPUFEED" topo --root "$DUAL" --matrix --color=never
[ "$(head -1 "$out" | awk -F'\t' '{ print $10 "," $11 "," $12 }')" = "NIC0,NIC1,CPU Affinity" ] &&
	ok "awk -F'\\t' finds the RDMA NICs as NIC0, NIC1" || not_ok "header fields: $(head -1 "$out")"
[ "$(awk -F'\t' '$1 == "GPU0" { print $10 }' "$out")" = PIX ] && ok "GPU0-NIC0 (mlx5_0) is PIX by awk" ||
	not_ok "GPU0 row: $(grep '^GPU0' "$out")"
expect_grep "$out" "^  NIC0: mlx5_0$" "NIC legend as nvidia-smi's"
expect_no_grep "$out" "NIC[0-9]: eno" "no onboard Ethernet among the NIC columns"
expect_rc 0 "topo on the dual-socket recording" "$GPUFEED" topo --root "$DUAL" --color=never
expect_grep "$out" "^eno2 *SYS" "eno2 in the other devices section"
expect_grep "$out" "^  NIC0: mlx5_0$" "  and the NIC legend"

# Unknown and down are never a number: the virtio eth0 (no line rate) and the
# down eno2 (whose Gen3 x4 link gave 3.9 GB/s).
expect_rc 0 "topo --json on the H200 VM" "$GPUFEED" topo --json --root "$H200"
expect_jq "$out" '[.paths[] | select(.to == "eth0")] | length == 4 and all(.[]; .gb_per_s == null and .limit == "unknown")' \
	"paths to the virtio NIC: gbps null, limit unknown"
expect_rc 0 "topo on the H200 VM" "$GPUFEED" topo --root "$H200"
expect_grep "$out" "GPU0 <-> eth0 *PHB *unknown  eth0 line rate unknown" "text says unknown, not 63.0"
expect_rc 0 "topo --json on the dual-socket host" "$GPUFEED" topo --json --root "$DUAL"
expect_jq "$out" '[.paths[] | select(.to == "eno2")] | length == 8 and all(.[]; .gb_per_s == null and .limit == "down")' \
	"paths to the down eno2: gbps null, limit down"
expect_rc 0 "report on the dual-socket host" "$GPUFEED" topo --root "$DUAL"
expect_grep "$out" "GPU0 <-> eno2 *SYS *down  eno2 is down" "text says down, not 3.9"
expect_no_grep "$out" "eno2.* 3\.9 " "no 3.9 GB/s for a down port"

# One thing at a time: --matrix, --gpu G, --nearest-nic G.
for g in 0 1 2 3 4 5 6 7; do
	run "$GPUFEED" topo --root "$HGX" --nearest-nic "$g"
	[ "$rc" = 0 ] && [ "$(cat "$out")" = "mlx5_$g" ] && ok "nearest NIC of GPU$g is mlx5_$g" ||
		not_ok "nearest NIC of GPU$g: exit $rc, '$(cat "$out")'"
done
expect_rc 0 "--nearest-nic by UUID" "$GPUFEED" topo --root "$HGX" --nearest-nic GPU-1a5ced5f
expect_grep "$out" "^mlx5_0$" "GPU0 by UUID prefix -> mlx5_0"
expect_rc 0 "--nearest-nic by PCI address, JSON" "$GPUFEED" topo --root "$DUAL" --nearest-nic 9c:00.0 --json
expect_jq "$out" '.schema == "gpufeed-topo-nearest-nic/1" and .gpu.index == 5 and .nic.rdma == "mlx5_1" and .nic.label == "NIC1" and .nic.link == "PIX"' "GPU5 -> mlx5_1 (NIC1), PIX"
expect_rc 4 "--nearest-nic where no RDMA device exists" "$GPUFEED" topo --root "$H200" --nearest-nic 0
expect_grep "$err" "no RDMA NIC" "and says why"
expect_rc 4 "--gpu on a host without GPU" "$GPUFEED" topo --root "$CI" --gpu 0
expect_grep "$err" "no NVIDIA GPU here" "and says so"
expect_rc 2 "--gpu naming no GPU" "$GPUFEED" topo --root "$HGX" --gpu 9
expect_grep "$err" "no GPU with that index" "the GPU is named"
expect_rc 2 "two questions at once" "$GPUFEED" topo --root "$HGX" --gpu 1 --matrix
expect_rc 0 "--matrix" "$GPUFEED" topo --root "$DUAL" --matrix
expect_no_grep "$out" "^GPUs:" "--matrix is the matrix alone"
# topo shows the same classes, aligned to fit 100 columns instead of tabs.
"$GPUFEED" topo --root "$DUAL" >"$TMP/full"
awk -F'\t' '/^(GPU|NIC)[0-9]/ { row = $1; for (i = 2; i <= 11; i++) row = row " " ($i == " X " ? "X" : $i); print row }' "$out" >"$TMP/m1"
awk '/^(GPU|NIC)[0-9]/ && !seen[$1]++ { row = $1; for (i = 2; i <= 11; i++) row = row " " $i; print row }' "$TMP/full" >"$TMP/m2"
[ -s "$TMP/m1" ] && cmp -s "$TMP/m1" "$TMP/m2" && ok "--matrix and topo show the same classes" || not_ok "--matrix and topo's matrix differ"
expect_no_grep "$out" "Paths\|Other devices" "--matrix has no other section"
expect_rc 0 "--matrix --json" "$GPUFEED" topo --root "$DUAL" --matrix --json
expect_jq "$out" '.schema == "gpufeed-topo-matrix/1" and (.matrix.devices | length) == 10 and (.other_devices | length) == 4 and (.paths == null)' "matrix document"
expect_rc 0 "--gpu" "$GPUFEED" topo --root "$HGX" --gpu 0000:52:00.0
expect_grep "$out" "^  2    0000:52:00.0" "the GPU's own line"
expect_grep "$out" "GPU2 <-> NIC2  *PIX" "its NIC"
expect_no_grep "$out" "GPU0 <-> GPU1" "no other GPU's paths"
expect_rc 0 "--gpu --json" "$GPUFEED" topo --root "$HGX" --gpu 2 --json
expect_jq "$out" '.schema == "gpufeed-topo-gpu/1" and .gpu.index == 2 and (.paths | length) == 20 and .links.NIC2 == "PIX" and .links.GPU0 == "NV18" and all(.paths[]; .from == "GPU2" or .to == "GPU2")' "one GPU's document: host, 7 peers, 10 NICs, 2 drives"

# A recording's strings reach the terminal sanitized (JSON escapes them).  The
# planted escape (blink) is one gpufeed's own colours never use.
cp -a "$DUAL" "$TMP/esc"
printf 'SYS\033[5m-420GP\302\233\n' >"$TMP/esc/sys/class/dmi/id/product_name"
printf 'host\033]0;pwned\007x\n' >"$TMP/esc/proc/sys/kernel/hostname"
for args in "topo" "report" "topo --gpu 0" "topo --matrix" "report --color=always"; do
	# shellcheck disable=SC2086
	run "$GPUFEED" $args --root "$TMP/esc"
	if [ "$rc" = 0 ] && ! grep -q "$(printf '\033\\[5m\|\033\\]\|\007\|\302\233')" "$out"; then
		ok "$args: no control character from the recording reaches the output"
	else not_ok "$args: exit $rc, raw escape in the output"; fi
done
expect_grep "$out" "SYS?\[5m-420GP??" "the product name is shown, its escapes made '?'"
grep -q "$(printf '\033\\[33mwarning')" "$out" && ok "our own colour survives --color=always" ||
	not_ok "findings lost their colour"
expect_rc 0 "topo --json of that recording" "$GPUFEED" topo --json --root "$TMP/esc"
expect_jq "$out" '.machine.product == "SYS\u001b[5m-420GP\u009b"' "JSON keeps the bytes, escaped"

# -o FILE where FILE is not a regular file: never renamed over.  A
# character device or a FIFO is written in place, a symlink followed; a
# symlink to nothing, a block device or a socket is refused.  Scratch
# nodes only, so that a regression replaces no file of the machine's /dev.
kind() { stat -c %F "$1" 2>/dev/null; }
if mknod "$TMP/devnull" c 1 3 2>/dev/null; then
	expect_rc 0 "-o a character device (a copy of /dev/null)" "$GPUFEED" topo --root "$CI" -o "$TMP/devnull"
	[ "$(kind "$TMP/devnull")" = "character special file" ] && ok "-o: the device is still a device" ||
		not_ok "-o: the device became a $(kind "$TMP/devnull")"
	mknod "$TMP/devfull" c 1 7
	expect_rc 3 "-o a full device (a copy of /dev/full)" "$GPUFEED" topo --root "$CI" -o "$TMP/devfull"
	expect_grep "$err" "devfull: No space left on device" "the write's own error, naming FILE"
	[ "$(kind "$TMP/devfull")" = "character special file" ] && ok "-o: /dev/full is still a device" ||
		not_ok "-o: /dev/full became a $(kind "$TMP/devfull")"
	mknod "$TMP/blk" b 7 250
	expect_rc 3 "-o a block device" "$GPUFEED" topo --root "$CI" -o "$TMP/blk"
	expect_grep "$err" "blk: a block device: not written" "the refusal says why"
	[ "$(kind "$TMP/blk")" = "block special file" ] && ok "-o: the block device is untouched" ||
		not_ok "-o: the block device became a $(kind "$TMP/blk")"
else
	echo "# skip -o onto device nodes: mknod needs root"
fi
"$GPUFEED" topo --root "$CI" >"$TMP/topo.txt"
mkfifo "$TMP/fifo"
timeout 30 cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
expect_rc 0 "-o a FIFO" timeout 20 "$GPUFEED" topo --root "$CI" -o "$TMP/fifo"
wait "$reader"
[ "$(kind "$TMP/fifo")" = fifo ] && ok "-o: the FIFO is still a FIFO" || not_ok "-o: the FIFO became a $(kind "$TMP/fifo")"
cmp -s "$TMP/fifo.out" "$TMP/topo.txt" && ok "-o: the reader got the output" || not_ok "-o: the reader got another output"
echo old >"$TMP/target.txt"
ln -s target.txt "$TMP/link.txt"
expect_rc 0 "-o a symlink" "$GPUFEED" topo --root "$CI" -o "$TMP/link.txt"
[ -L "$TMP/link.txt" ] && [ "$(readlink "$TMP/link.txt")" = target.txt ] && ok "-o: the symlink is kept" ||
	not_ok "-o: the symlink was replaced"
cmp -s "$TMP/target.txt" "$TMP/topo.txt" && ok "-o: its target holds the output" || not_ok "-o: its target differs"
ls "$TMP" | grep -q 'tmp-' && not_ok "-o: a temp file was left" || ok "-o: no temp file left"
ln -s nowhere.txt "$TMP/dangling.txt"
expect_rc 3 "-o a symlink to nothing" "$GPUFEED" topo --root "$CI" -o "$TMP/dangling.txt"
expect_grep "$err" "dangling.txt: a symbolic link to a missing file: not written" "the refusal says why"
[ -L "$TMP/dangling.txt" ] && [ ! -e "$TMP/nowhere.txt" ] && ok "-o: the dangling link is untouched" ||
	not_ok "-o: the dangling link was replaced or followed"
ln -s /proc/self/fd/1 "$TMP/stdout"	# as /dev/stdout is
run "$GPUFEED" topo --root "$CI" -o "$TMP/stdout"
[ "$rc" = 0 ] && cmp -s "$out" "$TMP/topo.txt" && [ -L "$TMP/stdout" ] && ok "-o /dev/stdout (a copy) writes standard output" ||
	not_ok "-o /dev/stdout (a copy): exit $rc"

# This machine, live.
expect_rc 0 "report on this machine" "$GPUFEED" report
expect_grep "$out" "Machine:" "live report has a summary"
expect_rc 0 "topo --json on this machine" "$GPUFEED" topo --json
expect_jq "$out" '.machine.source == "this machine"' "live source"
finish
