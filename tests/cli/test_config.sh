#!/usr/bin/env bash
# gpufeed config kubelet|slurm|nccl-topo|labels on the recorded machines:
# every YAML parses with a real YAML parser, the XML with xml.etree, and
# what they say agrees with the model (topo --json of the same recording).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
	{ echo "skip: python3-yaml is needed (scripts/install-deps.sh test)"; exit 77; }

# check KIND TOPO_JSON FILE: python asserts per output; prints what failed.
check() {
	python3 - "$@" <<'PY'
import json, re, sys, yaml, xml.etree.ElementTree as ET
kind, topo, path = sys.argv[1:4]
t = json.load(open(topo)); text = open(path).read()
gpus = t["gpus"]
def cpulist(s):
    out = set()
    for part in filter(None, s.split(",")):
        a, _, b = part.partition("-"); out.update(range(int(a), int(b or a) + 1))
    return out
local = set().union(*[cpulist(g["cpus"]) for g in gpus]) if gpus else set()
if kind == "kubelet":
    d = yaml.safe_load(text)
    assert d["kind"] == "KubeletConfiguration" and d["cpuManagerPolicy"] == "static"
    r = cpulist(d["reservedSystemCPUs"])
    # whole cores: every sibling of a reserved CPU is reserved
    cores = {}
    for c in t["cpus"]["list"]:
        cores.setdefault((c["package"], c["core"]), set()).add(c["id"])
    for ids in cores.values():
        assert not (ids & r) or ids <= r, "split core %s" % ids
    allc = set().union(*cores.values())
    if allc - local:     # the machine has cores no GPU is local to
        assert not (r & local), "reserved %s on GPU-local CPUs" % r
elif kind == "labels":
    d = yaml.safe_load(text)
    labels = d["spec"]["labels"]
    assert labels["nvidia.com/gpu.count"] == str(len(gpus))
    for k, v in labels.items():
        assert isinstance(v, str) and re.fullmatch(r"([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?", v), (k, v)
elif kind == "slurm":
    lines = [l for l in text.splitlines() if l.startswith("Name=gpu ")]
    assert len(lines) == len(gpus)
    links = [list(map(int, re.search(r"Links=(\S+)", l).group(1).split(","))) for l in lines]
    for i, row in enumerate(links):
        assert row[i] == -1 and all(links[j][i] == row[j] for j in range(len(row))), links
    for g, l in zip(gpus, lines):
        assert "File=/dev/nvidia%d" % g["minor"] in l, l
elif kind == "nccl":
    root = ET.fromstring(text)
    assert root.tag == "system" and root.get("version") == "1"
    found = {}
    for cpu in root.findall("cpu"):
        for pci in cpu.iter("pci"):
            if pci.find("gpu") is not None:
                found[pci.get("busid")] = int(cpu.get("numaid"))
    assert len(root.findall(".//gpu")) == len(gpus)
    for g in gpus:
        assert found.get(g["pci"]) == g["numa_node"], (g["pci"], found)
PY
}

for m in hgx-h100-8gpu dual-8gpu-pcie-switch l40s-4gpu-224 h200x4-vm; do
	R=$FIX/$m/root
	"$GPUFEED" topo --root "$R" --json >"$TMP/$m.json" 2>/dev/null
	for kind in kubelet slurm nccl labels; do
		sub=$kind; [ "$kind" = nccl ] && sub=nccl-topo
		extra=(); [ "$kind" = labels ] && extra=(--format yaml)
		expect_rc 0 "config $sub on $m" "$GPUFEED" config "$sub" --root "$R" "${extra[@]}"
		if msg=$(check "$kind" "$TMP/$m.json" "$out" 2>&1); then ok "$m: config $sub parses and agrees with the model"
		else not_ok "$m: config $sub: $(echo "$msg" | tail -1)"; fi
	done
	# key=value labels: each value a valid label value.
	expect_rc 0 "config labels on $m" "$GPUFEED" config labels --root "$R"
	if grep -qvE '^[a-z0-9.]+(/[a-z0-9.-]+)?=([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$' "$out"; then
		not_ok "$m: a label line is not key=value with a valid value"; else ok "$m: labels are valid"; fi
