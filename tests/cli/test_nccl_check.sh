#!/usr/bin/env bash
# gpufeed nccl check on the stand-in libcuda, NVML and libnccl: usage errors,
# --root refused (it acts on this machine), no NCCL (exit 4), and a run whose
# all-reduce works but whose NCCL writes no log (the stand-in writes none):
# exit 3 saying so, the private log directory removed.  The analysis of a
# real NCCL's log is tested by test_nccl_log.sh on logs recorded on GPUs;
# the whole command ran on 2 x H200 (bench/results/*-nccl-check).
. "$(dirname "$0")/lib.sh"

fake_dir=${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes
export GPUFEED_CUDA_LIBRARY="$fake_dir/libcuda.so.1" GPUFEED_NVML_LIBRARY="$fake_dir/libnvidia-ml.so.1" \
	GPUFEED_NCCL_LIBRARY="$fake_dir/libnccl.so.2" FAKE_CUDA_PCI=0000:00:06.0,0000:00:07.0 FAKE_CUDA_DEVICES=2
unset RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT SLURM_PROCID SLURM_NTASKS \
	OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
gf() { timeout 120 "$GPUFEED" "$@"; }

expect_rc 2 "an operand" gf nccl check extra
expect_rc 2 "--bytes junk" gf nccl check --bytes lots
expect_rc 2 "--root" gf nccl check --root "$TMP"
expect_grep "$err" "runs on this machine" "--root: it says why"

expect_rc 4 "no NCCL" env GPUFEED_NCCL_LIBRARY=/nonexistent/libnccl.so.2 "$GPUFEED" nccl check --bytes 64K
expect_grep "$err" "NCCL not available" "no NCCL: said"

mkdir -p "$TMP/tmp"
expect_rc 3 "a NCCL that writes no log" env TMPDIR="$TMP/tmp" "$GPUFEED" nccl check --bytes 64K
expect_grep "$out" "all_reduce" "the all-reduce ran and its table is printed"
expect_grep "$err" "NCCL wrote no log" "no log: said"
left=$(find "$TMP/tmp" -mindepth 1 | head -3)
[ -z "$left" ] && ok "the private log directory is removed" || not_ok "left behind: $left"
finish
