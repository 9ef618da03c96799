#!/usr/bin/env bash
# gpufeed plan on the fixture machines: the sets an expert would choose,
# the reasons printed, and outputs that parse (docker line with shlex,
# YAML with a real parser, JSON with jq).
. "$(dirname "$0")/lib.sh"

DUAL=$FIX/dual-8gpu-pcie-switch/root
HGX=$FIX/hgx-h100-8gpu/root
L40S=$FIX/l40s-4gpu-224/root
D16=$FIX/dual-16gpu-pcie-tree/root

# plan_gpus ROOT ARGS...: the chosen NVML indices, "0,1".
plan_gpus() {
	local root=$1; shift
	"$GPUFEED" plan --root "$root" --json "$@" 2>/dev/null | jq -r '.gpus | map(tostring) | join(",")'
}

# expect_set WANT DESC ROOT ARGS...
expect_set() {
	local want=$1 desc=$2 got; shift 2
	got=$(plan_gpus "$@")
	[ "$got" = "$want" ] && ok "$desc: $got" || not_ok "$desc: got '$got', wanted '$want'"
}

# dual-8gpu-pcie-switch: PIX pairs under 4 switches, 2 nodes.
expect_set 0,1 "dual8: 2 GPUs are a PIX pair" "$DUAL" --gpus 2
expect_set 0,1,2,3 "dual8: 4 GPUs are one node's four" "$DUAL" --gpus 4
expect_set 2,3 "dual8: 2 GPUs with 0 and 5 busy: the whole PIX pair left on node 0" "$DUAL" --gpus 2 --free 1,2,3,4,6,7
expect_set 4,5,6,7 "dual8: 4 GPUs with GPU1 busy: node 1's four" "$DUAL" --gpus 4 --free 0,2,3,4,5,6,7
expect_set 1 "dual8: 1 GPU with GPU0 busy: the broken pair's mate" "$DUAL" --gpus 1 --free 1,2,3,4,5,6,7
run "$GPUFEED" plan --root "$DUAL" --gpus 2
expect_grep "$out" "GPUs 0,1: PIX pair under switch 0000:16:00.0 on node 0" "dual8: the reason names the switch and node"
expect_grep "$out" "leaves 2,3,4,5,6,7 free: 4,5 (PIX pair" "dual8: the reason says what is left for the next job"
run "$GPUFEED" plan --root "$DUAL" --gpus 1 --free 1,2,3,4,5,6,7
expect_grep "$out" "GPU1's PIX mate GPU0 is in use: taking GPU1 keeps whole pairs free" "dual8: fragmentation reason"
expect_grep "$out" "the look-ahead chose among them" "dual8: the look-ahead decided"
# UUIDs and PCI addresses name free GPUs too.
uuid2=$("$GPUFEED" topo --root "$DUAL" --json | jq -r '.gpus[2].uuid')
expect_set 2,3 "dual8: --free by UUID and PCI address" "$DUAL" --gpus 2 --free "$uuid2,0000:3e:00.0,9b:00.0"

# hgx-h100-8gpu: one NVSwitch fabric, a NIC per GPU.
expect_set 0,1 "hgx: 2 GPUs on one node" "$HGX" --gpus 2
expect_set 0,1,2,3 "hgx: 4 GPUs are one node's four" "$HGX" --gpus 4
expect_set 4,5 "hgx: 2 GPUs with node 0 partly busy: node 1" "$HGX" --gpus 2 --free 0,4,5,6,7
run "$GPUFEED" plan --root "$HGX" --gpus 2
expect_grep "$out" "GPUs 0,1: one NVSwitch fabric (every pair NV18) on node 0" "hgx: NVSwitch is one fabric"
expect_grep "$out" "NIC rails: GPU0->mlx5_0 (PIX), GPU1->mlx5_1 (PIX): each GPU its own" "hgx: each GPU on its own rail"
run "$GPUFEED" plan --root "$HGX" --gpus 2 --json
expect_jq "$out" '.score.fabric_gaps == 0 and .score.fabric_missing_links == 0 and .score.rail_shared == 0' \
	"hgx: no fabric gap, no shared rail"

# l40s-4gpu-224: one GPU per root port, two per node.
expect_set 0,1 "l40s: 2 GPUs on one node" "$L40S" --gpus 2
expect_set 2,3 "l40s: 2 GPUs with GPU0 busy: node 1's pair" "$L40S" --gpus 2 --free 1,2,3

