#!/usr/bin/env bash
# gpufeed bench io-gpu on the stand-in libcuda and libcufile (copies
# really move bytes; cuFile in compatibility mode): usage errors, the
# not-available cases (exit 4), the JSON contract (five figures, raw
# samples, CPU s/GB, the byte check, compatibility mode labelled), gds's
# waves on two batch handles at once, a file we create is removed, an
# existing one is kept, gds without libcufile is "unavailable", not a
# failure.  Checks behaviour and shape, not speed.
. "$(dirname "$0")/lib.sh"

fakes=$(dirname "${GPUFEED_FAKE_CUDA:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libcuda.so.1}")
gf() { timeout 120 env GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" \
	GPUFEED_CUFILE_LIBRARY="$fakes/libcufile.so.0" "$GPUFEED" "$@"; }

expect_rc 2 "no FILE" gf bench io-gpu --gpu 0
expect_rc 2 "--gpu junk" gf bench io-gpu --gpu x "$TMP/f"
expect_grep "$err" "--gpu: 'x'" "the bad GPU is named"
# bench io's --gpu moved to this command: a usage error pointing here.
expect_rc 2 "bench io --gpu: refused" gf bench io --gpu 0 "$TMP/f"
expect_grep "$err" "unknown option '--gpu'" "  as an unknown option"
expect_grep "$err" "gpufeed bench io --help" "  with the help to read"
expect_rc 2 "--path junk" gf bench io-gpu --gpu 0 --path bounce,dma "$TMP/f"
expect_grep "$err" "--path: 'dma' is not a transfer path" "the bad path is named"
expect_rc 2 "--depth 4" gf bench io-gpu --gpu 0 --depth 4 "$TMP/f"
expect_rc 2 "--chunk not a multiple of 4K" gf bench io-gpu --gpu 0 --chunk 5000 "$TMP/f"
expect_rc 0 "--help" gf bench io-gpu --gpu 0 --help
expect_grep "$out" "--path LIST" "help lists --path"

expect_rc 4 "no libcuda" env GPUFEED_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
	GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" "$GPUFEED" bench io-gpu --gpu 0 "$TMP/f"
expect_grep "$err" "CUDA not available" "the reason is given"
[ ! -e "$TMP/f" ] || not_ok "no file is created for a machine that cannot run"
expect_rc 4 "an absent GPU" gf bench io-gpu --gpu 9 "$TMP/f"
# A staging node the machine lacks is refused, as the other benches refuse
# one (it was "staging on NUMA node 7" and exit 0), before a file is made.
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
expect_rc 4 "--numa-node beyond the machine's nodes" gf bench io-gpu --numa-node 1000 --size 1M "$TMP/f"
expect_grep "$err" "--numa-node 1000: no such NUMA node in .* ($nodes node" "  names the node and the count"
[ ! -e "$TMP/f" ] && ok "  and makes no file" || not_ok "  a file was made"
# The staging node is the machine model's: with --root the 4 x H200 VM's
# (node 0 from NVML's affinity, where its sysfs says -1), the GPU at the
# VM's address on the stand-in.
FAKE_CUDA_PCI=0000:00:06.0 gf bench io-gpu --root "$FIX/h200x4-vm/root" --path naive --size 1M --chunk 1M \
	--repeats 1 --json --quiet "$TMP/f" >"$out" 2>"$err"
case $? in 0|1) ok "--root: runs here with the recording's model" ;; *) not_ok "--root: exit $?"; head -3 "$err" ;; esac
expect_jq "$out" '.config.staging_numa_node == 0 and .config.pci == "0000:00:06.0"' "  staging on the model's node of that GPU"

# Stand-in timings are noise: a path above the disk (exit 1) is allowed,
# and must then be the findings the JSON counts.
gf bench io-gpu --gpu 0 --size 3M --chunk 1M --repeats 2 --json --quiet "$TMP/f" >"$out" 2>"$err"
rc=$?
case $rc in 0|1) ok "a created file, JSON (exit $rc)" ;; *) not_ok "a created file, JSON: exit $rc" ;; esac
[ ! -e "$TMP/f" ] || not_ok "the file we created is removed"
python3 - "$out" <<'PY' || not_ok "JSON contract"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpufeed-bench-io-gpu/1"
assert d["machine"]["numa_nodes"] >= 1 and d["machine"]["cpus"] >= 1, d["machine"]
assert d["config"]["bytes"] == 3 << 20 and d["config"]["file_created"]
names = [p["name"] for p in d["points"]]
assert names == ["disk O_DIRECT read", "pinned host-to-device", "bounce", "gds", "naive"], names
for p in d["points"]:
    assert p["gbs"]["n"] == 2 and len(p["gbs"]["samples"]) == 2 and p["gbs"]["median"] > 0, p
    assert len(p["cpu_s_per_gb"]) == 2
    if p["kind"] == "path":
        assert p["check"].startswith("ok"), p
        assert p["ratio_to_limit"] > 0
gds = d["points"][3]
assert gds["compat_mode"] is True and gds["api"] == "cuFileBatchIO"
assert d["points"][2]["api"] in ("io_uring", "psync")
assert d["findings"] == sum(p.get("above_disk", False) for p in d["points"])
PY

# gds with depth 1 x reads 2 = 2 chunks in flight: waves of 1 on each of
# the stand-in libcufile's two batch handles, 16 a sample, both handles
# holding one at once, none left queued when a handle is destroyed (its
# FAKE_CUFILE_LOG line says).
FAKE_CUFILE_LOG="$TMP/cufile.log" gf bench io-gpu --gpu 0 --path gds --size 1M --chunk 64K --depth 1 --reads 2 \
	--repeats 2 --json --quiet "$TMP/g" >"$out" 2>"$err"
rc=$?
case $rc in 0|1) ok "gds in waves on two batch handles (exit $rc)" ;; *) not_ok "gds in waves: exit $rc" ;; esac
expect_jq "$out" '.points[-1] | .name == "gds" and .api == "cuFileBatchIO" and (.check | startswith("ok"))' \
	"gds moved every byte by the batch API"
expect_grep "$TMP/cufile.log" "^batch: handles 2 refused 0 waves 32 in_flight 2 destroyed_pending 0 busy_submits 0$" \
	"two waves of one chunk in flight at once (the 2 reads split), none dropped"

head -c 1234567 /dev/urandom > "$TMP/keep.bin"
# One sample of a 1.2 MB file: a path may time above the disk by chance,
# which is the one finding (exit 1) allowed here.
env GPUFEED_CUFILE_LIBRARY=/nonexistent/libcufile.so.0 GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" \
	GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" timeout 120 \
	"$GPUFEED" bench io-gpu --gpu 0 --repeats 1 --quiet "$TMP/keep.bin" >"$out" 2>"$err"
rc=$?
if [ $rc = 0 ] || { [ $rc = 1 ] && grep -q "ABOVE the disk" "$out"; }; then
	ok "an existing file, text, no cuFile (exit $rc)"
else
	not_ok "an existing file, text, no cuFile: exit $rc"
fi
[ -e "$TMP/keep.bin" ] || not_ok "an existing file is kept"
expect_grep "$out" "1234567 bytes" "the file's size is read"
expect_grep "$out" "^gds .*unavailable: cuFile not available" "gds unavailable, said so"
expect_grep "$out" "^bounce .*O_DIRECT\|^bounce .*io_uring\|^bounce .*psync" "bounce's api"
expect_grep "$out" "^naive .*ok: the first and last" "the byte check"
finish
