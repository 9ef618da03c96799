"""bench/compare-fio.sh's figures: what fio's and gpufeed's JSON say about
one run, fio's best tuning chosen from its tuning runs, and the summary of
the measured runs (bench/compare_verdict.py judges each ratio).

  compare_fio.py check TOOL JSON SQPOLL      one run usable? prints its figures
  compare_fio.py tune-row OUT PAT SQ QD RC USER SYS JSON   a line of tuning.csv
  compare_fio.py tune-best OUT PAT           prints "QD SQPOLL" of the best
  compare_fio.py summary OUT                 summary.txt, summary.json, raw.csv

A measured run is a line of OUT/runs.tsv (bench/lib-compare.sh) whose run is
a number; its JSON is OUT/TOOL-PATTERN-RUN.json.  Exit 1 from check and
tune-row: the run is not usable (the reason on stdout); from summary: not
every figure PASS (a target missed, or SHORT)."""
import csv
import json
import re
import statistics
import sys

from compare_verdict import MIN_RUNS, at_least, at_most, interval_text, overall, short_note, verdict

FIO_TUNINGS = ("fio-default", "fio-best")
TOOLS = FIO_TUNINGS + ("gpufeed",)
# pattern -> title, the throughput figure the target is on, its bar
PATTERNS = {
    "seq": ("A: sequential read, 1 MiB, O_DIRECT", "gb_per_s", "GB/s", at_least(0.95)),
    "rand": ("B: random read, 4 KiB, O_DIRECT", "iops", "IOPS", at_least(0.90)),
}
# Outside CPU seconds per GB: a target for random reads, information for
# sequential ones (a few hundredths of a second per GB either way).
CPU_BAR = {"rand": at_most(1.00)}
FIELDS = ("gb_per_s", "iops", "p50_us", "p99_us", "cpu_user_s", "cpu_sys_s",
          "cpu_s_per_gb_outside", "cpu_s_per_gb_inside")


def fio_figures(doc):
    """fio --output-format=json: job 0's reads.  Inside CPU: fio's usr_cpu +
    sys_cpu (getrusage of the job thread only) over the runtime."""
    job = doc["jobs"][0]
    r = job["read"]
    secs = r["runtime"] / 1000
    if not r.get("io_bytes", 0) > 0 or not secs > 0:
        raise ValueError("no reads (want .jobs[0].read with io_bytes > 0)")
    pct = r.get("clat_ns", {}).get("percentile", {})
    us = lambda k: pct[k] / 1000 if k in pct else None
    return {"gb_per_s": r["bw_bytes"] / 1e9, "iops": r["iops"], "p50_us": us("50.000000"),
            "p99_us": us("99.000000"), "bytes": r["io_bytes"], "seconds": secs,
            "cpu_s_per_gb_inside": (job["usr_cpu"] + job["sys_cpu"]) / 100 * secs / (r["io_bytes"] / 1e9)}


def gpufeed_figures(doc):
    """gpufeed bench io --json, one point.  GB/s from bytes and seconds:
    its gb_per_s is rounded to 3 decimals."""
    for k in ("gb_per_s", "iops", "bytes", "seconds"):
        if not isinstance(doc.get(k), (int, float)):
            raise ValueError(f"no number {k}")
    if not doc["bytes"] > 0 or not doc["seconds"] > 0:
        raise ValueError("no bytes moved")
    return {"gb_per_s": doc["bytes"] / doc["seconds"] / 1e9, "iops": doc["iops"],
            "p50_us": doc.get("lat_p50_us"), "p99_us": doc.get("lat_p99_us"),
            "bytes": doc["bytes"], "seconds": doc["seconds"],
            "cpu_s_per_gb_inside": doc.get("cpu_s_per_gb")}


def gpufeed_point_problems(doc, sqpoll):
    """Where gpufeed's JSON says it ran another point than asked: a list of
    reasons (a note is not one: it is shown, the run kept)."""
    bad = []
    if doc.get("status", "ok") != "ok":
        bad.append(f"status {doc['status']}")
    if doc.get("engine_used", "uring") != "uring":
        bad.append(f"engine_used {doc['engine_used']} (fell back from io_uring)")
    if doc.get("direct_used", True) is not True:
        bad.append(f"direct_used {json.dumps(doc['direct_used'])} (not O_DIRECT)")
    if "sqpoll" in doc and doc["sqpoll"] != sqpoll:
        bad.append(f"sqpoll {json.dumps(doc['sqpoll'])}, asked {json.dumps(sqpoll)}")
    return bad


def figures(tool, path):
    with open(path) as f:
        doc = json.load(f)
    return gpufeed_figures(doc) if tool == "gpufeed" else fio_figures(doc)


def with_cpu(fig, user, sys_s):
    """The outside count: user + system seconds of the whole process
    (bench/lib-compare.sh's cmp_exec) per GB moved."""
    fig = dict(fig, cpu_user_s=float(user), cpu_sys_s=float(sys_s))
    fig["cpu_s_per_gb_outside"] = (fig["cpu_user_s"] + fig["cpu_sys_s"]) / (fig["bytes"] / 1e9)
    return fig


