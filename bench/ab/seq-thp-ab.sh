#!/usr/bin/env bash
# A/B of sequential 1 MiB O_DIRECT reads: fio's best io_uring config against
# two gpufeed binaries (before/after a change), interleaved, per SQPOLL
# setting.  Used to decide the transparent-huge-page default of gf_buf_alloc
# (see bench/results/*-seq-thp-ab/).  usage: seq-thp-ab.sh OLD NEW [FIO] [DIR]
set -u
old=$1 new=$2 fio=${3:-build-fio/fio} dir=${4:-/tmp}
F=$dir/seq-ab.dat
trap 'rm -f "$F"' EXIT
"$fio" --name=lay --filename="$F" --size=8G --rw=write --bs=1M --direct=1 --ioengine=io_uring \
	--iodepth=16 --output=/dev/null || exit 3
echo "max_segments $(cat /sys/block/vda/queue/max_segments 2>/dev/null) thp $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo "run sqpoll qd tool gb_per_s"
for i in 1 2 3 4; do
	for sq in 0 1; do
		for qd in 8 64; do
			"$fio" --name=s --filename="$F" --ioengine=io_uring --direct=1 --fixedbufs --registerfiles \
				--sqthread_poll=$sq --rw=read --bs=1M --iodepth=$qd --thread --time_based --runtime=5 \
				--disable_slat=1 --disable_lat=1 --output-format=json --output=/tmp/ab-fio.json >/dev/null
			echo "$i $sq $qd fio $(jq '.jobs[0].read.bw_bytes/1e9' /tmp/ab-fio.json)"
			extra=(); [ $sq = 1 ] && extra=(--sqpoll)
			for t in old new; do
				bin=$old; [ $t = new ] && bin=$new
				"$bin" bench io "$F" --mode seqread --bs 1M --qd $qd --direct "${extra[@]}" --duration 5 \
					--json >/tmp/ab-gf.json
				echo "$i $sq $qd $t $(jq '.gb_per_s' /tmp/ab-gf.json)"
			done
		done
	done
done
