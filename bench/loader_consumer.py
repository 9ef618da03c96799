"""The Python half of bench/compare-loader-pytorch.sh: makes the datasets
and runs ONE measured loader run per process, printing one JSON record.

    loader_consumer.py make-flat FILE BYTES
    loader_consumer.py make-files FLAT DIR SAMPLE_SIZE
    loader_consumer.py run --tool torch|gpufeed|gpufeed-cli ... (--help)

Both loaders feed the same consumer, in the same process layout a training
script has: the loop that takes a batch, looks at it (one byte of every
4 KiB summed: the batch is read, the consumer's own work stays small) and,
with --device cuda, copies it to the GPU and runs a training step of fixed
GPU time (torch.cuda._sleep), then takes the next.

PyTorch's side is what a PyTorch user writes for fixed-size samples: a
map-style Dataset whose __getitem__ reads one sample (os.preadv into a
bytearray at i * size of the flat file, or one file per sample opened,
read and closed), RandomSampler order (shuffle=True, a seeded generator),
default_collate stacking the samples into one uint8 tensor [batch, size],
and DataLoader's workers, pin_memory, persistent_workers and
prefetch_factor as given.

Figures, measured the same way for every tool:
  seconds     wall time from creating the epoch's iterator (PyTorch starts
              its workers there) to the consumer releasing the last batch
  cpu_s       user + system CPU seconds of every process of the loader over
              that span: getrusage(RUSAGE_SELF) of this process plus
              getrusage(RUSAGE_CHILDREN) after PyTorch's workers are joined
              (their whole lives), less the CPU of this script's memory
              sampler thread; for gpufeed-cli the bench's own getrusage
  pss         the peak over the run of the SUM of Pss (/proc/PID/
              smaps_rollup) of this process and every live child, sampled
              every --monitor-interval seconds (PyTorch's workers share
              pages with the parent after fork: PSS splits them, RSS would
              count them once per process)
  wait_s      time the consumer spent inside next() waiting for a batch

Uses /usr/bin/python3 (Debian's torch and numpy)."""
import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

SAMPLE_TOUCH = 4096  # the consumer reads one byte per this many


def die(msg, code=2):
    print(f"loader_consumer.py: {msg}", file=sys.stderr)
    sys.exit(code)


# ---- datasets -------------------------------------------------------------

def make_flat(path, nbytes):
    """nbytes of incompressible bytes (a 64 MiB random block, each 4 KiB
    of every copy stamped with its offset so no two samples are equal),
    written, synced."""
    import numpy as np
    chunk = 64 << 20
    rng = np.random.default_rng(20)
    base = rng.integers(0, 256, size=chunk, dtype=np.uint8)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        done = 0
        while done < nbytes:
            n = min(chunk, nbytes - done)
            blk = base[:n].copy()
            stamps = (np.arange(done, done + n, 4096, dtype=np.uint64))
            blk.view(np.uint64)[:: 4096 // 8][: len(stamps)] = stamps
            f.write(blk.tobytes())
            done += n
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def make_files(flat, outdir, size):
    """One file per sample of the flat file (sample i: DIR/iiiiii/iiiiiiiii.bin,
    1000 to a folder), written, synced."""
    total = os.path.getsize(flat)
    n = total // size
    tmp = outdir + ".part"
    os.makedirs(tmp, exist_ok=True)
    with open(flat, "rb", buffering=0) as f:
        for i in range(n):
            d = os.path.join(tmp, f"{i // 1000:06d}")
            if i % 1000 == 0:
                os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"{i:09d}.bin"), "wb") as g:
                g.write(f.read(size))
    os.sync()
    os.rename(tmp, outdir)


def file_list(root):
    out = []
    for d in sorted(os.listdir(root)):
        sub = os.path.join(root, d)
        out.extend(os.path.join(sub, x) for x in sorted(os.listdir(sub)))
    return out


# ---- processes: CPU and PSS -------------------------------------------------

def children_of(pid):
    """Live child pids of pid (every thread's /proc/PID/task/TID/children)."""
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids.extend(int(x) for x in f.read().split())
            except OSError:
                pass
    except OSError:
        pass
    return kids


def pss_of(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) << 10
    except OSError:
        pass
    return 0


