#!/usr/bin/env python3
"""Give a recording made before gpufeed kept hwloc's files what hwloc needs.

    scripts/hwloc-upgrade-recording.py DIR     (an unpacked recording)

hwloc's Linux backend reads the kernel's CPU masks in hex (topology/core_cpus,
package_cpus, cache/indexN/shared_cpu_map, nodeN/cpumap, a PCI device's
local_cpus), while older recordings hold the same sets only as lists
(thread_siblings_list, package_cpus_list, shared_cpu_list, cpulist,
local_cpulist).  A list and its mask are two spellings of one kernel bitmap
(Documentation/ABI/stable/sysfs-devices-system-cpu: core_cpus is the old
thread_siblings, package_cpus the old core_siblings), so each mask is written
from its list, in the kernel's format (32-bit hex words, comma-separated, as
wide as the possible CPUs).  Only absent files are written; nothing the
machine said is changed, and nothing that cannot be derived (cache sizes,
core ids, PCI config space) is made up.  Prints what it wrote.
"""
import os
import sys


def parse_list(text):
    cpus = set()
    for part in text.strip().split(","):
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            cpus.update(range(int(lo), int(hi) + 1))
        else:
            cpus.add(int(part))
    return cpus


def mask(cpus, nbits):
    """The kernel's %*pb: hex, 32 bits a word, most significant word first."""
    value = 0
    for c in cpus:
        value |= 1 << c
    words = max(1, (nbits + 31) // 32)
    text = ",".join("%08x" % ((value >> (32 * w)) & 0xffffffff) for w in reversed(range(words)))
    top = nbits % 32
    if top:                         # the first word is as wide as its bits need
        text = text[8 - (top + 3) // 4:]
    return text


def read(path):
    with open(path) as f:
        return f.read()


class Upgrade:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.written = []
        for name in ("possible", "present", "online"):
            path = os.path.join(self.root, "sys/devices/system/cpu", name)
            if os.path.isfile(path) and read(path).strip():
                self.nbits = max(parse_list(read(path))) + 1
                break
        else:
            raise SystemExit("%s: no sys/devices/system/cpu/possible or online: not a recording?" % root)

    def inside(self, path):
        real = os.path.realpath(path)
        if real != self.root and not real.startswith(self.root + os.sep):
            raise SystemExit("%s: leaves the recording (%s)" % (path, real))
        return real

    def derive(self, directory, target, sources):
        out = os.path.join(directory, target)
        if os.path.lexists(out):
            return
        for src in sources:
            path = os.path.join(directory, src)
            if os.path.isfile(path) and read(path).strip():
                self.inside(path)
                with open(self.inside(directory) + "/" + target, "w") as f:
                    f.write(mask(parse_list(read(path)), self.nbits) + "\n")
                self.written.append(os.path.relpath(out, self.root))
                return

    def cpus(self):
        base = os.path.join(self.root, "sys/devices/system/cpu")
        for name in sorted(os.listdir(base)):
            if not (name.startswith("cpu") and name[3:].isdigit()):
                continue
            topo = os.path.join(base, name, "topology")
            if os.path.isdir(topo):
                for target, sources in (
                        ("core_cpus", ["core_cpus_list", "thread_siblings_list"]),
                        ("thread_siblings", ["thread_siblings_list", "core_cpus_list"]),
                        ("package_cpus", ["package_cpus_list", "core_siblings_list"]),
                        ("core_siblings", ["core_siblings_list", "package_cpus_list"]),
                        ("die_cpus", ["die_cpus_list"])):
                    self.derive(topo, target, sources)
            cache = os.path.join(base, name, "cache")
            if os.path.isdir(cache):
                for index in sorted(os.listdir(cache)):
                    if index.startswith("index"):
                        self.derive(os.path.join(cache, index), "shared_cpu_map", ["shared_cpu_list"])

    def nodes(self):
        base = os.path.join(self.root, "sys/devices/system/node")
        if not os.path.isdir(base):
            return
        for name in sorted(os.listdir(base)):
            if name.startswith("node") and name[4:].isdigit():
                self.derive(os.path.join(base, name), "cpumap", ["cpulist"])

    def pci(self):
        base = os.path.join(self.root, "sys/bus/pci/devices")
        if not os.path.isdir(base):
            return
        for name in sorted(os.listdir(base)):
            self.derive(os.path.join(base, name), "local_cpus", ["local_cpulist"])


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: hwloc-upgrade-recording.py DIR (an unpacked recording)")
    up = Upgrade(sys.argv[1])
    up.cpus()
    up.nodes()
    up.pci()
    for path in up.written:
        print("wrote", path)
    print("%d files written" % len(up.written))


if __name__ == "__main__":
    main()
