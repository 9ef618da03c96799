"""The verdict bench/compare-{h2d,p2p}-nvbandwidth.sh give each matching
figure (their summaries import it): issue 10's bar, |median ratio - 1| <= 0.02
over at least 5 interleaved runs of each tool, and beside it how far the
ratio could move by chance: a 95% interval from the runs themselves."""
import random
import statistics

BAR = 0.02
MIN_RUNS = 5
RESAMPLES = 2000


def verdict(gpufeed_runs, nvbandwidth_runs, info=False):
    """A summary row's fields from each tool's per-run figures.  The runs
    interleave (one of each tool per run): a run cut short leaves one tool a
    run ahead, unpaired, so the medians are of the paired runs.  info: a
    figure shown beside the bar (latency), never PASS or FAIL."""
    n = min(len(gpufeed_runs), len(nvbandwidth_runs))
    if not n:
        return {"paired_runs": 0, "result": "INFO" if info else "MISSING"}
    ma = statistics.median(gpufeed_runs[:n])
    mb = statistics.median(nvbandwidth_runs[:n])
    ratio = ma / mb if mb else float("inf")
    result = ("INFO" if info else "SHORT" if n < MIN_RUNS
              else "PASS" if abs(ratio - 1) <= BAR else "FAIL")
    row = {"paired_runs": n, "gpufeed_median": ma, "nvbandwidth_median": mb,
           "ratio": ratio, "result": result}
    interval = ratio_interval(gpufeed_runs[:n], nvbandwidth_runs[:n])
    if interval:
        row["ratio_95"] = interval
    return row


def ratio_interval(a, b):
    """The middle 95% of the ratio of medians over RESAMPLES resamplings of
    the paired runs (a bootstrap), or None under 2 pairs.  Pairs, not each
    tool apart: the two runs of a pair ran seconds apart on the same machine
    state, so drift the pair shares is not counted as noise.  A fixed seed:
    the same runs always give the same summary.  An interval inside
    1 +- BAR says the ratio is that close; one wider than the bar says the
    runs are too noisy to tell, whichever side the median ratio fell."""
    n = len(a)
    if n < 2:
        return None
    rng = random.Random(10)
    ratios = []
    for _ in range(RESAMPLES):
        pick = [rng.randrange(n) for _ in range(n)]
        mb = statistics.median(b[i] for i in pick)
        ratios.append(statistics.median(a[i] for i in pick) / mb if mb else float("inf"))
    ratios.sort()
    return [ratios[int(0.025 * RESAMPLES)], ratios[int(0.975 * RESAMPLES) - 1]]


def interval_text(row):
    """The text summaries' column for ratio_95: "0.981-1.012", or "-"."""
    lo_hi = row.get("ratio_95")
    return f"{lo_hi[0]:.3f}-{lo_hi[1]:.3f}" if lo_hi else "-"


def short_note(row):
    """What the text summary adds to a SHORT row."""
    if row["result"] != "SHORT":
        return ""
    return f" ({row['paired_runs']} paired runs; the bar needs {MIN_RUNS})"
