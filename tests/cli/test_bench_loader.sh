#!/usr/bin/env bash
# gpufeed bench loader: usage errors, a dataset that is not there (exit 3
# naming it), and on a small fixed-size dataset made with `gpufeed pack
# --record-size` the JSON's shape (raw samples, the raw counts of every
# sample) and the consistency of its figures (bytes = samples x record
# size, an epoch = the dataset's samples), cold and warm, and the text.
# Checks behaviour and shape, not speed.
. "$(dirname "$0")/lib.sh"

gf() { timeout 120 "$GPUFEED" "$@"; }

expect_rc 2 "no DATASET" gf bench loader
expect_grep "$err" "DATASET" "the missing operand is named"
expect_rc 2 "--cold with --warm" gf bench loader "$TMP/x" --cold --warm
expect_grep "$err" "--cold and --warm" "  said"
expect_rc 2 "--samples with --epochs" gf bench loader "$TMP/x" --samples 10 --epochs 2
expect_rc 2 "--gpu junk" gf bench loader "$TMP/x" --gpu first
expect_grep "$err" "--gpu: 'first'" "  the value is named"
expect_rc 2 "--slots 1" gf bench loader "$TMP/x" --slots 1
expect_rc 2 "--batch-size 0" gf bench loader "$TMP/x" --batch-size 0
expect_rc 2 "--block junk" gf bench loader "$TMP/x" --block 4Q
expect_rc 0 "bench loader --help" gf bench loader --help
expect_grep "$out" "--batch-size N" "help lists --batch-size"
expect_grep "$out" "--gpu N|host" "help lists --gpu"
gf bench --help >"$TMP/bench-help" 2>&1
expect_grep "$TMP/bench-help" "loader" "bench --help lists loader"

expect_rc 3 "a dataset that is not there" gf bench loader "$TMP/no-such-dataset" --quiet
expect_grep "$err" "no-such-dataset" "  named in the message"
[ ! -s "$out" ] && ok "  nothing on stdout" || not_ok "  stdout: $(head -2 "$out")"
mkdir "$TMP/empty"
expect_rc 3 "a directory without a manifest" gf bench loader "$TMP/empty" --quiet
expect_grep "$err" "empty" "  named in the message"

# 300 records of 4 KiB, in shards of 512 KiB (several).
head -c $((300 * 4096)) /dev/urandom >"$TMP/flat.bin"
expect_rc 0 "gpufeed pack --record-size 4096" gf pack --record-size 4096 --shard-size 512K "$TMP/flat.bin" "$TMP/ds"

expect_rc 0 "warm, 2 epochs x 2 samples, --json" gf bench loader "$TMP/ds" --warm --batch-size 64 --epochs 2 \
	--repeats 2 --block 64K --seed 7 --json --quiet
cp "$out" "$TMP/w.json"
expect_jq "$TMP/w.json" '.schema == "gpufeed-bench-loader/1" and (.gpufeed_version | type) == "string"' \
	"schema and version"
expect_jq "$TMP/w.json" '.dataset.samples == 300 and .dataset.record_size == 4096 and .dataset.shards > 1' \
	"the dataset: 300 records of 4096 bytes, several shards"
expect_jq "$TMP/w.json" '.config.cache == "warm" and .config.reads == "buffered" and .config.gpu == "host" and .config.seed == 7 and .config.epochs == 2' \
	"the configuration"
expect_jq "$TMP/w.json" '(.runs | length) == 2 and all(.runs[]; .samples == 600 and .bytes == .samples * 4096 and .batches == 10)' \
	"every sample: 2 epochs of 300 samples, bytes = samples x 4096, 10 batches of up to 64"
expect_jq "$TMP/w.json" '[.figures[]] | length == 4 and all(.[]; .n == 2 and (.samples | length) == 2 and .min <= .median and .median <= .max)' \
	"four figures, each with its 2 raw samples, median and spread"
