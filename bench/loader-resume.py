#!/usr/bin/python3
"""How long gpufeed's loader takes to resume, and whether it resumes exactly
(issue 20's resume target: exact, <= 100 ms, the same sample sequence on 1, 2
and 4 ranks).

For each world size W in --worlds and each rank, REPEATS times: open a
gpufeed.Loader, load_state_dict() a state saved at a late global position
(--position, epoch --epoch, saved by 4 ranks), and time load_state_dict plus
the first batch (what a restarted job waits for before its first step);
--cold drops the page cache before each (root).  Then the global sequence:
rank r's i-th sample must be the one at global position P + r + i*W, the
same whatever W, and the same as a loader that read from the start of the
epoch up to P and went on (the reference, one rank).

  bench/loader-resume.py DATASET [--batch-size 256] [--position N]
                         [--worlds 1,2,4] [--repeats 5] [--cold] [--json]

Prints one line per (W, rank) with the median and max resume time, then
`exact: yes|no` and `RESULT {json}` with the raw times; exit 0 when every
resume is exact and its median time <= --bar-ms (100), 1 otherwise.
"""
import argparse
import json
import os
import statistics
import sys
import time

try:  # an installed gpufeed or PYTHONPATH's, else the tree's (make python)
    import gpufeed
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import gpufeed  # noqa: E402


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("1\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dataset")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--position", type=int, default=None, help="global position (default: 60%% of the epoch)")
    p.add_argument("--epoch", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--worlds", default="1,2,4")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--cold", action="store_true", help="drop the page cache before each resume (root)")
    p.add_argument("--bar-ms", type=float, default=100.0)
    a = p.parse_args()
    worlds = [int(w) for w in a.worlds.split(",")]
    n = len(gpufeed.Dataset(a.dataset))
    pos = a.position if a.position is not None else (n * 6 // 10) // (4 * a.batch_size) * (4 * a.batch_size)
    state = {"seed": a.seed, "epoch": a.epoch, "position": pos, "world_size": 4, "batch_size": a.batch_size}

    # The reference: one rank reads the epoch from its start up to pos, then goes on.
    ref = gpufeed.Loader(a.dataset, batch_size=a.batch_size, rank=0, world_size=1, seed=a.seed, buffered=True)
    ref.set_epoch(a.epoch)
    want = []
    seen = 0
    for b in ref:
        s = [int(x) for x in b.samples]
        b.release()
        if seen + len(s) > pos:
            want.extend(s[max(0, pos - seen):])
        seen += len(s)
        if len(want) >= 4 * a.batch_size:
            break
    ref.close()

    rows, exact = [], True
    for w in worlds:
        for r in range(w):
            times = []
            for _ in range(a.repeats):
                if a.cold:
                    drop_caches()
                l = gpufeed.Loader(a.dataset, batch_size=a.batch_size, rank=r, world_size=w, seed=a.seed)
                t0 = time.perf_counter()
                l.load_state_dict(state)
                b = next(iter(l))
                got = [int(x) for x in b.samples]
                times.append((time.perf_counter() - t0) * 1e3)
                b.release()
                l.close()
                expect = want[r::w][:len(got)]
                if got != expect:
                    exact = False
                    print("rank %d of %d: resumed at %s..., the sequence says %s..." % (r, w, got[:4], expect[:4]))
            rows.append({"world_size": w, "rank": r, "ms": times, "median_ms": statistics.median(times),
                         "max_ms": max(times)})
            print("W=%d rank %d: resume + first batch median %.1f ms, max %.1f ms (%d repeats%s)" % (
                w, r, statistics.median(times), max(times), a.repeats, ", cold" if a.cold else ""))
    ok = exact and all(x["median_ms"] <= a.bar_ms for x in rows)
    print("exact: %s; every median <= %.0f ms: %s" % ("yes" if exact else "no", a.bar_ms,
                                                     "yes" if all(x["median_ms"] <= a.bar_ms for x in rows) else "no"))
    print("RESULT " + json.dumps({"dataset": a.dataset, "samples": n, "state": state, "cold": a.cold,
                                  "exact": exact, "rows": rows}))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
