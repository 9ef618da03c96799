#!/usr/bin/env bash
# H200x2: compile the new gf_copy to PTX, relink gpufeed with it, then SM copies
# interleaved: nvbandwidth, new gpufeed, old gpufeed (5 rounds, stop at 130 s).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 CUDA_DEVICE_ORDER=PCI_BUS_ID
B=build-lead/relink R=/tmp/res5; mkdir -p $R/sm-new $R/sm-old
fin() { tar czf $OUT/sm.tgz -C /tmp res5; }
trap fin EXIT
cu=gpu/kernels/copy.cu
/usr/local/cuda/bin/nvcc --version > $R/nvcc.txt 2>&1
/usr/local/cuda/bin/nvcc -ptx -arch=compute_80 -o $R/copy.ptx.tmp $cu > $R/build.txt 2>&1 || { cat $R/build.txt; exit 1; }
echo "// gpufeed-source-sha256: $(sha256sum $cu | cut -d' ' -f1)" >> $R/copy.ptx.tmp && mv $R/copy.ptx.tmp $R/copy.ptx
sh scripts/embed-ptx.sh $R/ptx_images.c gpu/kernels/chase.ptx $R/copy.ptx gpu/kernels/spin.ptx
cc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -c $R/ptx_images.c -o $R/ptx_images.o >> $R/build.txt 2>&1 &&
cc -o $R/gpufeed-new $B/cli/*.o $R/ptx_images.o $B/libgpufeed.a $B/libjansson.a $B/liburing.a $B/libz.a -ldl -lpthread -lm >> $R/build.txt 2>&1 || { cat $R/build.txt; exit 1; }
rm -f $R/ptx_images.c $R/ptx_images.o
one() { python3 -c 'import json,sys; t=sys.stdin.read(); print(json.dumps(json.loads(t[t.index("{"):t.rindex("}")+1])))'; }
T=""
G="bench p2p --json --size 512M --quiet --copy sm --test local"
for r in 1 2 3 4 5; do
	[ $SECONDS -gt 130 ] && { echo "stopped before round $r at $SECONDS s" >> $R/log.txt; break; }
	echo "round $r at $SECONDS s" >> $R/log.txt
	# shellcheck disable=SC2086
	:
	$R/gpufeed-new $G 2>>$R/log.txt | one >> $R/sm-new/gpufeed.jsonl
	build-lead/gpufeed $G 2>>$R/log.txt | one >> $R/sm-old/gpufeed.jsonl
done

echo "done at $SECONDS s" >> $R/log.txt
cat $R/log.txt

python3 -c "
import json
for l in open('$R/sm-new/gpufeed.jsonl'):
    print('verified', all(p.get('verified') for p in json.loads(l)['points']))"
python3 - $R <<'PY'
import json, statistics, sys
R = sys.argv[1]
for d in ("sm-new", "sm-old"):
    acc = {}
    for l in open(f"{R}/{d}/gpufeed.jsonl"):
        for p in json.loads(l)["points"]:
            acc.setdefault((p["test"], p.get("src_gpu"), p.get("dst_gpu"), p.get("unit")), []).append(p["median"])
    for k, v in sorted(acc.items(), key=str):
        print(d, k, "median %.2f" % statistics.median(v), [round(x, 2) for x in v])
PY
