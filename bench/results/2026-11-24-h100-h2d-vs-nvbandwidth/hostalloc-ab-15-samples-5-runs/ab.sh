#!/usr/bin/env bash
# Throwaway A/B: bench h2d with registered gf_buf memory vs cuMemHostAlloc, beside nvbandwidth.
o=$1; mkdir -p $o; B=build-lead
for r in 1 2 3 4 5; do
  CUDA_DEVICE_ORDER=PCI_BUS_ID $B/nvbandwidth -j -b 512 -i 15 -t host_to_device_bidirectional_memcpy_ce > $o/nv.$r.txt 2>&1
  $B/gpufeed bench h2d --json --quiet --repeats 15 > $o/reg.$r.json 2>/dev/null
  GF_HACK_HOSTALLOC=1 $B/gpufeed-hack bench h2d --json --quiet --repeats 15 > $o/halloc.$r.json 2>/dev/null
done
python3 - $o <<'PY'
import json, sys, statistics, glob
o=sys.argv[1]
def nv(f):
    t=open(f).read(); d=json.loads(t[t.index('{'):t.rindex('}')+1])
    return float(d['nvbandwidth']['testcases'][0]['bandwidth_matrix'][0][0])
def gf(f, dirn):
    d=json.load(open(f))
    return [p['median'] for p in d['points'] if p['direction']==dirn and p['memory']=='pinned'][0]
N=[nv(f"{o}/nv.{r}.txt") for r in range(1,6)]
for dirn in ['bidirectional_host_to_device','bidirectional_device_to_host','host_to_device']:
    R=[gf(f"{o}/reg.{r}.json",dirn) for r in range(1,6)]; H=[gf(f"{o}/halloc.{r}.json",dirn) for r in range(1,6)]
    print(dirn, 'registered', [round(x,2) for x in R], 'hostalloc', [round(x,2) for x in H])
    print('   medians reg %.2f hostalloc %.2f' % (statistics.median(R), statistics.median(H)))
print('nvbandwidth h2d bidir', [round(x,2) for x in N], 'median %.2f' % statistics.median(N))
PY
