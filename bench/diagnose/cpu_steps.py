"""A fixed CPU job for diagnose's overhead: STEPS steps of the same
arithmetic, gpufeed.step() after each; prints the step times' median, mean
and 90th percentile, and the median of each step's CPU time, as JSON.  Under `gpufeed diagnose` the markers publish;
alone gpufeed.step() does nothing (GPUFEED_DIAGNOSE unset)."""
import json
import statistics
import sys
import time

import gpufeed

steps, work = int(sys.argv[1]), int(sys.argv[2])
times, cpu = [], []
for _ in range(steps):
    t0, c0 = time.perf_counter(), time.thread_time()
    x = 0
    for i in range(work):
        x += i * i
    gpufeed.step()
    times.append(time.perf_counter() - t0)
    cpu.append(time.thread_time() - c0)
times.sort()
# the thread's CPU time a step: what the step costs, whatever else the
# machine runs (its wall time also counts the waits for a CPU)
print(json.dumps({"steps": steps, "median_s": statistics.median(times), "mean_s": statistics.fmean(times),
                  "p90_s": times[int(0.9 * (len(times) - 1))], "cpu_median_s": statistics.median(cpu)}))