def line(fig):
    return (f"{fig['gb_per_s']:8.3f} GB/s {fig['iops']:10.0f} IOPS"
            + (f"  cpu {fig['cpu_s_per_gb_outside']:.3f} s/GB" if "cpu_s_per_gb_outside" in fig else ""))


def check(tool, path, sqpoll):
    try:
        fig = figures(tool, path)
        if tool == "gpufeed":
            with open(path) as f:
                doc = json.load(f)
            bad = gpufeed_point_problems(doc, sqpoll == "1")
            if bad:
                print("did not run the point asked for: " + "; ".join(bad))
                return 1
            if doc.get("note"):
                print(f"{line(fig)}  (note: {doc['note']})")
                return 0
    except (OSError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as e:
        print(f"no usable JSON in {path}: {e}")
        return 1
    print(line(fig))
    return 0


def fmt(v, spec):
    return "NA" if v is None else format(v, spec)


TUNING_HEAD = ("pattern", "sqpoll", "iodepth") + FIELDS + ("ok",)


def tune_row(out, pat, sq, qd, rc, user, sys_s, path):
    row = {"pattern": pat, "sqpoll": sq, "iodepth": qd, "ok": 0}
    ok = rc == "0"
    if ok:
        try:
            row.update(with_cpu(fio_figures(json.load(open(path))), user, sys_s), ok=1)
        except (OSError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError) as e:
            print(f"no usable JSON in {path}: {e}")
            ok = False
    with open(f"{out}/tuning.csv", "a", newline="") as f:
        w = csv.writer(f)
        if f.tell() == 0:
            w.writerow(TUNING_HEAD)
        w.writerow([fmt(row.get(k), ".6g") if isinstance(row.get(k), float)
                    else "NA" if row.get(k) is None else row[k] for k in TUNING_HEAD])
    if ok:
        print(f"sqpoll={sq} qd={qd:<4} {line(row)}")
    return 0 if ok else 1


def tuning(out):
    try:
        with open(f"{out}/tuning.csv") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def best(rows, pat):
    """fio's best configuration: the most throughput (GB/s; for one block
    size the same order as IOPS), the first of equals."""
    ok = [r for r in rows if r["pattern"] == pat and r["ok"] == "1"]
    return max(ok, key=lambda r: float(r["gb_per_s"])) if ok else None


def tune_best(out, pat):
    b = best(tuning(out), pat)
    if not b:
        return 1
    print(b["iodepth"], b["sqpoll"])
    return 0


def measured(out):
    """{(pattern, tool): [figures of run 1, 2, ...]} from runs.tsv, and each
    (pattern, tool)'s command."""
    runs, commands = {}, {}
    with open(f"{out}/runs.tsv") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if not r["run"].isdigit() or r["tool"] not in TOOLS or r["exit"] != "0":
                continue
            key = (r["unit"], r["tool"])
            try:
                fig = with_cpu(figures(r["tool"], f"{out}/{r['tool']}-{r['unit']}-{r['run']}.json"),
                               r["user_s"], r["sys_s"])
            except (OSError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError):
                continue
            fig.update(run=int(r["run"]), wall_s=r["wall_s"])
            runs.setdefault(key, []).append(fig)
            commands.setdefault(key, r["command"])
    return runs, commands


def best_options(command):
    """What fio-best set beyond the point: its tuning, as the summary names it."""
    opts = [o for o in command.split() if re.match(r"--(iomem|fixedbufs|registerfiles|hipri)\b", o)]
    return " ".join(opts) or "none"


def num(text):
    """A tuning.csv latency, printed as the run table prints it."""
    return f"{float(text):9.1f}" if text != "NA" else f"{'NA':>9}"


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}


