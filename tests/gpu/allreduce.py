#!/usr/bin/env python3
"""NCCL all-reduce bandwidth through torch.distributed, one process a GPU,
started by `gpufeed launch` (or torchrun: it reads RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR and MASTER_PORT).

Each rank first prints its binding as the kernel and CUDA see it (the
Cpus_allowed_list and Mems_allowed_list of /proc/self/status, its memory
policy from /proc/self/numa_maps, CUDA_VISIBLE_DEVICES, the torch.cuda device
with its PCI bus id).  Then, optionally, it holds after NCCL is up (so a
`gpufeed verify PID` sees the process with its GPU open and NCCL's threads
running) until DIR/go exists; then it times all-reduces of float32 tensors
from 1 MiB to 1 GiB and rank 0 prints a table like nccl-tests'
all_reduce_perf (algbw = bytes / time; busbw = algbw * 2 (n - 1) / n) and a
last line `RESULT busbw_gbs=X` (the mean busbw of the sizes of at least
64 MiB), which tests/gpu/launch-evidence.sh compares between runs.

  allreduce.py [--min-bytes N] [--max-bytes N] [--iters N] [--warmup N]
               [--ready-dir DIR --hold SEC]
"""
import argparse
import os
import sys
import time


def binding_lines():
    """What this process really has, read back from the kernel."""
    out = []
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("Cpus_allowed_list", "Mems_allowed_list")):
                out.append(line.strip().replace("\t", " "))
    policies = {}
    try:
        with open("/proc/self/numa_maps") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 1:
                    policies[fields[1]] = policies.get(fields[1], 0) + 1
    except OSError as e:
        policies = {"unreadable: %s" % e.strerror: 1}
    out.append("memory policy (numa_maps, mappings per policy): %s" %
               ", ".join("%s x%d" % kv for kv in sorted(policies.items())))
    out.append("sched_getaffinity: %s" % sorted(os.sched_getaffinity(0)))
    for var in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS", "NCCL_IGNORE_CPU_AFFINITY",
                "NCCL_TOPO_FILE", "RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        out.append("%s=%s" % (var, os.environ.get(var, "(unset)")))
    return out


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--min-bytes", type=int, default=1 << 20)
    p.add_argument("--max-bytes", type=int, default=1 << 30)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--ready-dir", help="write DIR/rank.N (this pid) once NCCL is up, then wait for DIR/go")
    p.add_argument("--hold", type=float, default=60.0, help="longest wait for DIR/go, seconds")
    return p.parse_args()


def wait_for_go(args, rank, torch, dist):
    """Announce this pid, then wait (bounded) for the verifier to finish."""
    path = os.path.join(args.ready_dir, "rank.%d" % rank)
    with open(path + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(path + ".tmp", path)
    go = os.path.join(args.ready_dir, "go")
    deadline = time.monotonic() + args.hold
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not os.path.exists(go):
        print("no %s within %.0f s: going on" % (go, args.hold), flush=True)
    dist.barrier()


def bench(torch, dist, world, args):
    """Rows of (bytes, elements, time_us, algbw, busbw); GB/s are 1e9 B/s."""
    rows = []
    size = args.min_bytes
    while size <= args.max_bytes:
        n = size // 4
        x = torch.ones(n, dtype=torch.float32, device="cuda")
        for _ in range(args.warmup):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(args.iters):
            dist.all_reduce(x)
        end.record()
        torch.cuda.synchronize()
        secs = start.elapsed_time(end) / 1e3 / args.iters
        algbw = size / secs / 1e9
        rows.append((size, n, secs * 1e6, algbw, algbw * 2 * (world - 1) / world))
        # ones summed over the ranks, warmup + iters times over: world ** k
        # (exact in float32 for powers of 2): a wrong reduction shows
        want = float(world) ** (args.warmup + args.iters)
        got = x[0].item()
        if want < 1e30 and abs(got - want) > 1e-3 * want:
            raise SystemExit("all-reduce of %d bytes: element 0 is %g, wanted %g" % (size, got, want))
        del x
        size *= 2
    return rows


def main():
    args = parse_args()
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", "0"))
    for line in binding_lines():
        print("binding: " + line, flush=True)
    import torch
    import torch.distributed as dist
    if not torch.cuda.is_available():
        print("no CUDA device visible to rank %d" % rank, file=sys.stderr)
        return 77
    # one GPU visible (gpufeed launch sets CUDA_VISIBLE_DEVICES): device 0;
    # all visible (plain torchrun): the local rank's
    dev = 0 if torch.cuda.device_count() == 1 else local
    torch.cuda.set_device(dev)
    props = torch.cuda.get_device_properties(dev)
    bus = "%04x:%02x:%02x.0" % (getattr(props, "pci_domain_id", 0), getattr(props, "pci_bus_id", 0),
                                getattr(props, "pci_device_id", 0))
    print("binding: torch.cuda device %d of %d: %s, PCI %s, uuid %s" %
          (dev, torch.cuda.device_count(), props.name, bus, getattr(props, "uuid", "?")), flush=True)
    dist.init_process_group("nccl", device_id=torch.device("cuda", dev))
    warm = torch.ones(1, device="cuda")
    dist.all_reduce(warm)  # NCCL's communicator is up: its threads exist
    torch.cuda.synchronize()
    if args.ready_dir:
        wait_for_go(args, rank, torch, dist)
    t0 = time.monotonic()
    rows = bench(torch, dist, world, args)
    if rank == 0:
        print("#  %12s %12s %6s %10s %10s %10s" % ("size(B)", "count", "type", "time(us)", "algbw(GB/s)",
                                                  "busbw(GB/s)"))
        for size, n, us, alg, bus_bw in rows:
            print("   %12d %12d %6s %10.1f %10.2f %10.2f" % (size, n, "float", us, alg, bus_bw))
        if world == 1:
            # One rank moves no bytes between GPUs: NCCL returns at once, so
            # its "bandwidth" is size / launch latency (TB/s on an H100),
            # above any link's limit.  No figure is claimed.
            print("RESULT none: one rank moves nothing between GPUs", flush=True)
        else:
            big = [r[4] for r in rows if r[0] >= 64 << 20] or [rows[-1][4]]
            print("RESULT busbw_gbs=%.3f peak_busbw_gbs=%.3f sizes_ge_64MiB=%d" %
                  (sum(big) / len(big), max(r[4] for r in rows), len(big)), flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
