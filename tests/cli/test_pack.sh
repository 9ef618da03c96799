#!/usr/bin/env bash
# gpufeed pack and inspect: each input kind packed and read back, shards cut
# at --shard-size, --verify on a sound and on damaged datasets (a flipped
# record, a truncated shard, a corrupt index, a missing shard: exit 3
# naming the shard and the record), a Megatron pair inspected, usage errors.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

D=$TMP/work
mkdir -p "$D/tree/a/b" "$D/wds"
printf 'one' >"$D/tree/a/b/1.txt"
printf 'second file' >"$D/tree/a/2.txt"
head -c 70000 /dev/zero | tr '\0' 'z' >"$D/tree/big.bin"
: >"$D/tree/empty"

# --- a directory tree ------------------------------------------------------
expect_rc 0 "pack a directory tree" "$GPUFEED" pack "$D/tree" "$D/ds"
expect_grep "$out" "Packed 4 samples" "the summary counts the files"
for f in manifest.json shard-00000.bin shard-00000.idx; do
	[ -f "$D/ds/$f" ] && ok "ds/$f written" || not_ok "ds/$f missing"
done
[ -z "$(find "$D/ds" -name '*.tmp-*')" ] && ok "no temporary file left" || not_ok "temporary files left"
expect_jq "$D/ds/manifest.json" '.format == "gpufeed-dataset" and .version == 1 and .samples == 4
	and .checksum == "xxh3" and .align == 4096 and (.shards | length) == 1
	and .shards[0].data == "shard-00000.bin" and .created.by != null and (.created.inputs | length) == 1' \
	"the manifest: format, version, counts, shards, creation info"
expect_rc 0 "inspect the dataset" "$GPUFEED" inspect "$D/ds"
expect_grep "$out" "samples:     4" "inspect: the sample count"
expect_grep "$out" "Sizes:" "inspect: a size histogram"
expect_grep "$out" "shard-00000.bin" "inspect: the shard"
expect_rc 0 "inspect --json --head 4" "$GPUFEED" inspect --json --head 4 "$D/ds"
expect_jq "$out" '.samples == 4 and .kind == "gpufeed" and .min_size == 0 and .max_size == 70000
	and ([.listed[].key] == ["a/2.txt", "a/b/1.txt", "big.bin", "empty"])
	and ([.listed[].offset] | all(. % 4096 == 0))
	and ([.size_histogram[].count] | add) == 4' \
	"--json: samples, sizes, keys in byte order of the paths, offsets aligned, histogram"
# The bytes at a sample's offset are the file's.
off=$(jq '.listed[1].offset' "$out")
[ "$(dd if="$D/ds/shard-00000.bin" bs=1 skip="$off" count=3 2>/dev/null)" = one ] &&
	ok "the record at its offset holds the file's bytes" || not_ok "record bytes differ"
expect_rc 0 "pack --verify a sound dataset" "$GPUFEED" pack --verify "$D/ds"
expect_grep "$out" "every checksum matches" "verify says so"
expect_rc 3 "pack into a directory that holds a dataset is refused" "$GPUFEED" pack "$D/tree" "$D/ds"
expect_grep "$err" "already holds a dataset" "and says why"

# Keys as JSON: UTF-8 kept, other bytes U+FFFD, quotes and backslashes escaped.
mkdir "$D/names"
printf x >"$D/names/caf$(printf '\303\251')"
printf y >"$D/names/bad$(printf '\377')"
printf z >"$D/names/q\"\\"
expect_rc 0 "pack file names that are not all UTF-8" "$GPUFEED" pack "$D/names" "$D/names-ds"
expect_rc 0 "inspect --json lists their keys" "$GPUFEED" inspect --json --head 3 "$D/names-ds"
expect_jq "$out" '[.listed[].key] == ["bad\ufffd", "caf\u00e9", "q\"\\"]' "keys: U+FFFD, UTF-8 and escapes"

# --- fixed-size records, shards cut at --shard-size ------------------------
head -c $((100 * 1000)) /dev/urandom >"$D/recs.raw"
expect_rc 0 "pack --record-size 1000 --shard-size 40K --json" \
	"$GPUFEED" pack --record-size 1000 --shard-size 40K --checksum crc32c --name recs --json "$D/recs.raw" "$D/recs"
