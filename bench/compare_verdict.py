"""The verdict every bench/compare-*.sh gives a matching figure (their
summaries import it): the median over at least MIN_RUNS interleaved runs of
each tool, their ratio gpufeed / other tool against a bar (issue 10's
|ratio - 1| <= 0.02 for nvbandwidth; at least or at most a ratio for fio),
and beside it how far the ratio could move by chance: a 95% interval from
the runs themselves.  A figure is PASS, FAIL, SHORT (a ratio, but fewer
paired runs than the bar needs), MISSING (a tool gave no run of it) or INFO
(shown beside the bar, never judged)."""
import math
import random
import statistics
from collections import namedtuple

MIN_RUNS = 5
RESAMPLES = 2000

# text: how the summaries name the bar; ok(ratio): whether a ratio meets it.
Bar = namedtuple("Bar", "text ok")
WITHIN_2_PERCENT = Bar("|median ratio - 1| <= 0.02", lambda r: abs(r - 1) <= 0.02)


def at_least(x):
    """A bar for a figure where more is better (GB/s, IOPS)."""
    return Bar(f"median ratio >= {x:.2f}", lambda r: r >= x)


def at_most(x):
    """A bar for a figure where less is better (CPU seconds per GB)."""
    return Bar(f"median ratio <= {x:.2f}", lambda r: r <= x)


def verdict(gpufeed_runs, other_runs, info=False, bar=WITHIN_2_PERCENT, other="nvbandwidth"):
    """A summary row's fields from each tool's per-run figures.  The runs
    interleave (one of each tool per run): a run cut short leaves one tool a
    run ahead, unpaired, so the medians are of the paired runs.  info: a
    figure shown beside the bar (latency), never PASS or FAIL.  other: the
    other tool's name in the row's keys (OTHER_median)."""
    n = min(len(gpufeed_runs), len(other_runs))
    if not n:
        return {"paired_runs": 0, "result": "INFO" if info else "MISSING"}
    ma = statistics.median(gpufeed_runs[:n])
    mb = statistics.median(other_runs[:n])
    ratio = ma / mb if mb else math.inf
    result = ("INFO" if info else "SHORT" if n < MIN_RUNS
              else "PASS" if bar.ok(ratio) else "FAIL")
    row = {"paired_runs": n, "gpufeed_median": ma, f"{other}_median": mb,
           "ratio": ratio, "result": result}
    if not info:
        row["bar"] = bar.text
        row["bar_met"] = bar.ok(ratio)
    interval = ratio_interval(gpufeed_runs[:n], other_runs[:n])
    if interval:
        row["ratio_95"] = interval
    return row


def ratio_interval(a, b):
    """The middle 95% of the ratio of medians over RESAMPLES resamplings of
    the paired runs (a bootstrap), or None under 2 pairs.  Pairs, not each
    tool apart: the two runs of a pair ran seconds apart on the same machine
    state, so drift the pair shares is not counted as noise.  A fixed seed:
    the same runs always give the same summary.  An interval inside the bar
    says the ratio is that close; one wider than the bar says the runs are
    too noisy to tell, whichever side the median ratio fell."""
    n = len(a)
    if n < 2:
        return None
    rng = random.Random(10)
    ratios = []
    for _ in range(RESAMPLES):
        pick = [rng.randrange(n) for _ in range(n)]
        mb = statistics.median(b[i] for i in pick)
        ratios.append(statistics.median(a[i] for i in pick) / mb if mb else math.inf)
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


def overall(rows):
    """The summary's verdict over its rows: (result, the text line's
    start).  PASS: every judged figure PASS.  SHORT: none FAIL or MISSING,
    but some have fewer paired runs than the bar needs; their ratios are
    counted beside it, so a short run still says how close it came.  FAIL
    otherwise, also when no figure matched at all."""
    judged = [r for r in rows if r["result"] != "INFO"]
    count = {k: sum(r["result"] == k for r in judged) for k in ("PASS", "FAIL", "SHORT", "MISSING")}
    matched = len(judged) - count["MISSING"]
    runs = max([r["paired_runs"] for r in judged] or [0])
    if matched and count["PASS"] == len(judged):
        return "PASS", f"ALL PASS ({matched} matching figures, {runs} paired runs)"
    if matched and count["SHORT"] and not count["FAIL"] and not count["MISSING"]:
        inside = sum(r["result"] == "SHORT" and r["bar_met"] for r in judged) + count["PASS"]
        return "SHORT", (f"SHORT ({matched} matching figures, at most {runs} paired runs: "
                         f"the bar needs {MIN_RUNS}; {inside} of {matched} within it so far)")
    parts = [f"{count[k]} {k}" for k in ("FAIL", "MISSING", "SHORT") if count[k]]
    return "FAIL", f"NOT ALL PASS ({matched} matching figures: {', '.join(parts) or 'none matched'})"
