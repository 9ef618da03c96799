#!/usr/bin/env bash
# GPU-machine tests: run by a developer on a lent GPU machine; elsewhere they
# skip (exit 77) with one line saying why.  See tests/gpu/device-evidence.sh
# for the full evidence run (recording, timings) kept in bench/results/.
set -u
cd "$(dirname "$0")/../.."
gf=${GPUFEED:-build/gpufeed}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU here (nvidia-smi absent or found no GPU)"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: python3 is needed to compare with nvidia-smi"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
nvml_h=$(find / -name nvml.h -path '*cuda*' -not -path '/proc/*' 2>/dev/null | head -1)
inc=${nvml_h:+$(dirname "$nvml_h")}
if [ -n "$inc" ]; then
	cc -std=c11 -Wall -Werror -I"$inc" -Isrc tests/gpu/nvml_abi_check.c -o "$tmp/abi" && "$tmp/abi" || rc=1
else
	echo "nvml.h not found: NVML ABI check not run"
fi
cinc=$(dirname "$(find /usr/local/cuda/include/ /usr/include/ -maxdepth 1 -name cuda.h 2>/dev/null | head -1)")
if [ -n "$cinc" ] && [ -f "$cinc/cuda.h" ]; then
	cc -std=c11 -Wall -Werror -I"$cinc" -Isrc tests/gpu/cuda_abi_check.c -o "$tmp/cabi" && "$tmp/cabi" || rc=1
else
	echo "cuda.h not found: CUDA ABI check not run"
fi
fhdr=$(find /usr/local/cuda/include/ /usr/local/cuda/targets/x86_64-linux/include/ /usr/include/ -maxdepth 1 \
	-name cufile.h 2>/dev/null | head -1)
if [ -n "$fhdr" ]; then
	cc -std=c11 -D_GNU_SOURCE -Wall -Werror -I"$(dirname "$fhdr")" -I/usr/local/cuda/include -Isrc \
		tests/gpu/cufile_abi_check.c -o "$tmp/fabi" &&
		"$tmp/fabi" || rc=1
else
	echo "cufile.h not found: cuFile ABI check not run"
fi
bash tests/gpu/nccl-abi-check.sh
case $? in 0|77) ;; *) rc=1 ;; esac
# bench coll's "NCCL chose" column against NCCL_ALGO/NCCL_PROTO forced runs
# and NCCL's own log (2 GPUs or more; skips below that).
GPUFEED="$gf" OUT="$tmp/coll-choice" COLL_MAX_BYTES=64M bash tests/gpu/coll-choice-evidence.sh
case $? in 0|77) ;; *) rc=1 ;; esac
# The CUDA layer on the real driver: every byte of a 256 MiB round trip, the
# embedded PTX's kernels (built by make with the rest; carry build/gpu/).
smoke=${GPUFEED_CUDA_SMOKE:-$(dirname "$gf")/gpu/cuda_smoke}
if [ -x "$smoke" ]; then
	"$smoke" 0 || rc=1
else
	echo "$smoke not built: CUDA smoke test not run"; rc=1
fi
# Storage to GPU memory by bounce, gds (compatibility mode without
# nvidia-fs) and naive, every byte compared (tests/gpu/xfer_check.c).
xcheck=$(dirname "$gf")/gpu/xfer_check
xdir=${GPUFEED_XFER_DIR:-.}
# cuFile refuses every file whose disk has no udev properties (VMs without
# udevd, like the lent ones): bench/cufile-vm-udev.sh tells and gives it the
# two it asks for, in /run only; say so, and say why when we cannot.
xdev=$(bash bench/cufile-vm-udev.sh --check "$xdir" 2>/dev/null)
if [ $? = 1 ]; then
	if [ "$(id -u)" = 0 ] && ! pgrep -x systemd-udevd >/dev/null && ! pgrep -x udevd >/dev/null; then
		echo "no udevd and no udev properties for $xdev: adding them in /run for cuFile (bench/cufile-vm-udev.sh)"
		bash bench/cufile-vm-udev.sh "$tmp/udev" "$xdir" || rc=1
	else
		echo "note: $xdev has no udev ID_FS_USAGE; cuFile will refuse its files (root: bench/cufile-vm-udev.sh)"
	fi