expect_jq "$out" '.samples == 100 and .shards == 10 and .data_bytes == 100000' "--json: 100 samples in 10 shards"
expect_rc 0 "inspect --json a fixed-size dataset" "$GPUFEED" inspect --json "$D/recs"
expect_jq "$out" '.record_size == 1000 and .name == "recs" and .checksum == "crc32c" and (.shards | length) == 10
	and .shards[3].first_sample == 30' "record_size, name, checksum, shards"
expect_rc 0 "verify it" "$GPUFEED" pack --verify "$D/recs"
expect_rc 3 "a size the file is not a multiple of" "$GPUFEED" pack --record-size 999 "$D/recs.raw" "$D/bad1"
expect_grep "$err" "not a multiple of the record size 999" "the message says so"
[ ! -e "$D/bad1/manifest.json" ] && ok "no manifest after a failed pack" || not_ok "a manifest after a failed pack"

# --- JSON Lines and WebDataset tar -----------------------------------------
printf '{"a":1}\n{"a":2}\n\n{"a":3}\n' >"$D/in.jsonl"
expect_rc 0 "pack JSON Lines" "$GPUFEED" pack "$D/in.jsonl" "$D/lines"
expect_rc 0 "inspect --head 3" "$GPUFEED" inspect --json --head 3 "$D/lines"
expect_jq "$out" ".samples == 3 and .listed[2].key == \"$D/in.jsonl:4\" and .listed[2].size == 7" \
	"one sample per non-empty line, key FILE:LINE"
for k in 000 001 002; do printf "img$k" >"$D/wds/$k.jpg"; printf "$k" >"$D/wds/$k.cls"; done
tar -cf "$D/shard.tar" -C "$D/wds" 000.cls 000.jpg 001.cls 001.jpg 002.cls 002.jpg
expect_rc 0 "pack a WebDataset tar" "$GPUFEED" pack "$D/shard.tar" "$D/wds-ds"
expect_rc 0 "inspect it" "$GPUFEED" inspect --json --head 3 "$D/wds-ds"
expect_jq "$out" '.samples == 3 and ([.listed[].key] == ["000", "001", "002"])' "one sample per key"
off=$(jq '.listed[1].offset' "$out") size=$(jq '.listed[1].size' "$out")
dd if="$D/wds-ds/shard-00000.bin" of="$D/s1.tar" bs=1 skip="$off" count="$size" 2>/dev/null
[ "$(tar -tf "$D/s1.tar" | tr '\n' ' ')" = "001.cls 001.jpg " ] && [ "$(tar -xOf "$D/s1.tar" 001.jpg)" = img001 ] &&
	ok "a sample is a tar of its key's files" || not_ok "sample 1 is not the tar of 001.*"
cp "$D/shard.tar" "$D/bad.tar"
printf 'X' | dd of="$D/bad.tar" bs=1 seek=1030 conv=notrunc 2>/dev/null
expect_rc 3 "a tar with a damaged header" "$GPUFEED" pack "$D/bad.tar" "$D/bad2"
expect_grep "$err" "bad.tar: offset 1024" "the message names the archive and the offset"

# --- damaged datasets ------------------------------------------------------
cp -r "$D/recs" "$D/flip"
printf 'X' | dd of="$D/flip/shard-00002.bin" bs=1 seek=$((4096 * 3 + 10)) conv=notrunc 2>/dev/null
expect_rc 3 "verify: a changed record" "$GPUFEED" pack --verify "$D/flip"
expect_grep "$err" "shard-00002.bin: record 3 (sample 23" "the message names the shard, the record and the sample"
cp -r "$D/recs" "$D/trunc"
truncate -s 8192 "$D/trunc/shard-00004.bin"
expect_rc 3 "a truncated shard" "$GPUFEED" inspect "$D/trunc"
expect_grep "$err" "shard-00004.bin: 8192 bytes.*(truncated): record 2 (sample 42, offset 8192)" \
	"the shard named, said truncated, with the first record lost"