# The JSON keeps six significant digits: compare within that.
expect_jq "$TMP/w.json" '[range(2) as $i | .figures.samples_per_s.samples[$i] as $v | ($v - .runs[$i].samples / .runs[$i].seconds | fabs) <= 0.001 + 2e-5 * $v] | all' \
	"samples/s is samples / seconds of each sample"
expect_jq "$TMP/w.json" '[range(2) as $i | .figures.gb_per_s.samples[$i] as $v | ($v - .runs[$i].bytes / 1e9 / .runs[$i].seconds | fabs) <= 0.001 + 2e-5 * $v] | all' \
	"GB/s is bytes / 1e9 / seconds"
expect_jq "$TMP/w.json" 'all(.runs[]; .wait_s >= 0 and .wait_s <= .seconds * 1.001 and .cpu_user_s >= 0 and .pss_bytes > 0)' \
	"wait within the sample's time, CPU and PSS counted"
expect_jq "$TMP/w.json" '.memory.peak_rss_bytes >= .memory.rss_before_open_bytes and .memory.peak_pss_bytes > 0 and .findings == 0' \
	"memory figures, no findings"

expect_rc 0 "cold (the default), --samples 100" gf bench loader "$TMP/ds" --batch-size 64 --samples 100 --repeats 1 --json --quiet
expect_jq "$out" '.config.cache == "cold" and .config.reads == "O_DIRECT" and .runs[0].samples == 128 and .runs[0].bytes == 128 * 4096' \
	"cold, O_DIRECT; the limit reached at the next whole batch (128)"

expect_rc 0 "text" gf bench loader "$TMP/ds" --warm --batch-size 64 --repeats 1 --quiet
expect_grep "$out" "^dataset .*: 300 samples of 4096 bytes" "the dataset in words"
expect_grep "$out" "^samples/s " "a samples/s row"
expect_grep "$out" "^CPU s per GB " "a CPU s/GB row"
expect_grep "$out" "^consumer wait % " "a wait row"
expect_grep "$out" "^memory: peak RSS" "memory in words"
[ ! -s "$err" ] && ok "--quiet: nothing on stderr" || not_ok "--quiet wrote to stderr: $(head -2 "$err")"

# A record changed after packing: --verify finds it on a loader thread; the
# sample fails, the run exits 3 naming the shard.
cp -r "$TMP/ds" "$TMP/bad"
printf 'X' | dd of="$TMP/bad/shard-00001.bin" bs=1 seek=5000 conv=notrunc status=none
expect_rc 0 "the changed dataset without --verify" gf bench loader "$TMP/bad" --repeats 1 --quiet
expect_rc 3 "the changed dataset with --verify" gf bench loader "$TMP/bad" --verify --repeats 1 --quiet
expect_grep "$err" "shard-00001" "  the shard is named"

fake_cuda=${GPUFEED_FAKE_CUDA:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libcuda.so.1}
fake_nvml=${GPUFEED_FAKE_NVML:-${GPUFEED_SRC:-$PWD}/${BUILD:-build}/fakes/libnvidia-ml.so.1}
expect_rc 4 "--gpu 0 without NVML or libcuda" env GPUFEED_NVML_LIBRARY="$TMP/none.so" \
	GPUFEED_CUDA_LIBRARY="$TMP/none.so" "$GPUFEED" bench loader "$TMP/ds" --gpu 0 --quiet
expect_rc 0 "--gpu 0 on the stand-in libcuda" env GPUFEED_CUDA_LIBRARY="$fake_cuda" GPUFEED_NVML_LIBRARY="$fake_nvml" \
	timeout 120 "$GPUFEED" bench loader "$TMP/ds" --gpu 0 --batch-size 64 --repeats 2 --json --quiet
expect_jq "$out" '.config.gpu == 0 and (.runs | length) == 2 and all(.runs[]; .samples == 300 and .bytes == 300 * 4096) and .findings == 0' \
	"  batches copied to GPU 0: every sample, bytes = samples x 4096"
finish
