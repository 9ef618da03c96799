#!/usr/bin/env python3
"""A small PyTorch DDP training job fed either by gpufeed's loader
(gpufeed.torch.DataLoader) or by PyTorch's DataLoader over the same samples,
one process a GPU, started by `gpufeed launch` (or torchrun: it reads RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT).

The dataset is a gpufeed dataset of fixed-size records (`gpufeed pack
--record-size N`).  PyTorch's side reads the same records from the same shard
files: a map-style Dataset that preads one record per __getitem__ at the
offset gpufeed's index gives (gpufeed.Dataset), with a DistributedSampler,
pin_memory and non_blocking copies, as a tuned PyTorch script would.

Each step: the batch (uint8 [B, record]) as float, a two-layer MLP, a loss,
backward (DDP's all-reduce), an optimiser step, and optionally a fixed
amount of extra GPU time (--step-ms, torch.cuda._sleep) standing for a
bigger model.  Each rank prints one line `RESULT {json}`: its binding as
the kernel sees it, samples/s, step times (p50, p99), the time it waited for
input (the loader's own counter for gpufeed; the time in next() for
PyTorch), and the distinct samples it saw (gpufeed: every sample exactly
once across ranks is checked by rank 0 with an all_gather of the counts).

  loader_ddp.py --data DIR --loader gpufeed|torch [--batch-size 256]
                [--steps 200] [--warmup 20] [--workers 4] [--step-ms 0]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from allreduce import binding_lines  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="a gpufeed dataset of fixed-size records")
    p.add_argument("--loader", choices=("gpufeed", "torch"), required=True)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--workers", type=int, default=4, help="PyTorch DataLoader num_workers")
    p.add_argument("--threads", type=int, default=4, help="gpufeed's I/O threads")
    p.add_argument("--buffered", action="store_true", help="gpufeed reads through the page cache (default O_DIRECT)")
    p.add_argument("--step-ms", type=float, default=0.0, help="extra GPU time per step (torch.cuda._sleep)")
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


class Records:
    """The dataset's records for PyTorch: one pread per sample."""

    def __init__(self, path):
        import gpufeed
        ds = gpufeed.Dataset(path)
        self.n = len(ds)
        self.locs = [ds.sample(i) for i in range(self.n)]
        self.files = {}
        self.paths = [s["data_path"] for s in ds.shards]

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import torch
        loc = self.locs[i]
        fd = self.files.get(loc["shard"])
        if fd is None:
            fd = self.files[loc["shard"]] = os.open(self.paths[loc["shard"]], os.O_RDONLY)
        b = os.pread(fd, loc["size"], loc["offset"])
        return torch.frombuffer(bytearray(b), dtype=torch.uint8)


def cuda_sleep_cycles(torch, ms):
    """Cycles of torch.cuda._sleep that take ms on this GPU (measured once)."""
    if ms <= 0:
        return 0
    cycles = 1_000_000
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(cycles)
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    per_ms = cycles / max(start.elapsed_time(end), 1e-3)
    return int(per_ms * ms)


def main():
    args = parse_args()
    import torch
    import torch.distributed as dist
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    cuda = torch.cuda.is_available()
    if cuda:
        dev = torch.device("cuda", 0 if torch.cuda.device_count() == 1 else local)
        torch.cuda.set_device(dev)
    else:  # a dry run of the script on a machine without a GPU
        dev = torch.device("cpu")
    if world > 1:
        if cuda:
            dist.init_process_group("nccl", device_id=dev)
        else:
            dist.init_process_group("gloo")

    if args.loader == "gpufeed":
        import gpufeed.torch as gft
        loader = gft.DataLoader(args.data, batch_size=args.batch_size, shuffle=True, drop_last=True,
                                device=str(dev), seed=args.seed, threads=args.threads, buffered=args.buffered)
        record = None
    else:
        from torch.utils.data import DataLoader, DistributedSampler
        ds = Records(args.data)
        sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=args.seed,
                                     drop_last=True)
        loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers,
                            pin_memory=True, drop_last=True, persistent_workers=args.workers > 0,
                            prefetch_factor=4 if args.workers > 0 else None)
        record = None

    model = None
    sleep_cycles = cuda_sleep_cycles(torch, args.step_ms) if cuda else 0
    steps, times, waited = 0, [], 0.0
    seen = 0
    total = args.warmup + args.steps
    epoch = 0
    t_first = None
    while steps < total:
        if hasattr(loader, "set_epoch"):
            loader.set_epoch(epoch)
        elif hasattr(loader, "sampler") and hasattr(loader.sampler, "set_epoch"):
            loader.sampler.set_epoch(epoch)
        it = iter(loader)
        while steps < total:
            t0 = time.perf_counter()
            try:
                batch = next(it)
            except StopIteration:
                break
            if isinstance(batch, (tuple, list)):
                batch = batch[0]
            batch = batch.to(dev, non_blocking=True)
            t1 = time.perf_counter()
            if model is None:
                record = batch.shape[1]
                model = torch.nn.Sequential(torch.nn.Linear(record, 1024), torch.nn.ReLU(),
                                            torch.nn.Linear(1024, 16)).to(dev)
                if world > 1:
                    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index] if cuda else None)
                opt = torch.optim.SGD(model.parameters(), lr=1e-3)
            x = batch.float() / 255.0
            y = batch[:, 0].long() % 16
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if sleep_cycles:
                torch.cuda._sleep(sleep_cycles)
            if cuda:
                torch.cuda.synchronize(dev)
            t2 = time.perf_counter()
            if steps == args.warmup:
                t_first = t0
                if args.loader == "gpufeed":
                    c0 = loader.loader.counters()
            if steps >= args.warmup:
                times.append(t2 - t0)
                waited += t1 - t0
                seen += batch.shape[0]
            steps += 1
        epoch += 1
    wall = time.perf_counter() - t_first
    times.sort()
    result = {
        "rank": rank, "world_size": world, "loader": args.loader, "gpu": str(dev),
        "pci": getattr(torch.cuda.get_device_properties(dev), "pci_bus_id", None) if cuda else None,
        "batch_size": args.batch_size, "record_bytes": record, "steps": len(times),
        "samples_per_s": seen / wall, "gb_per_s": seen * record / wall / 1e9,
        "step_ms_p50": 1e3 * times[len(times) // 2], "step_ms_p99": 1e3 * times[min(len(times) - 1,
                                                                                    int(len(times) * 0.99))],
        "input_wait_fraction": waited / wall, "step_ms_extra": args.step_ms,
        "workers": args.workers if args.loader == "torch" else None,
        "threads": args.threads if args.loader == "gpufeed" else None,
        "binding": binding_lines(),
    }
    if args.loader == "gpufeed":
        c1 = loader.loader.counters()
        result["loader_wait_fraction"] = (c1["wait_ns"] - c0["wait_ns"]) / 1e9 / wall
        result["loader_counters"] = c1
    print("RESULT " + json.dumps(result), flush=True)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
