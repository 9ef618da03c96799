#!/usr/bin/env bash
# The monitor on a GPU machine: samples GPU 0 while loads run and prints
# gpufeed's figures beside nvidia-smi dmon's for the same seconds (means
# over the phase), then what one gf_monitor_sample cost there.  Phases:
# idle; host-to-GPU copies (gpufeed bench h2d: PCIe rx); with PyTorch, bf16
# matmuls (SM and tensor activity); with two GPUs, GPU-to-GPU copies
# (gpufeed bench p2p: NVLink).  Skips (exit 77) without an NVIDIA GPU.
#   tests/gpu/monitor-check.sh [SECONDS_PER_PHASE]     (after make)
# docs/monitor.md says which NVML call and which DCGM field each figure is.
set -u
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
gf=${GPUFEED:-$build/gpufeed}
sampler=$build/examples/monitor-sample
secs=${1:-8}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU here (nvidia-smi absent or found no GPU)"
	exit 77
fi
for need in python3 "$sampler" "$gf"; do
	command -v "$need" >/dev/null 2>&1 || [ -x "$need" ] || { echo "skip: $need not found (make first)"; exit 77; }
done
tmp=$(mktemp -d)
load=
cleanup() { [ -n "$load" ] && kill "$load" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
ngpu=$(nvidia-smi -L | grep -c '^GPU ')
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader -i 0

# One phase: the load (a command in the background, or none), then the
# sampler and dmon side by side for $secs one-second samples.
phase() {
	local name=$1; shift
	load=
	if [ $# -gt 0 ]; then
		"$@" >"$tmp/$name.load" 2>&1 &
		load=$!
		sleep 2	# past the load's start-up
	fi
	nvidia-smi dmon -i 0 -s pucmt -d 1 -c "$secs" >"$tmp/$name.dmon" 2>&1 &
	local dmon=$!
	"$sampler" "$((secs + 1))" 1000 >"$tmp/$name.gf" 2>&1
	wait "$dmon"
	if [ -n "$load" ]; then
		kill "$load" 2>/dev/null
		wait "$load" 2>/dev/null
		load=
	fi
	echo "$name" >>"$tmp/phases"
}

phase idle
phase h2d "$gf" bench h2d --gpu 0 --direction host_to_device --repeats 1000
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	phase matmul python3 -c '
import torch, time
a = torch.randn(8192, 8192, device="cuda:0", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda:0", dtype=torch.bfloat16)
end = time.time() + 600
while time.time() < end:
    for _ in range(20):
        c = a @ b
    torch.cuda.synchronize()
'
else
	echo "PyTorch with CUDA not found: the matmul phase (SM and tensor activity) is not run"
fi
if [ "$ngpu" -ge 2 ]; then
	phase p2p "$gf" bench p2p --gpu 0,1 --test write --copy ce --repeats 1000
fi

python3 - "$tmp" <<'EOF'
import math, re, sys
tmp = sys.argv[1]

def gpufeed(path):
    rows, cost = [], "cost: not printed (the sampler failed?)"
    for line in open(path):
        if line.startswith("GPU0 "):
            rows.append(dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv))
        elif line.startswith("cost:"):
            cost = line.strip()
    return rows[1:], cost  # the first sample only primes the rates

def dmon(path):
    cols, rows = None, []
    for line in open(path):
        if line.startswith("# gpu") or line.startswith("#gpu"):
            cols = line.lstrip("#").split()
        elif cols and not line.startswith("#") and line.strip():
            rows.append(dict(zip(cols, line.split())))
    return rows

def mean(vals):
    xs = []
    for v in vals:
        try:
            x = float(v)
        except (TypeError, ValueError):
            continue
        if not math.isnan(x):
            xs.append(x)
    return sum(xs) / len(xs) if xs else float("nan")

# gpufeed field, its scale to dmon's unit, dmon column, what it is
pairs = [
    ("sm", 100, "sm", "SM busy % (GPM SM activity, else utilization.gpu)"),
    ("dram", 100, "mem", "memory % (GPM DRAM bandwidth, else utilization.mem)"),
    ("pcie_rx_mbs", 1, "rxpci", "PCIe rx MB/s"),
    ("pcie_tx_mbs", 1, "txpci", "PCIe tx MB/s"),
    ("power_w", 1, "pwr", "power W"),
    ("sm_mhz", 1, "pclk", "SM clock MHz / dmon pclk"),
    ("mem_mhz", 1, "mclk", "memory clock MHz"),
    ("temp_c", 1, "gtemp", "temperature C"),
    ("mem_used_mib", 1, "fb", "memory used MiB"),
]
for phase in open(tmp + "/phases").read().split():
    g, cost = gpufeed(f"{tmp}/{phase}.gf")
    d = dmon(f"{tmp}/{phase}.dmon")
    src = g[0].get("src", "?") if g else "?"
    print(f"\n== {phase}: {len(g)} gpufeed samples (activity from {src}), {len(d)} dmon samples")
    print(f"{'figure':55s} {'gpufeed':>10s} {'nvidia-smi':>11s}")
    for gk, scale, dk, what in pairs:
        print(f"{what:55s} {mean(r.get(gk) for r in g) * scale:10.1f} {mean(r.get(dk) for r in d):11.1f}")
    for gk, what in [("occ", "SM occupancy (GPM only)"), ("tensor", "tensor activity (GPM only)"),
                     ("nvlink_rx_mbs", "NVLink rx MB/s"), ("nvlink_tx_mbs", "NVLink tx MB/s"),
                     ("pcie_limit_mbs", "PCIe limit MB/s (model)")]:
        print(f"{what:55s} {mean(r.get(gk) for r in g):10.3f} {'-':>11s}")
    print(f"throttle reasons seen: {sorted(set(r.get('throttle', '?') for r in g))}")
    print(cost)
EOF
for f in "$tmp"/*.load; do
	[ -f "$f" ] && { echo "--- $(basename "$f" .load) load's own report (tail)"; tail -5 "$f"; }
done
exit 0