done

# The memory manager block parses and sums (reservedMemory = reserved + eviction).
R=$FIX/hgx-h100-8gpu/root
expect_rc 0 "kubelet --memory-manager" "$GPUFEED" config kubelet --root "$R" --memory-manager --reserve 4
if python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1])); mi = lambda s: int(s.rstrip("Mi"))
total = mi(d["kubeReserved"]["memory"]) + mi(d["systemReserved"]["memory"]) + mi(d["evictionHard"]["memory.available"])
assert sum(mi(n["limits"]["memory"]) for n in d["reservedMemory"]) == total
assert len(d["reservedSystemCPUs"].split(",")) == 2' "$out"; then ok "reservedMemory sums to the reservations"
else not_ok "reservedMemory does not sum"; fi

# The static CPU manager with no reserved CPU: the kubelet refuses to start.
expect_rc 2 "--reserve 0 is refused" "$GPUFEED" config kubelet --root "$R" --reserve 0
expect_grep "$err" "the static CPU manager needs reservedSystemCPUs" "with the kubelet's reason"
# A machine too small for the reservation (2 cores): the machine, not the
# command line, is the problem (exit 4); --reserve 1 fits it.
expect_rc 4 "kubelet on a 2-core machine" "$GPUFEED" config kubelet --root "$FIX/ci-2gpu/root"
expect_grep "$err" "reserved cores: 2 of this machine's 2 cores would leave none for pods" "the counts are said"
expect_rc 0 "--reserve 1 on a 2-core machine" "$GPUFEED" config kubelet --root "$FIX/ci-2gpu/root" --reserve 1
# The 4x H200 VM: its NUMA node's meminfo says 5 GiB of MemTotal's 504.  The
# reservations are sized from MemTotal and the comment says so; the Memory
# Manager, which works from the node's figure, is refused.
expect_rc 0 "kubelet on the 4x H200 VM" "$GPUFEED" config kubelet --root "$FIX/h200x4-vm/root"
expect_grep "$out" "Sized from MemTotal: the NUMA nodes' meminfo accounts only 5339 MiB of it" "says where memory is sized from"
expect_rc 4 "--memory-manager where the nodes do not account the memory" \
	"$GPUFEED" config kubelet --root "$FIX/h200x4-vm/root" --memory-manager
expect_grep "$err" "accounts 5339 MiB of the machine's 515850 MiB" "the two figures are said"

# -o FILE is written whole, and nothing is left when the command fails.
expect_rc 0 "config slurm -o FILE" "$GPUFEED" config slurm --root "$R" -o "$TMP/gres.conf"
expect_grep "$TMP/gres.conf" '^AutoDetect=off$' "-o FILE holds the gres.conf"
expect_rc 4 "config slurm on a machine without GPUs" "$GPUFEED" config slurm --root "$FIX/ci-vm/root" -o "$TMP/none.conf"
[ ! -e "$TMP/none.conf" ] && ! ls "$TMP"/none.conf.tmp-* >/dev/null 2>&1 && ok "no output file after a failure" ||
	not_ok "a failed config left a file"
expect_rc 2 "an unknown policy is a usage error" "$GPUFEED" config kubelet --root "$R" --policy strict
expect_rc 2 "an unknown AutoDetect is a usage error" "$GPUFEED" config slurm --root "$R" --autodetect full
expect_rc 2 "an unknown subcommand" "$GPUFEED" config docker
expect_rc 2 "--reserve takes a count" "$GPUFEED" config kubelet --root "$R" --reserve two
# The VM with its GPUs moved to another node by --pci-locality: the XML follows.
expect_rc 0 "nccl-topo with --pci-locality" "$GPUFEED" config nccl-topo --root "$FIX/dual-8gpu-pcie-switch/root" \
	--pci-locality '0000:18:00.0=1'
python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
node = [c.get("numaid") for c in r.findall("cpu") for p in c.iter("pci") if p.get("busid") == "0000:18:00.0"]
assert node and node[0] == "1", node' "$out" && ok "--pci-locality moves a GPU under its new node" ||
	not_ok "--pci-locality: GPU 0000:18:00.0 not under node 1"