expect_rc 3 "verify: the same" "$GPUFEED" pack --verify "$D/trunc"
cp -r "$D/recs" "$D/idx"
printf '\377' | dd of="$D/idx/shard-00001.idx" bs=1 seek=$((128 + 8 * 2 + 1)) conv=notrunc 2>/dev/null
expect_rc 3 "a corrupt index" "$GPUFEED" inspect "$D/idx"
expect_grep "$err" "shard-00001.idx: corrupt index" "named"
cp -r "$D/recs" "$D/miss"
rm "$D/miss/shard-00007.bin"
expect_rc 3 "a manifest naming a missing shard" "$GPUFEED" pack --verify "$D/miss"
expect_grep "$err" "shard-00007.bin: missing" "the missing shard named"
expect_rc 3 "not a dataset" "$GPUFEED" inspect "$D/tree"
expect_grep "$err" "not a dataset" "said so"

# --- Megatron-LM .bin/.idx -------------------------------------------------
if [ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null; then
	"$PY" - "$D/corpus_text_document" <<'PYEOF'
import struct, sys, numpy as np
prefix = sys.argv[1]
seqs = [np.arange(5, dtype=np.uint16), np.arange(3, dtype=np.uint16), np.arange(9, dtype=np.uint16)]
with open(prefix + ".bin", "wb") as b:
    for s in seqs:
        b.write(s.tobytes())
sizes = np.array([len(s) for s in seqs], dtype=np.int32)
ptrs = np.concatenate([[0], np.cumsum(sizes[:-1] * 2)]).astype(np.int64)
docs = np.array([0, 1, 3], dtype=np.int64)
with open(prefix + ".idx", "wb") as f:
    f.write(b"MMIDIDX\x00\x00" + struct.pack("<Q", 1) + struct.pack("<B", 8))
    f.write(struct.pack("<Q", len(seqs)) + struct.pack("<Q", len(docs)))
    f.write(sizes.tobytes() + ptrs.tobytes() + docs.tobytes())
PYEOF
	expect_rc 0 "inspect a Megatron prefix" "$GPUFEED" inspect --json --head 3 "$D/corpus_text_document"
	expect_jq "$out" '.kind == "megatron" and .samples == 3 and .checksum == "none" and .data_bytes == 34
		and ([.listed[].size] == [10, 6, 18]) and ([.listed[].offset] == [0, 10, 16])' \
		"3 sequences of uint16 (code 8): sizes in bytes, offsets from the pointers"
	expect_rc 0 "pack --verify reads a Megatron pair" "$GPUFEED" pack --verify "$D/corpus_text_document.idx"
	truncate -s 20 "$D/corpus_text_document.bin"
	expect_rc 3 "a Megatron .bin shorter than its pointers" "$GPUFEED" inspect "$D/corpus_text_document"
	expect_grep "$err" "sequence 2" "the sequence named"
else
	ok "# skip Megatron: /usr/bin/python3 with numpy is needed"
fi

# --- usage -----------------------------------------------------------------
expect_rc 2 "one operand is not enough" "$GPUFEED" pack "$D/tree"
expect_rc 2 "--verify takes one DIR" "$GPUFEED" pack --verify "$D/ds" "$D/recs"
expect_rc 2 "--align 3" "$GPUFEED" pack --align 3 "$D/tree" "$D/x"
expect_rc 2 "--shard-size junk" "$GPUFEED" pack --shard-size 1Q "$D/tree" "$D/x"
expect_rc 2 "--checksum md5" "$GPUFEED" pack --checksum md5 "$D/tree" "$D/x"
expect_rc 2 "--input zip" "$GPUFEED" pack --input zip "$D/tree" "$D/x"
expect_rc 2 "--input records without --record-size" "$GPUFEED" pack --input records "$D/recs.raw" "$D/x"
expect_rc 3 "an input of unknown kind" "$GPUFEED" pack "$D/recs.raw" "$D/x"
expect_grep "$err" "what kind of input" "said so"
expect_rc 2 "inspect without an operand" "$GPUFEED" inspect
finish