fi
if [ -x "$xcheck" ]; then
	"$xcheck" 0 "$xdir" || rc=1
else
	echo "$xcheck not built: transfer check not run"; rc=1
fi
# The loader on the real GPU: two datasets packed in $xdir, loaded with
# verify on, every batch copied back from GPU memory on its own stream and
# on a consumer stream released early (tests/gpu/loader_check.c).
lcheck=$(dirname "$gf")/gpu/loader_check
if [ -x "$lcheck" ]; then
	"$lcheck" 0 "$xdir" || rc=1
else
	echo "$lcheck not built: loader check not run"; rc=1
fi
# Every bench target through the frame on the real GPU (exit 0, or 1 for a
# finding; its JSON of its schema): what the CLI and a binding both run.
bdir=$(dirname "$gf")
ngpus=$(nvidia-smi -L | grep -c '^GPU ')
for t in "h2d --quick" "p2p --quick" "mem --quick --nodes 0" "overlap --quick --grad-bytes 64M"; do
	set -- $t
	if [ "$1" = p2p ] && [ "$ngpus" -lt 2 ]; then
		echo "skip - bench p2p: one GPU here"; continue
	fi
	"$gf" bench $t --json --quiet >"$tmp/bench.json" 2>"$tmp/bench.err"
	brc=$?
	if [ "$1" = overlap ] && [ $brc = 4 ]; then
		echo "skip - bench overlap: $(head -c 300 "$tmp/bench.err")"; continue	# no libnccl.so.2 here
	fi
	if { [ $brc = 0 ] || [ $brc = 1 ]; } &&
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema'].startswith('gpufeed-bench-$1/')" \
			"$tmp/bench.json"; then
		echo "ok - bench $t (exit $brc)"
	else
		echo "not ok - bench $t: exit $brc: $(head -c 300 "$tmp/bench.err")"; rc=1
	fi
done
# The examples on the real driver (tests/cli/test_examples.sh runs them on
# the stand-ins).
if [ -x "$bdir/examples/pinned-to-dlpack" ]; then
	"$bdir/examples/pinned-to-dlpack" 0 || rc=1
	head -c $((96 << 20)) /dev/urandom >"$xdir/.gpufeed-example.bin" &&
		"$bdir/examples/read-file-to-gpu" "$xdir/.gpufeed-example.bin" 0 || rc=1
	rm -f "$xdir/.gpufeed-example.bin"
fi
# DLPack tensors read by PyTorch, where this python has torch with CUDA.
lib=${GPUFEED_LIB:-$(ls "$bdir"/libgpufeed.so.[0-9]*.[0-9]* 2>/dev/null | head -1)}
if [ -n "$lib" ]; then
	# The shared library needs liburing and jansson, which GPU machines
	# without apt may lack: copies carried beside it in lib/ are used.
	GPUFEED_LIB=$lib LD_LIBRARY_PATH="$bdir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" python3 tests/gpu/dlpack_torch.py
	case $? in 0|77) ;; *) rc=1 ;; esac
fi
# The Python binding on the GPU: the abi3 extension tests/cli/test_python.sh
# built into $bdir/python (carried; no Python headers needed here).
if [ -f "$bdir/python/gpufeed/_gpufeed.abi3.so" ]; then
	GPUFEED_PYTHONPATH=$bdir/python LD_LIBRARY_PATH="$bdir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		python3 tests/gpu/python_loader.py
	case $? in 0|77) ;; *) rc=1 ;; esac
else
	echo "$bdir/python/gpufeed not built: the Python binding's GPU test not run (tests/cli/test_python.sh builds it)"
fi
nvidia-smi topo -m > "$tmp/smi.txt"
"$gf" topo --json > "$tmp/gf.json" || rc=1
python3 tests/gpu/compare_topo.py "$tmp/gf.json" "$tmp/smi.txt" || rc=1
exit $rc