# dual-16gpu-pcie-tree: PIX < PXB < NODE < SYS.
expect_set 0,1 "dual16: 2 GPUs are a PIX pair" "$D16" --gpus 2
expect_set 0,1,2,3 "dual16: 4 GPUs share one top switch" "$D16" --gpus 4
expect_set 0,1,2,3,4,5,6,7 "dual16: 8 GPUs are node 0" "$D16" --gpus 8
expect_set 4,5,6,7 "dual16: 4 GPUs with GPU1 busy: a whole top switch" "$D16" --gpus 4 --free 0,2,3,4,5,6,7,8,9,10,11,12,13,14,15
expect_set 4 "dual16: 1 GPU with GPU5 busy: its mate GPU4" "$D16" --gpus 1 --free 0,1,2,3,4,6,7,8,9,10,11,12,13,14,15
expect_set 0,2,3 "dual16: 3 GPUs with GPU1 busy: the broken tree, not a whole one" "$D16" --gpus 3 \
	--free 0,2,3,4,5,6,7,8,9,10,11,12,13,14,15
run "$GPUFEED" plan --root "$D16" --gpus 4
expect_grep "$out" "GPUs 0,1,2,3: one PCIe tree below 0000:11:00.0, worst pair PXB on node 0" "dual16: reason names the tree"

# Errors.
expect_rc 1 "more GPUs than free is exit 1" "$GPUFEED" plan --root "$DUAL" --gpus 3 --free 0,1
expect_grep "$err" "asked for 3 GPUs but 2 are free" "the message names both counts"
expect_rc 2 "--gpus is required" "$GPUFEED" plan --root "$DUAL"
expect_rc 2 "--gpus 0 is a usage error" "$GPUFEED" plan --root "$DUAL" --gpus 0
expect_rc 2 "an unknown GPU in --free" "$GPUFEED" plan --root "$DUAL" --gpus 1 --free 0,42
expect_rc 2 "a GPU named twice in --free" "$GPUFEED" plan --root "$DUAL" --gpus 1 --free 0,0
expect_rc 2 "an unknown format" "$GPUFEED" plan --root "$DUAL" --gpus 1 --format xml
expect_rc 4 "no GPU on the machine" "$GPUFEED" plan --root "$FIX/ci-vm/root" --gpus 1

# JSON.
run "$GPUFEED" plan --root "$DUAL" --gpus 2 --format json
expect_jq "$out" '.schema == "gpufeed-plan/1" and .gpus == [0,1] and .cpus == "0-31,64-95" and .mems == "0"
	and (.uuids | length) == 2 and (.reason | length) >= 3 and .nics == ["mlx5_0"]
	and .score.pcie_worst == 1 and (.select_ms | type) == "number"' "json: gpus, cpus, mems, score, reasons"

# Docker: one line that splits as shell words and holds the flags.
run "$GPUFEED" plan --root "$DUAL" --gpus 2 --format docker --image 'nvcr.io/nvidia/pytorch:24.01-py3'
if python3 - "$out" <<'PY'
import shlex, sys
words = shlex.split(open(sys.argv[1]).read())
assert len(open(sys.argv[1]).read().strip().splitlines()) == 1
def val(flag):
    return words[words.index(flag) + 1]
assert words[:3] == ["docker", "run", "--rm"]
# No -it: a script has no terminal and docker refuses one ("the input
# device is not a TTY"). GPUs by UUID, as the env output's
# CUDA_VISIBLE_DEVICES: the same GPUs whatever the ordering.
assert "-it" not in words and "-t" not in words and "-i" not in words, words
assert val("--gpus") == '"device=GPU-2aa26dfa-7276-b10d-13cf-b86ce334f69d,GPU-353c26bb-f03e-e677-1e45-842a10568d76"', val("--gpus")
assert val("--cpuset-cpus") == "0-31,64-95"
assert val("--cpuset-mems") == "0"
assert val("--shm-size") == "16g"
assert val("--ulimit") == "memlock=-1"
assert val("--cap-add") == "SYS_NICE"
assert val("--network") == "host" and val("--device") == "/dev/infiniband"
assert words[-1] == "nvcr.io/nvidia/pytorch:24.01-py3"
PY
then ok "docker: the line splits and carries every flag"; else not_ok "docker: $(cat "$out")"; fi
run "$GPUFEED" plan --root "$DUAL" --gpus 8 --format docker
expect_no_grep "$out" "SYS_NICE" "docker: no SYS_NICE when the set spans every node"
run "$GPUFEED" plan --root "$FIX/h200x4-vm/root" --gpus 1 --format docker
expect_no_grep "$out" "infiniband" "docker: no /dev/infiniband without an RDMA NIC"