class Sampler:
    """Samples the sum of PSS of this process and its descendants every
    interval seconds on a thread of its own; its own CPU time is kept so
    the run's CPU figure can leave it out."""

    def __init__(self, interval):
        self.interval = interval
        self.peak = 0
        self.peak_procs = 0
        self.samples = 0
        self.cpu = 0.0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)

    def sample(self):
        me = os.getpid()
        pids, todo = [me], [me]
        while todo:
            k = children_of(todo.pop())
            pids.extend(k)
            todo.extend(k)
        total = sum(pss_of(p) for p in pids)
        self.samples += 1
        if total > self.peak:
            self.peak, self.peak_procs = total, len(pids)

    def _loop(self):
        t0 = time.thread_time()
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)
        self.cpu = time.thread_time() - t0

    def start(self):
        self._t.start()

    def stop(self):
        self._stop.set()
        self._t.join()


def cpu_now():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


# ---- the consumer -----------------------------------------------------------

class Consumer:
    """What the training loop does with a batch: one byte per 4 KiB summed
    (on the CPU, or on the GPU after the copy), then with a GPU a step of
    fixed GPU time.  GPU timing: an event after each step; step times are
    the intervals between consecutive steps' end events, in steady state
    (the first steps left out, gpu_figures); the GPU computes n x step / the
    span of those n steps."""

    def __init__(self, torch, device, step_us, cycles_per_us):
        self.torch = torch
        self.device = device
        self.sum = 0
        self.ends = []
        self.first = None
        self.cycles = int(step_us * cycles_per_us) if device == "cuda" else 0
        self.queued = []

    def __call__(self, t):
        torch = self.torch
        if self.device == "cuda":
            if t.device.type != "cuda":
                t = t.to("cuda", non_blocking=True)
            if self.first is None:
                self.first = torch.cuda.Event(enable_timing=True)
                self.first.record()
            x = t.reshape(-1)[::SAMPLE_TOUCH].sum()
            torch.cuda._sleep(self.cycles)
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
            self.ends.append(ev)
            self.queued.append((x, ev))
            # At most two steps queued ahead of the GPU, as a training loop
            # that reads its loss every step or two.
            if len(self.queued) > 2:
                self.queued.pop(0)[1].synchronize()
        else:
            self.sum += int(t.reshape(-1)[::SAMPLE_TOUCH].sum())

    def gpu_figures(self, step_us):
        if self.device != "cuda" or not self.ends:
            return None
        self.torch.cuda.synchronize()
        # Steady state, as SPDL's headspace runs are read: the first steps
        # (CUDA's lazy set-up, the loader's first window, the allocator's
        # first blocks) are left out, 2% of them and at least 8; the span is
        # from the end of the last one left out to the end of the last step.
        skip = min(max(8, len(self.ends) // 50), len(self.ends) - 2) if len(self.ends) > 2 else 0
        ends = self.ends[skip:]
        steps = [a.elapsed_time(b) * 1000 for a, b in zip(ends, ends[1:])]
        wall = ends[0].elapsed_time(ends[-1]) * 1000 if skip else self.first.elapsed_time(ends[-1]) * 1000
        steps.sort()
        p99 = steps[min(len(steps) - 1, int(0.99 * len(steps)))] if steps else 0
        n = len(steps) if skip else len(self.ends)
        return {"steps": n, "steps_left_out": skip, "step_us": step_us, "wall_us": wall,
                "gpu_busy_fraction": n * step_us / wall if wall else 0,
                "p50_step_us": steps[len(steps) // 2] if steps else 0, "p99_step_us": p99}


def calibrate_sleep(torch):
    """torch.cuda._sleep cycles per microsecond on this GPU (a 20 ms spin timed
    with events, the median of three)."""
    rates = []
    for _ in range(3):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        torch.cuda._sleep(20_000_000)
        b.record()
        b.synchronize()
        rates.append(20_000_000 / (a.elapsed_time(b) * 1000))
    return sorted(rates)[1]


# ---- the tools ----------------------------------------------------------------

def torch_loader(a, torch):
    from torch.utils.data import DataLoader, Dataset

    size = a.sample_size

    class FlatDataset(Dataset):
        """Sample i: size bytes at i * size of one flat file, one pread."""

        def __init__(self, path):
            self.path = path
            self.n = os.path.getsize(path) // size
            self.fd = None
            self.pid = None

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            if self.pid != os.getpid():  # a worker opens its own descriptor
                self.fd, self.pid = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC), os.getpid()
            buf = bytearray(size)
            if os.preadv(self.fd, [buf], i * size) != size:
                raise IOError(f"{self.path}: short read of sample {i}")
            return torch.frombuffer(buf, dtype=torch.uint8)

    class FilesDataset(Dataset):
        """Sample i: the i-th file (sorted), opened, read, closed."""

        def __init__(self, root):
            self.files = file_list(root)

        def __len__(self):
            return len(self.files)

        def __getitem__(self, i):
            buf = bytearray(size)
            with open(self.files[i], "rb", buffering=0) as f:
                if f.readinto(buf) != size:
                    raise IOError(f"{self.files[i]}: short read")
            return torch.frombuffer(buf, dtype=torch.uint8)

    kind, path = a.data.split(":", 1)
    ds = FlatDataset(path) if kind == "flat" else FilesDataset(path)
    g = torch.Generator()
    g.manual_seed(a.seed)
    kw = {}
    if a.workers > 0:
        kw = {"persistent_workers": bool(a.persistent), "prefetch_factor": a.prefetch}
    return DataLoader(ds, batch_size=a.batch_size, shuffle=True, generator=g, num_workers=a.workers,
                      pin_memory=bool(a.pin), drop_last=False, **kw), len(ds)


def run_torch_like(a, torch, make_iter, nsamples, consumer):
    """Epochs (or a sample limit) over make_iter(), timed; returns the record."""
    want = a.samples or nsamples * a.epochs
    sampler = Sampler(a.monitor_interval)
    cpu0 = cpu_now()
    sampler.start()
    got = nbytes = batches = 0
    wait = 0.0
    t0 = time.perf_counter()
    epoch = 0
    while got < want:
        it = make_iter(epoch)
        epoch += 1
        before = got
        while got < want:
            w0 = time.perf_counter()
            try:
                t = next(it)
            except StopIteration:
                break
            wait += time.perf_counter() - w0
            consumer(t)
            got += t.shape[0] if t.dim() > 1 else 1
            nbytes += t.numel() * t.element_size()
            batches += 1
        del it  # joins non-persistent workers: their CPU lands in RUSAGE_CHILDREN
        if got == before:
            die("an epoch delivered nothing", 3)
    if a.device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    return {"samples": got, "bytes": nbytes, "batches": batches, "seconds": seconds, "wait_s": wait,
            "epochs_started": epoch}, sampler, cpu0


def finish(rec, sampler, cpu0, keep_alive=None):
    """CPU and memory of the run, after every worker is gone."""
    del keep_alive
    import gc
    gc.collect()
    sampler.stop()
    cpu1 = cpu_now()
    rec["cpu_self_s"] = cpu1[0] - cpu0[0]
    rec["cpu_children_s"] = cpu1[1] - cpu0[1]
    rec["sampler_cpu_s"] = sampler.cpu
    rec["cpu_s"] = rec["cpu_self_s"] + rec["cpu_children_s"] - sampler.cpu
    rec["peak_pss_sum_bytes"] = sampler.peak
    rec["peak_processes"] = sampler.peak_procs
    rec["pss_samples"] = sampler.samples
    return rec


def figures(rec):
    gb = rec["bytes"] / 1e9
    rec["samples_per_s"] = rec["samples"] / rec["seconds"]
    rec["gb_per_s"] = gb / rec["seconds"]
    rec["cpu_s_per_gb"] = rec["cpu_s"] / gb if gb else None
    rec["wait_percent"] = 100 * rec["wait_s"] / rec["seconds"]
    return rec


def cmd_run(a):
    rec = {"tool": a.tool, "data": a.data, "sample_size": a.sample_size, "batch_size": a.batch_size,
           "seed": a.seed, "device": a.device, "cache": a.cache}
    if a.tool == "gpufeed-cli":
        return run_gpufeed_cli(a, rec)
    import torch
    if a.device == "cuda" and not torch.cuda.is_available():
        die("--device cuda: torch.cuda.is_available() is False", 4)
    cycles = calibrate_sleep(torch) if a.device == "cuda" else 0
    if a.device == "cuda":
        rec["sleep_cycles_per_us"] = cycles
    consumer = Consumer(torch, a.device, a.step_us, cycles)
    if a.tool == "torch":
        rec.update({"workers": a.workers, "pin_memory": bool(a.pin), "persistent_workers": bool(a.persistent),
                    "prefetch_factor": a.prefetch if a.workers else None})
        loader, n = torch_loader(a, torch)
        out, sampler, cpu0 = run_torch_like(a, torch, lambda e: iter(loader), n, consumer)
        rec.update(out)
        if getattr(loader, "_iterator", None) is not None:  # persistent workers: join them now
            loader._iterator._shutdown_workers()
        rec = finish(rec, sampler, cpu0, loader)
    elif a.tool == "resident":
        # SPDL's headspace: the same loop fed from one batch already in GPU
        # memory, no loader at all.
        t = torch.zeros((a.batch_size, a.sample_size), dtype=torch.uint8, device=a.device)
        n = a.samples or a.batch_size * 64

        def epoch_iter(e):
            return iter([t] * (n // a.batch_size))
        out, sampler, cpu0 = run_torch_like(a, torch, epoch_iter, n, consumer)
        rec.update(out)
        rec = finish(rec, sampler, cpu0)
    elif a.tool == "gpufeed":
        import gpufeed
        rec["threads"] = a.threads
        kind, path = a.data.split(":", 1)
        loader = gpufeed.Loader(path, batch_size=a.batch_size, seed=a.seed, threads=a.threads,
                                device="cuda:0" if a.device == "cuda" else "cpu",
                                buffered=(a.cache == "warm"))
        n = loader.samples_per_epoch

        def epoch_iter(e):
            # Each batch released when the loop asks for the next, after
            # the consumer's work on it is queued (docs/python.md).
            loader.set_epoch(e)
            for b in loader:
                with b:
                    yield torch.from_dlpack(b)
        out, sampler, cpu0 = run_torch_like(a, torch, epoch_iter, n, consumer)
        rec.update(out)
        rec = finish(rec, sampler, cpu0, loader)
    else:
        die(f"--tool: unknown tool {a.tool}")
    if a.device == "cuda":
        rec["gpu"] = consumer.gpu_figures(a.step_us)
    return figures(rec)


def run_gpufeed_cli(a, rec):
    """gpufeed's loader through `gpufeed bench loader` (its own C consumer:
    one word of every 4 KiB read, batches in host memory), before the
    Python binding."""
    kind, path = a.data.split(":", 1)
    cmd = [a.gpufeed, "bench", "loader", path, "--batch-size", str(a.batch_size), "--threads", str(a.threads),
           "--seed", str(a.seed), "--repeats", "1", "--json", "--quiet", "--" + a.cache]
    cmd += ["--samples", str(a.samples)] if a.samples else ["--epochs", str(a.epochs)]
    if a.device == "cuda":
        cmd += ["--gpu", "0"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}", 3)
    j = json.loads(p.stdout)
    r = j["runs"][0]
    rec.update({"threads": a.threads, "command": cmd, "samples": r["samples"], "bytes": r["bytes"],
                "batches": r["batches"], "seconds": r["seconds"], "wait_s": r["wait_s"],
                "cpu_s": r["cpu_user_s"] + r["cpu_sys_s"], "peak_pss_sum_bytes": j["memory"]["peak_pss_bytes"],
                "peak_rss_bytes": j["memory"]["peak_rss_bytes"], "peak_processes": 1,
                "bench_findings": j["findings"]})
    return figures(rec)


# ---- the feed measurement (GPU) ---------------------------------------------------

def gbs_of_bench_io(path):
    try:
        v = json.load(open(path)).get("gb_per_s")
        return v if isinstance(v, (int, float)) else None
    except (OSError, ValueError):
        return None


def cmd_feed(a):
    """A training step of fixed GPU time whose demand is half of min(disk,
    host-to-GPU): gpufeed's loader (cold, O_DIRECT, batches copied to the
    GPU) and PyTorch's best setting feed it; beside them the same loop fed
    from a batch already in GPU memory (SPDL's headspace run).  Writes
    OUT/feed.json."""
    import glob
    import statistics
    disk = [g for g in (gbs_of_bench_io(p) for p in glob.glob(f"{a.out}/bench-io-cold-*.json")) if g]
    h2d = None
    p = subprocess.run([a.gpufeed, "bench", "h2d", "--gpu", "0", "--size", "256M", "--repeats", "3", "--json",
                        "--quiet"], capture_output=True, text=True)
    try:
        for pt in json.loads(p.stdout).get("points", []):
            if pt.get("direction") == "host_to_device" and pt.get("memory") == "pinned":
                h2d = pt.get("median")
                break
    except ValueError:
        pass
    limits = [x for x in (statistics.median(disk) if disk else None, h2d) if x]
    if not limits:
        die("feed: neither the disk's rate (bench io) nor the host-to-GPU rate (bench h2d) is known", 3)
    limit = min(limits)
    batch_bytes = a.batch_size * a.sample_size
    step_us = batch_bytes / (0.5 * limit * 1e9) * 1e6
    samples = max(a.batch_size * 200, min(os.path.getsize(a.flat) // a.sample_size, a.batch_size * 2000))
    w, pin, pers, pf = a.torch_setting.split()
    base = [sys.executable, __file__, "run", "--device", "cuda", "--step-us", f"{step_us:.3f}",
            "--sample-size", str(a.sample_size), "--batch-size", str(a.batch_size), "--samples", str(samples),
            "--gpufeed", a.gpufeed]
    runs = {
        "resident": base + ["--tool", "resident", "--data", "none:"],
        "gpufeed": base + ["--tool", a.tool, "--data", f"gpufeed:{a.data}", "--cache", "cold"],
        "torch-best": base + ["--tool", "torch", "--data", f"flat:{a.flat}", "--cache", "cold", "--workers", w,
                              "--pin", "1", "--persistent", pers, "--prefetch", pf],
    }
    res = {"limit_gb_per_s": limit, "disk_gb_per_s": disk, "h2d_gb_per_s": h2d, "step_us": step_us,
           "demand_fraction_of_limit": 0.5, "samples": samples, "runs": {}}
    for name, cmd in runs.items():
        if name != "resident":
            subprocess.run(["sh", "-c", "sync; echo 1 > /proc/sys/vm/drop_caches"], check=False)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            res["runs"][name] = {"error": p.stderr.strip()[-500:]}
            continue
        res["runs"][name] = json.loads(p.stdout)
    with open(f"{a.out}/feed.json", "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps({k: v for k, v in res.items() if k != "runs"}))


# ---- the summary ---------------------------------------------------------------------

def records(out):
    import glob
    import re
    recs = {}
    for p in sorted(glob.glob(f"{out}/*-*-*.json")):
        m = re.match(r"(torch-best|torch-nw2|torch-files|gpufeed-t1|gpufeed-t16|gpufeed|bench-io)-"
                     r"((?:warm|cold)-[0-9A-Za-z]+|ci)-([0-9]+)\.json$", os.path.basename(p))
        if not m:
            continue
        try:
            r = json.load(open(p))
        except ValueError:
            continue
        if m.group(1) == "bench-io":
            r = {"gb_per_s": r.get("gb_per_s")}
        r["run"] = int(m.group(3))
        recs.setdefault((m.group(2), m.group(1)), []).append(r)
    for v in recs.values():
        v.sort(key=lambda r: r["run"])
    return recs


def cmd_summary(a):
    import statistics
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from compare_verdict import MIN_RUNS, at_least, at_most, interval_text, overall, short_note, verdict
    recs = records(a.out)
    units = sorted({u for u, _ in recs}, key=lambda u: (u == "ci", u.split("-")[0] == "cold", u))
    text, rows = [], []

    def paired(unit, ta, tb, key):
        ra = {r["run"]: r.get(key) for r in recs.get((unit, ta), [])}
        rb = {r["run"]: r.get(key) for r in recs.get((unit, tb), [])}
        runs = sorted(set(ra) & set(rb))
        return [ra[i] for i in runs if ra[i] is not None and rb[i] is not None], \
               [rb[i] for i in runs if ra[i] is not None and rb[i] is not None]

    def row(target, unit, ta, tb, key, bar, info=False):
        a_, b_ = paired(unit, ta, tb, key)
        r = {"target": target, "unit": unit, "figure": key, "against": tb}
        r.update(verdict(a_, b_, info=info, bar=bar, other="other"))
        rows.append(r)
        ratio = f"{r['ratio']:.3f}" if "ratio" in r else "-"
        text.append(f"  {target:44} {ta}/{tb} {key}: ratio {ratio} (95%: {interval_text(r)}) "
                    f"[{r.get('bar', 'information')}] {r['result']}{short_note(r)}")

    text.append("Per unit and tool: median (min .. max) over the runs")
    for u in units:
        text.append(f"== {u}")
        for (uu, t), rs in sorted(recs.items()):
            if uu != u:
                continue
            parts = []
            for key, fmt in (("samples_per_s", ".0f"), ("gb_per_s", ".3f"), ("cpu_s_per_gb", ".3f"),
                             ("wait_percent", ".1f"), ("peak_pss_sum_bytes", ".0f")):
                vals = [r[key] for r in rs if r.get(key) is not None]
                if vals:
                    parts.append(f"{key} {statistics.median(vals):{fmt}} ({min(vals):{fmt}} .. {max(vals):{fmt}})")
            text.append(f"  {t:12} {len(rs)} runs  " + "  ".join(parts))
    text.append("")
    text.append("Targets (ratios gpufeed / other of the medians over paired runs):")
    for u in units:
        mode, _, tag = u.partition("-")
        if mode == "warm":
            row(f"warm {tag}: >= 2x PyTorch best samples/s", u, "gpufeed", "torch-best", "samples_per_s", at_least(2))
            row(f"warm {tag}: <= 0.5x PyTorch best CPU s/GB", u, "gpufeed", "torch-best", "cpu_s_per_gb", at_most(0.5))
            row(f"warm {tag}: sum-of-PSS beside PyTorch best", u, "gpufeed", "torch-best", "peak_pss_sum_bytes",
                at_most(1), info=True)
            if (u, "gpufeed-t16") in recs:
                a16, a1 = paired(u, "gpufeed-t16", "gpufeed-t1", "peak_pss_sum_bytes")
                growth = [(x - y) / 2**20 for x, y in zip(a16, a1)]
                n = len(growth)
                if n:
                    med = statistics.median(growth)
                    res = "SHORT" if n < MIN_RUNS else "PASS" if med <= 64 else "FAIL"
                else:
                    med, res = None, "MISSING"
                rows.append({"target": "memory growth 1 -> 16 threads <= 64 MiB", "unit": u,
                             "figure": "peak_pss_sum_bytes", "paired_runs": n, "growth_mib": growth,
                             "median_growth_mib": med, "result": res, "bar": "median growth <= 64 MiB",
                             "bar_met": med is not None and med <= 64})
                text.append(f"  {'memory growth 1 -> 16 threads <= 64 MiB':44} gpufeed-t16 - gpufeed-t1 peak "
                            f"sum-of-PSS: median {med if med is None else round(med, 1)} MiB over {n} runs "
                            f"({', '.join(f'{g:.1f}' for g in growth)}) {res}")
        elif mode == "cold":
            row(f"cold {tag}: >= 0.9x bench io seq O_DIRECT GB/s", u, "gpufeed", "bench-io", "gb_per_s", at_least(0.9))
            if (u, "torch-files") in recs:
                row(f"cold {tag}: >= 3x PyTorch per-sample files GB/s", u, "gpufeed", "torch-files", "gb_per_s",
                    at_least(3))
            row(f"cold {tag}: beside PyTorch best (flat pread)", u, "gpufeed", "torch-best", "gb_per_s", at_least(1),
                info=True)
        elif u == "ci":
            row("ci: >= 2x DataLoader(num_workers=2) samples/s", u, "gpufeed", "torch-nw2", "samples_per_s", at_least(2))
            row("ci: <= 0.5x DataLoader(num_workers=2) CPU s/GB", u, "gpufeed", "torch-nw2", "cpu_s_per_gb", at_most(0.5))
    feed = None
    if os.path.exists(f"{a.out}/feed.json"):
        feed = json.load(open(f"{a.out}/feed.json"))
        base = feed["runs"].get("resident", {}).get("gpu") or {}
        for name in ("gpufeed", "torch-best"):
            g = (feed["runs"].get(name) or {}).get("gpu")
            if not g or not base:
                rows.append({"target": f"feed ({name})", "result": "INFO" if name != "gpufeed" else "MISSING",
                             "paired_runs": 0})
                text.append(f"  feed ({name}): no figure")
                continue
            # The GPU's own step time is the resident run's median step (the
            # calibrated spin plus the consumer's sum, nothing to wait for):
            # busy = steps x that / the fed run's wall time on the GPU.
            busy = g["steps"] * base["p50_step_us"] / g["wall_us"] if g["wall_us"] else 0
            p99r = g["p99_step_us"] / base["p99_step_us"]
            ok = busy >= 0.99 and p99r <= 1.01
            res = "PASS" if ok else "FAIL"
            if name != "gpufeed":
                res = "INFO"
            rows.append({"target": f"feed ({name}): GPU busy >= 99%, p99 step within 1% of resident",
                         "gpu_busy_fraction": busy, "p99_ratio": p99r, "paired_runs": MIN_RUNS, "result": res,
                         "bar": "busy >= 0.99 and p99 ratio <= 1.01", "bar_met": ok})
            text.append(f"  feed ({name}): GPU busy {busy:.4f}, p99 step {g['p99_step_us']:.1f} us vs resident "
                        f"{base['p99_step_us']:.1f} us (ratio {p99r:.4f}) {res}")
    else:
        text.append("  feed: not measured (no GPU)")
    result, head = overall(rows)
    text += ["", head]
    with open(f"{a.out}/summary.txt", "w") as f:
        f.write("\n".join(text) + "\n")
    with open(f"{a.out}/summary.json", "w") as f:
        json.dump({"targets": rows, "result": result, "feed": feed and {k: v for k, v in feed.items() if k != "runs"}},
                  f, indent=1)
    print("\n".join(text))
    return 0 if result == "PASS" else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("make-flat")
    f.add_argument("file")
    f.add_argument("bytes", type=int)
    m = sub.add_parser("make-files")
    m.add_argument("flat")
    m.add_argument("dir")
    m.add_argument("sample_size", type=int)
    r = sub.add_parser("run")
    r.add_argument("--tool", required=True, choices=["torch", "gpufeed", "gpufeed-cli", "resident"])
    r.add_argument("--data", required=True, help="flat:FILE, files:DIR (torch) or gpufeed:DIR")
    r.add_argument("--sample-size", type=int, required=True)
    r.add_argument("--batch-size", type=int, default=256)
    r.add_argument("--workers", type=int, default=0)
    r.add_argument("--pin", type=int, default=0)
    r.add_argument("--persistent", type=int, default=0)
    r.add_argument("--prefetch", type=int, default=2)
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--samples", type=int, default=0, help="stop after this many samples (0: whole epochs)")
    r.add_argument("--epochs", type=int, default=1)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--cache", choices=["warm", "cold"], default="warm")
    r.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    r.add_argument("--step-us", type=float, default=0.0, help="GPU time of a training step (cuda)")
    r.add_argument("--monitor-interval", type=float, default=0.25)
    r.add_argument("--gpufeed", default="build/gpufeed")
    fd = sub.add_parser("feed")
    fd.add_argument("--out", required=True)
    fd.add_argument("--gpufeed", required=True)
    fd.add_argument("--tool", required=True)
    fd.add_argument("--data", required=True)
    fd.add_argument("--flat", required=True)
    fd.add_argument("--sample-size", type=int, required=True)
    fd.add_argument("--batch-size", type=int, required=True)
    fd.add_argument("--torch-setting", required=True, help="'workers pin persistent prefetch'")
    sm = sub.add_parser("summary")
    sm.add_argument("out")
    a = ap.parse_args()
    if a.cmd == "summary":
        sys.exit(cmd_summary(a))
    if a.cmd == "feed":
        return cmd_feed(a)
    if a.cmd == "make-flat":
        make_flat(a.file, a.bytes)
    elif a.cmd == "make-files":
        make_files(a.flat, a.dir, a.sample_size)
    else:
        if ":" not in a.data:
            die("--data: want flat:FILE, files:DIR or gpufeed:DIR")
        print(json.dumps(cmd_run(a)))


if __name__ == "__main__":
    main()
