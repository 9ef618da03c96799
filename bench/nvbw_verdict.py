"""The verdict bench/compare-{h2d,p2p}-nvbandwidth.sh give each matching
figure (their summaries import it): issue 10's bar, |median ratio - 1| <= 0.02
over at least 5 interleaved runs of each tool."""
import statistics

BAR = 0.02
MIN_RUNS = 5


def verdict(gpufeed_runs, nvbandwidth_runs, info=False):
    """A summary row's fields from each tool's per-run figures.  The runs
    interleave (nvbandwidth, gpufeed, ...): a run cut short leaves one tool a
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
    return {"paired_runs": n, "gpufeed_median": ma, "nvbandwidth_median": mb,
            "ratio": ratio, "result": result}


def short_note(row):
    """What the text summary adds to a SHORT row."""
    if row["result"] != "SHORT":
        return ""
    return f" ({row['paired_runs']} paired runs; the bar needs {MIN_RUNS})"
