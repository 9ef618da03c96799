#!/usr/bin/env bash
# gpufeed config slurm read back by slurmd itself (Debian's slurmd, `slurmd
# -G`: the node's GRES configuration, parsed from gres.conf and slurm.conf,
# printed without starting the daemon).  slurm.conf gets the NodeName line
# the gres.conf's own comment suggests, so the hint is checked too.  Every
# GPU line must come back with its File=, Cores= and Links=, nothing else,
# and no error: on each fixture and on a recording with a planted host name.
# slurmd stats each File= and wants a character device: the test makes
# /dev/nvidiaN stand-ins (mknod, root) in its own folder and points the
# lines there.  Without slurmd or root this skips (77), except under CI.
. "$(dirname "$0")/lib.sh"

unavailable() {
	if [ -n "${CI:-}" ]; then not_ok "$1 (CI must run these checks)"; finish; fi
	echo "skip: $1"; exit 77
}
SLURMD=$(command -v slurmd || echo /usr/sbin/slurmd)
[ -x "$SLURMD" ] || unavailable "slurmd is needed (scripts/install-deps.sh test)"
[ "$(id -u)" = 0 ] || unavailable "root is needed to make the device stand-ins (mknod)"

# slurmd_reads NAME GRES.CONF: 0 when slurmd reads it back line for line.
slurmd_reads() {
	local name=$1 gres=$2 d=$TMP/slurm-$1 hint
	rm -rf "$d" && mkdir -p "$d/dev" "$d/spool" "$d/state"
	for i in $(seq 0 31); do mknod "$d/dev/nvidia$i" c 195 "$i"; done
	sed "s#File=/dev/#File=$d/dev/#" "$gres" >"$d/gres.conf"
	hint=$(sed -n 's/^# \(NodeName=.*\)/\1/p' "$gres" | sed 's/^NodeName=[^ ]*/NodeName=gpufeedtest/')
	cat >"$d/slurm.conf" <<-CONF
	ClusterName=gpufeedtest
	SlurmctldHost=localhost
	GresTypes=gpu
	SlurmdParameters=config_overrides
	SlurmdSpoolDir=$d/spool
	StateSaveLocation=$d/state
	SlurmdPidFile=$d/slurmd.pid
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	$hint State=UNKNOWN
	PartitionName=all Nodes=ALL Default=YES
	CONF
	(cd "$d" && SLURM_CONF=$d/slurm.conf timeout 20 "$SLURMD" -f "$d/slurm.conf" -N gpufeedtest -G) >"$d/out" 2>&1 ||
		{ echo "slurmd -G exit $?: $(grep -m1 -iE 'error|fatal' "$d/out")"; return 1; }
	python3 - "$d/gres.conf" "$d/out" <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("Name=gpu ")]
out = open(sys.argv[2]).read()
bad = [l for l in out.splitlines() if re.search(r"error|fatal|warning", l, re.I)]
assert not bad, bad[0]
got = [dict(kv.split("=", 1) for kv in l.split("Gres ", 1)[1].split()) for l in out.splitlines() if " Gres Name=gpu " in l]
assert len(got) == len(lines), ("GPU lines", len(got), len(lines))
for l, g in zip(lines, got):
    want = dict(kv.split("=", 1) for kv in l.split())
    for k in ("Type", "File", "Cores", "Links"):
        assert want.get(k) == g.get(k), (k, want.get(k), g.get(k))
PY
}

for m in hgx-h100-8gpu dual-8gpu-pcie-switch l40s-4gpu-224 h200x4-vm dual-16gpu-pcie-tree; do
	expect_rc 0 "config slurm on $m" "$GPUFEED" config slurm --root "$FIX/$m/root"
	if msg=$(slurmd_reads "$m" "$out" 2>&1); then ok "$m: slurmd reads the gres.conf and the NodeName hint back"
	else not_ok "$m: $(echo "$msg" | tail -1)"; fi
done

# A host name with line breaks and gres.conf lines in it (a copy of the 4x
# H200 VM): slurmd still finds four GPUs and no other line.
cp -a "$FIX/h200x4-vm/root" "$TMP/evil"
printf 'vm\nName=gpu File=/dev/nvidia9\nNodeName=x\n' >"$TMP/evil/proc/sys/kernel/hostname"
expect_rc 0 "config slurm of the planted recording" "$GPUFEED" config slurm --root "$TMP/evil"
if msg=$(slurmd_reads evil "$out" 2>&1); then ok "planted host name: slurmd sees the four GPUs alone"
else not_ok "planted host name: $(echo "$msg" | tail -1)"; fi

# The check can fail: a GPU line twice is slurmd's error, and it is caught.
grep '^Name=gpu' "$out" | head -1 >>"$out"
msg=$(slurmd_reads dup "$out" 2>&1) && not_ok "a duplicated device went unnoticed" ||
	ok "a duplicated device is caught ($(echo "$msg" | tail -1 | cut -c1-60))"
finish