def summary(out):
    runs, commands = measured(out)
    tune = tuning(out)
    text, rows, doc = [], [], {"patterns": {}}
    for pat, (title, key, unit, bar) in PATTERNS.items():
        if not any(p == pat for p, _ in runs) and not any(r["pattern"] == pat for r in tune):
            continue
        b = best(tune, pat)
        text += ["", f"== {title} =="]
        best_cmd = commands.get((pat, "fio-best"), "")
        text.append("fio-best tuning (io_uring, direct, numjobs=1, "
                    f"{best_options(best_cmd)}; iodepth and SQPOLL tried):")
        for t in (r for r in tune if r["pattern"] == pat):
            if t["ok"] == "1":
                text.append(f"  sqpoll={t['sqpoll']} qd={t['iodepth']:<4} {float(t['gb_per_s']):8.3f} GB/s "
                            f"{float(t['iops']):10.0f} IOPS  p50 {num(t['p50_us'])} us  p99 {num(t['p99_us'])} us  "
                            f"cpu {float(t['cpu_s_per_gb_outside']):6.3f} s/GB (outside)")
            else:
                text.append(f"  sqpoll={t['sqpoll']} qd={t['iodepth']:<4} failed (runs.log)")
        if b:
            text.append(f"chosen (best fio-best {unit}): qd={b['iodepth']} sqpoll={'on' if b['sqpoll'] == '1' else 'off'}; "
                        "gpufeed and fio-default get the same point (bs, qd, one thread, O_DIRECT, SQPOLL)")
        text.append("fio-default: fio's own defaults at that point: --iomem=malloc (4 KiB pages unless "
                    "transparent huge pages are 'always'), no --fixedbufs, no --registerfiles")
        text.append(f"fio-best:    {best_options(best_cmd)}")
        if "--iomem=malloc" in best_cmd:
            text.append("             (malloc: no huge pages were free; see command.txt)")
        for tool in TOOLS:
            if (pat, tool) in commands:
                text.append(f"{tool + ':':12} {commands[(pat, tool)]}")
        text.append(f"{'run':>3}  {'tool':11} {'GB/s':>8} {'IOPS':>10} {'p50_us':>9} {'p99_us':>9} "
                    f"{'user_s':>7} {'sys_s':>7} {'cpu/GB(o)':>9} {'cpu/GB(i)':>9} {'wall_s':>7}")
        order = sorted(((f["run"], TOOLS.index(t), t, f) for (p, t), fs in runs.items() if p == pat for f in fs))
        for run, _, tool, f in order:
            text.append(f"{run:3d}  {tool:11} {f['gb_per_s']:8.3f} {f['iops']:10.0f} {fmt(f['p50_us'], '9.1f'):>9} "
                        f"{fmt(f['p99_us'], '9.1f'):>9} {f['cpu_user_s']:7.3f} {f['cpu_sys_s']:7.3f} "
                        f"{f['cpu_s_per_gb_outside']:9.4f} {fmt(f['cpu_s_per_gb_inside'], '9.4f'):>9} {f['wall_s']:>7}")
        stats = {}
        for tool in TOOLS:
            fs = runs.get((pat, tool), [])
            stats[tool] = {k: spread([f[k] for f in fs]) for k in FIELDS}
            stats[tool]["runs"] = len(fs)
        text.append("---- median (min .. max) over the runs")
        for tool in TOOLS:
            s = stats[tool]
            if not s["runs"]:
                continue
            text.append(f"{tool:11} {s['runs']:2d} runs  GB/s {s['gb_per_s']['median']:.3f} "
                        f"({s['gb_per_s']['min']:.3f} .. {s['gb_per_s']['max']:.3f})  "
                        f"IOPS {s['iops']['median']:.0f} ({s['iops']['min']:.0f} .. {s['iops']['max']:.0f})  "
                        f"cpu {s['cpu_s_per_gb_outside']['median']:.4f} s/GB "
                        f"({s['cpu_s_per_gb_outside']['min']:.4f} .. {s['cpu_s_per_gb_outside']['max']:.4f})")
        text.append("---- gpufeed / fio, medians of the paired runs")
        text.append(f"{'against':11} {'figure':10} {'ratio':>8} {'95% of ratio':>13}  {'bar':24} result")
        gf = runs.get((pat, "gpufeed"), [])
        for tuning_name in FIO_TUNINGS:
            fio = runs.get((pat, tuning_name), [])
            for fkey, funit, fbar in ((key, unit, bar),
                                      ("cpu_s_per_gb_outside", "CPU s/GB", CPU_BAR.get(pat))):
                r = {"pattern": pat, "against": tuning_name, "figure": fkey}
                r.update(verdict([f[fkey] for f in gf], [f[fkey] for f in fio], info=fbar is None,
                                 bar=fbar or bar, other="fio"))
                rows.append(r)
                ratio = f"{r['ratio']:8.4f}" if "ratio" in r else f"{'-':>8}"
                text.append(f"{tuning_name:11} {funit:10} {ratio} {interval_text(r):>13}  "
                            f"{r.get('bar', '(information)'):24} {r['result']}{short_note(r)}")
        doc["patterns"][pat] = {"chosen": b, "commands": {t: c for (p, t), c in commands.items() if p == pat},
                                "tools": stats}
    result, head = overall(rows)
    text += ["", head + f" (ratios gpufeed / fio of the medians over paired runs, at least {MIN_RUNS} "
             "asked; 95% of ratio: its bootstrap interval; CPU: user + system seconds of the whole "
             "process per GB, outside count)"]
    doc.update(figures=rows, result=result, all_pass=result == "PASS")
    with open(f"{out}/summary.txt", "w") as f:
        f.write("\n".join(text[1:]) + "\n")
    with open(f"{out}/summary.json", "w") as f:
        json.dump(doc, f, indent=1)
    with open(f"{out}/raw.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("pattern", "tool", "run") + FIELDS + ("bytes", "seconds", "wall_s"))
        for (pat, tool), fs in sorted(runs.items()):
            for fig in fs:
                w.writerow([pat, tool, fig["run"]] + [fmt(fig[k], ".6g") for k in FIELDS]
                           + [fig["bytes"], fmt(fig["seconds"], ".6g"), fig["wall_s"]])
    print("\n".join(text[1:]))
    return 0 if result == "PASS" else 1


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "check":
        return check(*args)
    if cmd == "tune-row":
        return tune_row(*args)
    if cmd == "tune-best":
        return tune_best(*args)
    if cmd == "summary":
        return summary(*args)
    print(f"{argv[0]}: unknown command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
