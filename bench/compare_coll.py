"""The summary of bench/compare-coll-nccltests.sh: per (mode, op, size),
gpufeed's and nccl-tests' out-of-place busbw over the runs, the verdict of
bench/compare_verdict.py (|median ratio - 1| <= 0.02 and its interval).

    compare_coll.py OUTDIR MODE...

reads OUTDIR/gpufeed-MODE.jsonl (gpufeed-bench-coll/1 documents) and
OUTDIR/nccltests-MODE.jsonl (nccl-tests' -J documents, one per line),
writes OUTDIR/summary.json and summary.txt, prints the text, exits 0 when
every figure passed, else 1."""
import json
import os
import sys

from compare_verdict import interval_text, overall, short_note, verdict


def nccltests_op(doc):
    """The collective of an nccl-tests -J document: its binary's name
    ("all_reduce_perf" -> "all_reduce")."""
    name = os.path.basename(doc["args"][0])
    return name[:-len("_perf")] if name.endswith("_perf") else name


def rows_of(path, op_of):
    """{(op, size): [busbw per run]} and {(op, size): [samples]} of a
    .jsonl; a run's row without an out-of-place figure is left out."""
    figs, samples = {}, {}
    if not os.path.exists(path):
        return figs, samples
    for line in open(path):
        if not line.strip():
            continue
        doc = json.loads(line)
        op = op_of(doc)
        for r in doc.get("results", []):
            oop = r.get("out_of_place")
            if not oop:
                continue
            key = (op, int(r["size"]))
            figs.setdefault(key, []).append(float(oop["bus_bw"]))
            if "iteration_us" in r:
                samples.setdefault(key, []).append(r["iteration_us"])
    return figs, samples


def main(out, modes):
    rows = []
    for mode in modes:
        gf, samples = rows_of(f"{out}/gpufeed-{mode}.jsonl", lambda d: d["config"]["op"])
        nt, _ = rows_of(f"{out}/nccltests-{mode}.jsonl", nccltests_op)
        for key in sorted(set(gf) | set(nt)):
            a, b = gf.get(key, []), nt.get(key, [])
            row = {"mode": mode, "op": key[0], "size": key[1], "unit": "GB/s busbw",
                   "gpufeed_runs": a, "nccltests_runs": b, "gpufeed_iteration_us": samples.get(key, [])}
            row.update(verdict(a, b, other="nccltests"))
            rows.append(row)
    result, line = overall(rows)
    json.dump({"runs": max([r["paired_runs"] for r in rows] or [0]), "bar": "|median ratio - 1| <= 0.02",
               "figure": "busbw, out of place (nccl-tests' first column)", "figures": rows,
               "result": result, "all_pass": result == "PASS"},
              open(f"{out}/summary.json", "w"), indent=1)
    with open(f"{out}/summary.txt", "w") as f:
        f.write(f"{'mode':7} {'op':15} {'size':>11} {'gpufeed':>9} {'nccltests':>9} {'ratio':>7} "
                f"{'95% of ratio':>12}  result\n")
        for r in rows:
            if "ratio" in r:
                f.write(f"{r['mode']:7} {r['op']:15} {r['size']:>11} {r['gpufeed_median']:9.2f} "
                        f"{r['nccltests_median']:9.2f} {r['ratio']:7.4f} {interval_text(r):>12}  {r['result']}"
                        f"{short_note(r)}\n")
            else:
                f.write(f"{r['mode']:7} {r['op']:15} {r['size']:>11} {'-':>9} {'-':>9} {'-':>7} {'-':>12}  "
                        f"{r['result']} (gpufeed {len(r['gpufeed_runs'])} runs, "
                        f"nccl-tests {len(r['nccltests_runs'])})\n")
        f.write(line + " (busbw out of place, GB/s = 1e9 bytes/s; medians over the runs; 95% of ratio: its "
                "bootstrap interval over the paired runs)\n")
    print(open(f"{out}/summary.txt").read(), end="")
    return 0 if result == "PASS" else 1


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: compare_coll.py OUTDIR MODE...")
    sys.exit(main(sys.argv[1], sys.argv[2:]))