# env: exports that a shell reads back.
run "$GPUFEED" plan --root "$HGX" --gpus 2 --format env
if env -i bash -c ". '$out' && [ \"\$CUDA_DEVICE_ORDER\" = PCI_BUS_ID ] && [ \"\$NCCL_IB_HCA\" = =mlx5_0,mlx5_1 ] &&
	[ \"\$GPUFEED_PLAN_CPUS\" = 0-55,112-167 ] && [ \"\$GPUFEED_PLAN_MEMS\" = 0 ] &&
	case \$CUDA_VISIBLE_DEVICES in GPU-*,GPU-*) true;; *) false;; esac"; then
	ok "env: exports read back by a shell"; else not_ok "env: $(cat "$out")"; fi

# k8s: multi-document YAML, a claim pinning the UUIDs, a Guaranteed Pod.
for fmt in k8s k8s-plugin; do
	run "$GPUFEED" plan --root "$DUAL" --gpus 2 --format $fmt --image 'my image:"x"' --name train
	if python3 - "$out" "$fmt" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
pod = [d for d in docs if d["kind"] == "Pod"][0]
c = pod["spec"]["containers"][0]
r = c["resources"]
assert r["requests"] == r["limits"], r
assert r["requests"]["cpu"] == "28", r    # 2 of node 0's 4 GPUs: (64 CPUs - 4 reserved) / 4, whole cores
assert c["image"] == 'my image:"x"'
vol = pod["spec"]["volumes"][0]
assert vol["emptyDir"]["medium"] == "Memory"
assert c["volumeMounts"][0]["mountPath"] == "/dev/shm"
if sys.argv[2] == "k8s":
    claim = [d for d in docs if d["kind"] == "ResourceClaim"][0]
    assert claim["apiVersion"] == "resource.k8s.io/v1"
    reqs = claim["spec"]["devices"]["requests"]
    assert len(reqs) == 2
    assert all('.uuid == "GPU-' in q["exactly"]["selectors"][0]["cel"]["expression"] for q in reqs)
    assert claim["spec"]["devices"]["constraints"][0]["matchAttribute"] == "resource.kubernetes.io/pcieRoot"
    assert pod["spec"]["resourceClaims"][0]["resourceClaimName"] == "train-gpus"
    assert "nvidia.com/gpu" not in r["limits"]
else:
    assert r["limits"]["nvidia.com/gpu"] == "2"
PY
	then ok "$fmt: YAML parses, requests == limits, /dev/shm in memory"; else not_ok "$fmt: $(head -50 "$out")"; fi
done

# A recorded UUID with quotes (a copy of the 4x H200 VM, its nvml.json
# edited): the CEL selector still names that one string, not every device.
EVIL=$TMP/evil
cp -a "$FIX/h200x4-vm/root" "$EVIL"
python3 "$SRC/tests/tools/plant-uuid.py" "$EVIL/nvml.json"
printf 'vm\nkind: Evil\n' >"$EVIL/proc/sys/kernel/hostname"
run "$GPUFEED" plan --root "$EVIL" --gpus 1 --free 0 --format k8s
if python3 - "$out" <<'PY'
import ast, re, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert [d["kind"] for d in docs] == ["ResourceClaim", "Pod"], [d.get("kind") for d in docs]
expr = docs[0]["spec"]["devices"]["requests"][0]["exactly"]["selectors"][0]["cel"]["expression"]
# One CEL string literal after ==, with no unescaped quote inside it.
m = re.fullmatch(r'device\.attributes\["gpu\.nvidia\.com"\]\.uuid == ("(?:[^"\\]|\\.)*")', expr)
assert m, expr
assert ast.literal_eval(m.group(1)) == 'GPU-x" || true || "\\', m.group(1)
PY
then ok "k8s: a quote in a UUID stays inside the CEL literal"; else not_ok "k8s: the CEL selector: $(grep expression "$out")"; fi

# Object names the API server takes (RFC 1123), and --free as run's --gpu.
expect_rc 2 "--name that is not a DNS subdomain" "$GPUFEED" plan --root "$DUAL" --gpus 1 --format k8s --name My_Job
expect_grep "$err" "name 'My_Job': not a valid object name" "the name and the rule are said"
expect_rc 2 "--name whose claim name would be too long" "$GPUFEED" plan --root "$DUAL" --gpus 1 --format k8s \
	--name "$(printf 'a%.0s' $(seq 250))"
expect_rc 0 "--name with dots and dashes" "$GPUFEED" plan --root "$DUAL" --gpus 1 --format k8s --name train-1.team
expect_rc 2 "an empty entry in --free" "$GPUFEED" plan --root "$DUAL" --gpus 1 --free 0,,1
expect_grep "$err" "an empty entry" "said as run says it"

