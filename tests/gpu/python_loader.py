#!/usr/bin/env python3
"""gpufeed's Python binding on a real GPU: batches copied to the GPU and taken by
torch.from_dlpack without a copy, their bytes checked on the GPU, the consumer's
stream waited on, gpufeed.torch's DataLoader feeding a training step on the GPU,
CUDA_VISIBLE_DEVICES by UUID (as gpufeed launch sets it), and numpy 2's DLPack
on host batches.  GPUFEED_PYTHONPATH names the directory with the gpufeed package
(tests/cli/test_python.sh builds one in $BUILD/python).  Exit 77 without torch,
CUDA or the package; TAP-style lines.

    GPUFEED_PYTHONPATH=build/python python3 tests/gpu/python_loader.py
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.environ.get("GPUFEED_PYTHONPATH") or "python")
try:
    import torch
except ImportError:
    print("skip: no torch in this python")
    sys.exit(77)
if not torch.cuda.is_available():
    print("skip: torch sees no CUDA device")
    sys.exit(77)
try:
    import gpufeed
    import gpufeed.torch as gt
except ImportError as e:
    print("skip: the gpufeed package does not import (%s)" % e)
    sys.exit(77)

failures = 0
RECORD = 1024
N = 8192


def check(ok, what):
    global failures
    print(("ok - " if ok else "not ok - ") + what)
    failures += not ok


def numbers(t):
    """The sample numbers a batch's rows carry (first 8 bytes, little-endian)."""
    return [struct.unpack("<Q", bytes(row))[0] for row in t[:, :8].cpu().tolist()]


tmp = tempfile.mkdtemp()
flat = os.path.join(tmp, "flat")
with open(flat, "wb") as f:
    for i in range(N):
        f.write((struct.pack("<Q", i) * (RECORD // 8)))
gpufeed.pack(flat, os.path.join(tmp, "ds"), input="records", record_size=RECORD, shard_size=1 << 20)
ds = os.path.join(tmp, "ds")
print("# python %s, torch %s, gpufeed %s" % (sys.version.split()[0], torch.__version__, gpufeed.version()))

# 1. batches on the GPU, no copy, every sample once, bytes right
with gpufeed.Loader(ds, 256, device="cuda:0", seed=3, verify=True) as loader:
    seen, same_ptr, right = [], True, True
    for batch in loader:
        with batch:
            t = torch.from_dlpack(batch)
            same_ptr &= t.is_cuda and t.data_ptr() == batch.ptr and tuple(t.shape) == (batch.count, RECORD)
            got = numbers(t)
            # every 8-byte word of a row is the same number: compare on the GPU
            words = t.view(torch.int64)
            right &= bool((words == words[:, :1]).all().item()) and got == [int(s) for s in batch.samples]
            seen += got
    check(same_ptr, "torch.from_dlpack(batch) is the batch's GPU memory (data_ptr == batch.ptr), cuda, [count, record]")
    check(right, "every row's bytes are its sample's, checked on the GPU")
    check(sorted(seen) == list(range(N)), "every sample once in the epoch")
    check(loader.counters()["copy_ns"] > 0, "the copies to the GPU are counted")

# 2. the consumer's stream waits for the copy; the slot is not refilled under queued work
expect = {}
with gpufeed.Loader(ds, 512, device="cuda:0", shuffle=False, slots=2) as loader:
    side = torch.cuda.Stream()
    sums = []
    with torch.cuda.stream(side):
        for batch in loader:
            with batch:
                t = torch.from_dlpack(batch)  # passes side's handle: side waits for the copy
                for _ in range(20):  # keep side busy after release is recorded on it
                    t.float().sum()
                sums.append((batch.position, t.view(torch.int64)[:, 0].sum()))
    torch.cuda.synchronize()
    ok = all(int(s.item()) == sum(range(p, min(p + 512, N))) for p, s in sums)
    check(ok and len(sums) == N // 512, "work queued on a side stream sees each batch's bytes (slots=2, release recorded on that stream)")

# 3. gpufeed.torch on the GPU: a regression trained from batches already in GPU memory
g = torch.Generator().manual_seed(0)
x = torch.randn(4096, 8, generator=g)
y = x @ torch.arange(1.0, 9.0) / 8 + 0.5
rows = torch.cat([x, y[:, None]], 1).contiguous()
with open(os.path.join(tmp, "rows"), "wb") as f:
    f.write(rows.numpy().tobytes())
gpufeed.pack(os.path.join(tmp, "rows"), os.path.join(tmp, "reg"), input="records", record_size=36, align=64)
loader = gt.DataLoader(os.path.join(tmp, "reg"), batch_size=128, shuffle=True, device="cuda")
model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for epoch in range(3):
    total = 0.0
    for batch in loader:
        r = batch.view(torch.float32)
        loss = torch.nn.functional.mse_loss(model(r[:, :8]).squeeze(1), r[:, 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    losses.append(total / len(loader))
loader.close()
check(batch.is_cuda and losses[-1] < losses[0] / 10, "gpufeed.torch.DataLoader(device='cuda') trains on the GPU: loss %s" %
      ["%.4f" % v for v in losses])

# 4. CUDA_VISIBLE_DEVICES by UUID, as gpufeed launch sets it for each rank
uuid = gpufeed.topo()["gpus"][0]["uuid"]
code = ("import gpufeed, torch, sys\n"
        "with gpufeed.Loader(sys.argv[1], 8, device='cuda') as l:\n"
        "    b = next(l)\n"
        "    t = torch.from_dlpack(b)\n"
        "    print(l.device, l.gpu, t.device)\n")
env = dict(os.environ, CUDA_VISIBLE_DEVICES=uuid, LOCAL_RANK="0",
           PYTHONPATH=os.path.dirname(os.path.dirname(gpufeed.__file__)))
out = subprocess.run([sys.executable, "-c", code, ds], capture_output=True, text=True, env=env)
check(out.returncode == 0 and out.stdout.split() == ["cuda:0", "0", "cuda:0"],
      "CUDA_VISIBLE_DEVICES=%s: device='cuda' opens NVML GPU 0: %s %s" % (uuid, out.stdout.strip(), out.stderr.strip()[-200:]))

# 5. numpy's DLPack (numpy 2 asks for max_version) on host batches
try:
    import numpy
    with gpufeed.Loader(ds, 16, shuffle=False) as loader:
        with next(loader) as batch:
            a = numpy.from_dlpack(batch)
            check(a.ctypes.data == batch.ptr and a.shape == (16, RECORD), "numpy %s takes a host batch without a copy"
                  % numpy.__version__)
except ImportError:
    print("ok - # skip numpy: not installed")

sys.exit(1 if failures else 0)