# Strings from a recording are data, never syntax.  A copy of the 4x H200 VM
# with a host name and a recording path that hold line breaks, comment ends
# and lines of each format, and PCI subsystem ids with markup: every output
# still parses, holds exactly the lines the model gives, and no planted line.
EVIL="$TMP/evil"$'\n'"AutoDetect=nvml -->"
cp -a "$FIX/h200x4-vm/root" "$EVIL"
printf 'vm\nName=gpu File=/dev/sda\n-->\nkind: Evil\n\xc2\x85x: 1\n' >"$EVIL/proc/sys/kernel/hostname"
printf '0x10de" gdr="1' >"$EVIL/sys/bus/pci/devices/0000:00:06.0/subsystem_vendor"
printf '0x1234\n' >"$EVIL/sys/bus/pci/devices/0000:00:06.0/subsystem_device"
expect_rc 0 "config slurm of the planted recording" "$GPUFEED" config slurm --root "$EVIL"
if python3 - "$out" <<'PY'
import sys
live = [l for l in open(sys.argv[1], encoding="ascii").read().splitlines() if l and not l.startswith("#")]
assert live[0] == "AutoDetect=off" and len(live) == 5, live
assert all(l.startswith("Name=gpu Type=h200 File=/dev/nvidia") for l in live[1:]), live
PY
then ok "gres.conf: the planted lines stay inside comments"; else not_ok "gres.conf: a planted line is live"; fi
for sub in kubelet "labels --format yaml"; do
	# shellcheck disable=SC2086
	expect_rc 0 "config $sub of the planted recording" "$GPUFEED" config $sub --root "$EVIL"
	if python3 -c '
import re, sys, yaml
d = yaml.safe_load(open(sys.argv[1], encoding="ascii"))
assert d["kind"] in ("KubeletConfiguration", "NodeFeature") and "Name=gpu File" not in d and "x" not in d, d.keys()
if d["kind"] == "NodeFeature":
    assert re.fullmatch(r"vm-name-gpu-file-[a-z0-9-]*-gpufeed", d["metadata"]["name"]), d["metadata"]' "$out" 2>"$TMP/py.err"
	then ok "config $sub: YAML parses, nothing planted became a key"
	else not_ok "config $sub: $(tail -1 "$TMP/py.err")"; fi
done
expect_rc 0 "config nccl-topo of the planted recording" "$GPUFEED" config nccl-topo --root "$EVIL"
if python3 -c '
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "system" and [c.tag for c in r] == ["cpu"], [c.tag for c in r]
gpu0 = [p for p in r.iter("pci") if p.get("busid") == "0000:00:06.0"][0]
assert "gdr" not in gpu0.attrib and "subsystem_vendor" not in gpu0.attrib, gpu0.attrib' "$out" 2>"$TMP/py.err"
then ok "nccl-topo: the XML parses, the comment holds, a malformed subsystem id is left out"
else not_ok "nccl-topo: $(tail -1 "$TMP/py.err")"; fi
expect_rc 2 "labels --node that is not a node name" "$GPUFEED" config labels --root "$R" --format yaml --node My_Node
expect_grep "$err" "node name 'My_Node': not a DNS subdomain" "the name and the rule are said"

# The 2x H200 VM recorded in the run where NCCL 2.28.9 loaded config
# nccl-topo's XML (NCCL_TOPO_FILE) with all-reduce bandwidth unchanged: the
# recording must give that XML again, all but the comment naming the source.
live_xml=$SRC/bench/results/2026-11-24-h200x2-launch-evidence/topo.xml
expect_rc 0 "nccl-topo of the 2x H200 recording" "$GPUFEED" config nccl-topo --root "$FIX/h200x2-vm/root"
if diff <(tail -n +2 "$out") <(tail -n +2 "$live_xml") >"$TMP/xml.diff"; then
	ok "the recording gives the XML NCCL loaded on that machine"
else
	not_ok "nccl-topo of the recording differs from the XML NCCL loaded live"; head -10 "$TMP/xml.diff" | sed 's/^/#   /'
fi
finish