# The pods fit the kubelet configuration gpufeed itself writes: for sets of
# 1, 2, 4 and all GPUs, the pod's CPUs (whole cores under full-pcpus-only,
# inside one node's free CPUs under single-numa-node) and memory are within
# what config kubelet leaves to pods, and as many such pods as the machine
# has sets fit together.  On the 4x H200 VM the NUMA node's meminfo says
# 5 GiB of 504: memory is sized from MemTotal, and the output says so.
fits() {
	python3 - "$@" <<'PY'
import json, re, sys, yaml
topo, kubelet, n, plan = json.load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2])), int(sys.argv[3]), sys.argv[4]
def cpulist(s):
    out = set()
    for part in filter(None, s.split(",")):
        a, _, b = part.partition("-"); out.update(range(int(a), int(b or a) + 1))
    return out
def qty(s):
    m = re.fullmatch(r"(\d+)(Mi|Gi)", s); return int(m.group(1)) << (20 if m.group(2) == "Mi" else 30)
mi = lambda s: int(s.rstrip("Mi")) << 20
reserved = cpulist(kubelet["reservedSystemCPUs"])
online = cpulist(topo["cpus"]["online"])
alloc_cpus = len(online - reserved)
alloc_mem = topo["machine"]["memory_bytes"] - mi(kubelet["kubeReserved"]["memory"]) - \
    mi(kubelet["systemReserved"]["memory"]) - (100 << 20)
pod = [d for d in yaml.safe_load_all(open(plan)) if d and d["kind"] == "Pod"][0]
req = pod["spec"]["containers"][0]["resources"]["requests"]
cpu, mem = int(req["cpu"]), qty(req["memory"])
assert 0 < cpu <= alloc_cpus and 0 < mem <= alloc_mem, (cpu, alloc_cpus, mem, alloc_mem)
pods = len(topo["gpus"]) // n
assert pods * cpu <= alloc_cpus and pods * mem <= alloc_mem, ("pods together", pods, cpu, mem)
smt = topo["cpus"]["threads_per_core"]
if kubelet.get("cpuManagerPolicyOptions", {}).get("full-pcpus-only") == "true":
    assert cpu % smt == 0, ("not whole cores", cpu, smt)
if kubelet["topologyManagerPolicy"] == "single-numa-node":
    assert any(cpu <= len(cpulist(nd["cpus"]) - reserved) for nd in topo["numa"]["nodes"]), "fits no node"
assert qty(pod["spec"]["volumes"][0]["emptyDir"]["sizeLimit"]) <= mem // 2
PY
}
for m in hgx-h100-8gpu dual-8gpu-pcie-switch l40s-4gpu-224 h200x4-vm dual-16gpu-pcie-tree; do
	R=$FIX/$m/root
	"$GPUFEED" topo --root "$R" --json >"$TMP/$m.topo.json" 2>/dev/null
	"$GPUFEED" config kubelet --root "$R" >"$TMP/$m.kubelet.yaml" 2>/dev/null
	for n in $(printf '%s\n' 1 2 4 "$(jq '.gpus | length' "$TMP/$m.topo.json")" | sort -un); do
		run "$GPUFEED" plan --root "$R" --gpus "$n" --format k8s
		if [ "$rc" = 0 ] && msg=$(fits "$TMP/$m.topo.json" "$TMP/$m.kubelet.yaml" "$n" "$out" 2>&1); then
			ok "$m: a pod of $n GPUs fits what config kubelet leaves to pods"
		else not_ok "$m: a pod of $n GPUs: exit $rc, $(echo "$msg" | tail -1)"; fi
	done
done
run "$GPUFEED" plan --root "$FIX/h200x4-vm/root" --gpus 1 --format k8s
expect_grep "$out" "memory: \"121Gi\"" "h200x4-vm: a quarter of MemTotal's allocatable, not of the node's 5 GiB"
expect_grep "$out" "Memory sized from MemTotal (503 GiB): the NUMA nodes' meminfo accounts only" "and it says so"
run "$GPUFEED" plan --root "$FIX/h200x4-vm/root" --gpus 1 --format docker
expect_grep "$out" "--shm-size 8g" "docker: /dev/shm from MemTotal too, not 1g"
expect_rc 4 "k8s on a machine whose cores the kubelet's reservation takes" \
	"$GPUFEED" plan --root "$FIX/ci-2gpu/root" --gpus 1 --format k8s
expect_grep "$err" "would leave none for pods" "the reason is said"

# Speed: 16 choose 8 with every GPU free, the selection alone.
run "$GPUFEED" plan --root "$D16" --gpus 8 --json
expect_jq "$out" '.select_ms < 10' "dual16: 8 of 16 selected in under 10 ms ($(jq .select_ms "$out") ms)"

finish
