
# Two ranks started as torchrun starts them, each driving one GPU: the
# figures are the slowest rank's, so both ranks report the same samples.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for r in 0 1; do
	env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
		GPUFEED_COLL_PORT="$port" GPUFEED_CUDA_LIBRARY="$fakes/libcuda.so.1" \
		GPUFEED_NVML_LIBRARY="$fakes/libnvidia-ml.so.1" GPUFEED_NCCL_LIBRARY="$fakes/libnccl.so.2" \
		FAKE_NCCL_DIR="$TMP/nccl" FAKE_CUDA_DEVICES=2 timeout 120 "$GPUFEED" bench overlap "${small[@]}" \
		--timeout 30s --json --quiet -o "$TMP/rank$r.json" 2>"$TMP/rank$r.err" &
	eval "pid$r=\$!"
done
wait "$pid0"; rc0=$?
wait "$pid1"; rc1=$?
[ "$rc0$rc1" = 00 ] && ok "two ranks: both exit 0" || not_ok "two ranks: exit $rc0 and $rc1: $(cat "$TMP/rank0.err" "$TMP/rank1.err")"
expect_jq "$TMP/rank0.json" '.run.nranks == 2 and .run.rank == 0 and (.run.launcher | test("torchrun|gpufeed launch")) and (.run.gpus | length) == 1' \
	"  rank 0 of 2 under torchrun's variables, one GPU"
expect_jq "$TMP/rank1.json" '.run.nranks == 2 and .run.rank == 1' "  rank 1 of 2"
a=$(jq -c '[.configs[].figures[].samples]' "$TMP/rank0.json" 2>/dev/null)
b=$(jq -c '[.configs[].figures[].samples]' "$TMP/rank1.json" 2>/dev/null)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "  the same samples on both ranks (the slowest rank's)" ||
	not_ok "  samples differ: $a / $b"
