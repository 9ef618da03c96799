#!/usr/bin/env python3
"""Compare `gpufeed topo --json` with `nvidia-smi topo -m` on this machine:
every GPU pair's connection class, each GPU's CPU Affinity and NUMA Affinity,
and the GPU x NIC entries where nvidia-smi shows NICs; the matrix's columns
and NIC legend must be nvidia-smi's exactly.  Exit 0 when all agree,
1 with the differences listed otherwise.

usage: compare_topo.py GPUFEED_JSON NVIDIA_SMI_TOPO_TXT
"""
import json
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
DEV = re.compile(r"^(GPU|NIC)\d+$")


def parse_smi(text):
    """-> (columns, {row: {col: value}}, affinity {gpu: (cpus, numa)}, nic legend)"""
    lines = [ANSI.sub("", l).rstrip("\n") for l in text.splitlines()]
    header = None
    rows, aff, legend = {}, {}, {}
    for line in lines:
        cells = [c.strip() for c in line.split("\t")]
        items = [c for c in cells if c]
        if header is None and items and DEV.match(items[0]) and "CPU Affinity" in line:
            header = items
            ndev = sum(1 for c in header if DEV.match(c))
            continue
        if header and items and DEV.match(items[0]) and len(items) > ndev:
            name = items[0]
            rows[name] = dict(zip(header[:ndev], items[1:1 + ndev]))
            if name.startswith("GPU"):
                rest = items[1 + ndev:]
                aff[name] = (rest[0] if rest else "", rest[1] if len(rest) > 1 else "")
        m = re.match(r"^\s*(NIC\d+):\s*(\S+)", line)
        if m:
            legend[m.group(1)] = m.group(2)
    if header is None:
        sys.exit("compare_topo: no matrix header in nvidia-smi output")
    return header, rows, aff, legend


def main():
    gf = json.load(open(sys.argv[1]))
    header, rows, aff, smi_legend = parse_smi(open(sys.argv[2]).read())
    devs = gf["matrix"]["devices"]
    links = gf["matrix"]["links"]
    ours_by_rdma = {v: k for k, v in gf["matrix"]["legend"].items() if k.startswith("NIC")}
    # nvidia-smi's NICk -> our label, through the RDMA device name.
    nic_map = {k: ours_by_rdma.get(v) for k, v in smi_legend.items()}
    idx = {d: i for i, d in enumerate(devs)}
    gpus = {f"GPU{g['index']}": g for g in gf["gpus"]}
    problems, checked = [], 0

    # The matrix's columns are nvidia-smi's, names and order.
    smi_cols = [c for c in header if DEV.match(c)]
    checked += 1
    if devs != smi_cols:
        problems.append(f"matrix columns differ: nvidia-smi {smi_cols}, gpufeed {devs}")
    for k, v in smi_legend.items():
        checked += 1
        if gf["matrix"]["legend"].get(k) != v:
            problems.append(f"{k}: nvidia-smi {v}, gpufeed {gf['matrix']['legend'].get(k)}")
    smi_gpus = sorted((r for r in rows if r.startswith("GPU")), key=lambda s: int(s[3:]))
    if sorted(smi_gpus) != sorted(gpus):
        problems.append(f"GPU sets differ: nvidia-smi {smi_gpus}, gpufeed {sorted(gpus)}")
    for a in smi_gpus:
        for b, want in rows[a].items():
            ob = nic_map.get(b, b) if b.startswith("NIC") else b
            if a not in idx or ob not in idx:
                problems.append(f"{a}-{b}: not in gpufeed's matrix")
                continue
            got = links[idx[a]][idx[ob]]
            checked += 1
            if got != want:
                problems.append(f"{a}-{b}: nvidia-smi {want}, gpufeed {got}")
        cpus, numa = aff.get(a, ("", ""))
        g = gpus.get(a)
        if g is None:
            continue
        got_cpus = g["cpus"] if g["cpus"] is not None else "N/A"
        got_numa = str(g["numa_node"]) if g["numa_node"] >= 0 else "N/A"
        checked += 2
        if got_cpus != cpus:
            problems.append(f"{a} CPU Affinity: nvidia-smi {cpus}, gpufeed {got_cpus}")
        if got_numa != numa:
            problems.append(f"{a} NUMA Affinity: nvidia-smi {numa}, gpufeed {got_numa}")
    for p in problems:
        print("DIFF", p)
    print(f"compare_topo: {checked} entries compared, {len(problems)} differ")
    return 1 if problems or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
