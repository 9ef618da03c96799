"""Planted jobs for gpufeed diagnose on a GPU machine (bench/diagnose-gpu.sh):
each one is bound by one part, and calls gpufeed.step() after every step.

    python3 planted.py KIND SECONDS [DATA]

KIND:
  slow-loader   a DataLoader whose workers sleep per sample: input (another process)
  disk          a DataLoader reading DATA in 4 MiB pieces, the file's pages
                dropped from the page cache before each read: input (the disk)
  cpu-steal     DataLoader workers that burn every CPU the process may use
                while the step itself is short: host (CPU contention)
  compute       large matrix multiplications: compute
  launch        thousands of tiny kernels a step: host (launch)
  ddp           DistributedDataParallel all-reduce of 1 GiB of gradients a step
                (run it under gpufeed launch with NCCL_P2P_DISABLE=1): communication

KIND-free (slow-loader-free, disk-free, cpu-steal-free): the same job with the
planted cause removed (no sleep, the file's pages left cached, workers that do
not burn), whose step time tests the predicted speed-up if that part were free.
"""
import os
import sys
import time

import torch

import gpufeed

kind, seconds = sys.argv[1], float(sys.argv[2])
free = kind.endswith("-free")
kind = kind[:-len("-free")] if free else kind
data = sys.argv[3] if len(sys.argv) > 3 else None
dev = torch.device("cuda", gpufeed.local_rank() if kind == "ddp" else 0)
torch.cuda.set_device(dev)


class Sleepy(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        if not free:
            time.sleep(0.02)
        return torch.zeros(1024)


class DiskPieces(torch.utils.data.Dataset):
    def __init__(self, path):
        self.path, self.size = path, os.path.getsize(path)

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        piece = 4 << 20
        off = (i * 7919 % max(1, self.size // piece)) * piece
        with open(self.path, "rb", buffering=0) as f:
            if not free:
                os.posix_fadvise(f.fileno(), off, piece, os.POSIX_FADV_DONTNEED)
            f.seek(off)
            return torch.frombuffer(bytearray(f.read(piece)), dtype=torch.uint8)


class Burner(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        x = 0
        for j in range(0 if free else 200000):
            x += j * j
        return torch.zeros(1024)


def loop_loader(ds, workers, batch, step):
    loader = torch.utils.data.DataLoader(ds, batch_size=batch, num_workers=workers)
    end = time.monotonic() + seconds
    for b in loader:
        step(b.to(dev, non_blocking=True))
        torch.cuda.synchronize()
        gpufeed.step()
        if time.monotonic() > end:
            break


w = torch.randn(4096, 4096, device=dev)


def small_step(b):
    for _ in range(4):
        torch.mm(w, w)


if kind == "slow-loader":
    loop_loader(Sleepy(), 2, 32, small_step)
elif kind == "disk":
    loop_loader(DiskPieces(data), 4, 4, small_step)
elif kind == "cpu-steal":
    loop_loader(Burner(), 2 * len(os.sched_getaffinity(0)), 2, small_step)
elif kind == "compute":
    big = torch.randn(8192, 8192, device=dev)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(20):
            big = torch.mm(big, big).clamp_(-1, 1)
        torch.cuda.synchronize()
        gpufeed.step()
elif kind == "launch":
    t = torch.zeros(16, device=dev)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(5000):
            t.add_(1)
        torch.cuda.synchronize()
        gpufeed.step()
elif kind == "ddp":
    import torch.distributed as dist
    dist.init_process_group("nccl")
    model = torch.nn.Linear(16384, 16384, bias=False).to(dev)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index], bucket_cap_mb=256)
    x = torch.randn(8, 16384, device=dev)
    end = time.monotonic() + seconds
    while True:
        ddp(x).sum().backward()
        torch.cuda.synchronize()
        gpufeed.step()
        stop = torch.tensor([time.monotonic() > end], device=dev, dtype=torch.int32)
        dist.all_reduce(stop)
        if stop.item():
            break
    dist.destroy_process_group()
else:
    sys.exit("planted.py: unknown kind %r" % kind)
