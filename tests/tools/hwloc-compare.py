#!/usr/bin/env python3
"""Compare hwloc's view of a recording with gpufeed's model of it.

    hwloc-compare.py LSTOPO_XML TOPO_JSON
    hwloc-compare.py LSTOPO_XML LSTOPO_XML     (two hwloc views: a machine and its recording)

LSTOPO_XML is `lstopo --of xml --whole-io` run with HWLOC_FSROOT on the
recording, TOPO_JSON is `gpufeed topo --root DIR --json`.  Compared: the
NUMA nodes (os index and CPU set), the packages, cores and PUs (counts and
each core's CPU set) and the PCI devices (bus ids, bridges included).  Prints
one line per difference and exits 1 when there is any.
"""
import json
import sys
import xml.etree.ElementTree as ET


def cpus_of_mask(text):
    """hwloc's XML bitmap: 0x... words separated by commas, most significant
    first; an empty word is a zero one (hwloc_bitmap_snprintf)."""
    value = 0
    for word in text.split(","):
        value = (value << 32) | int(word or "0", 16)
    return {i for i in range(value.bit_length()) if value >> i & 1}


def cpus_of_list(text):
    cpus = set()
    for part in (text or "").split(","):
        if "-" in part:
            lo, hi = part.split("-")
            cpus.update(range(int(lo), int(hi) + 1))
        elif part:
            cpus.add(int(part))
    return cpus


def hwloc_view(path):
    root = ET.parse(path).getroot()
    objs = list(root.iter("object"))
    numa = {int(o.get("os_index")): cpus_of_mask(o.get("cpuset")) for o in objs if o.get("type") == "NUMANode"}
    cores = sorted(tuple(sorted(cpus_of_mask(o.get("cpuset")))) for o in objs if o.get("type") == "Core")
    pus = sum(1 for o in objs if o.get("type") == "PU")
    packages = sum(1 for o in objs if o.get("type") == "Package")
    pci = {o.get("pci_busid") for o in objs if o.get("type") in ("PCIDev", "Bridge") and o.get("pci_busid")}
    return numa, cores, pus, packages, pci


def gpufeed_view(path):
    with open(path) as f:
        topo = json.load(f)
    numa = {n["id"]: cpus_of_list(n["cpus"]) for n in topo["numa"]["nodes"]}
    by_core = {}
    for cpu in topo["cpus"]["list"]:
        by_core.setdefault((cpu["package"], cpu["core"]), set()).add(cpu["id"])
    cores = sorted(tuple(sorted(s)) for s in by_core.values())
    m = topo["machine"]
    pci = {d["bdf"] for d in topo["pci"]["devices"]}
    return numa, cores, m["cpus"], m["packages"], pci, m["cores"]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: hwloc-compare.py LSTOPO_XML TOPO_JSON|LSTOPO_XML")
    h_numa, h_cores, h_pus, h_pkgs, h_pci = hwloc_view(sys.argv[1])
    if sys.argv[2].endswith(".xml"):
        g_numa, g_cores, g_pus, g_pkgs, g_pci = hwloc_view(sys.argv[2])
        g_ncores = len(g_cores)
    else:
        g_numa, g_cores, g_pus, g_pkgs, g_pci, g_ncores = gpufeed_view(sys.argv[2])
    diffs = []
    if h_numa != g_numa:
        diffs.append("NUMA nodes: hwloc %s, gpufeed %s" % (
            {k: len(v) for k, v in sorted(h_numa.items())}, {k: len(v) for k, v in sorted(g_numa.items())}))
    if len(h_cores) != g_ncores or h_cores != g_cores:
        diffs.append("cores: hwloc %d, gpufeed %d (%d CPU sets differ)" % (
            len(h_cores), g_ncores, len(set(h_cores) ^ set(g_cores))))
    if h_pus != g_pus:
        diffs.append("PUs: hwloc %d, gpufeed %d CPUs" % (h_pus, g_pus))
    if h_pkgs != g_pkgs:
        diffs.append("packages: hwloc %d, gpufeed %d" % (h_pkgs, g_pkgs))
    if h_pci != g_pci:
        diffs.append("PCI devices only hwloc has: %s; only gpufeed has: %s" % (
            sorted(h_pci - g_pci) or "none", sorted(g_pci - h_pci) or "none"))
    for d in diffs:
        print(d)
    if not diffs:
        print("same: %d NUMA nodes, %d packages, %d cores, %d PUs, %d PCI devices" % (
            len(h_numa), h_pkgs, len(h_cores), h_pus, len(h_pci)))
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
