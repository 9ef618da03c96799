#!/usr/bin/env bash
# gpufeed plan's Kubernetes objects checked by real clients, offline
# (tests/tools/k8s-check.mjs): each Pod and ResourceClaim against the
# Kubernetes API's schema (kubernetes-models, from the Kubernetes OpenAPI
# spec), and each claim's CEL selectors compiled and run by a CEL evaluator
# (cel-js) against the machine's GPUs as NVIDIA's DRA driver publishes them:
# each request must match its GPU and no other, a planted UUID included.
# The npm packages are pinned in tests/tools/package-lock.json and installed
# into a cache folder outside the repository; without npm (or the registry)
# this skips (77), except under CI, where it fails.
. "$(dirname "$0")/lib.sh"

unavailable() {
	if [ -n "${CI:-}" ]; then not_ok "$1 (CI must run these checks)"; finish; fi
	echo "skip: $1"; exit 77
}
python3 -c 'import yaml' 2>/dev/null || unavailable "python3-yaml is needed (scripts/install-deps.sh test)"
tools=$("$SRC/tests/tools/install-npm-tools.sh" 2>"$TMP/npm.err") ||
	unavailable "the npm test tools could not be installed: $(tail -1 "$TMP/npm.err")"
node --version >/dev/null 2>&1 || unavailable "node is needed"

# to_docs PLAN.yaml TOPO.json OUT.json [MATCH]: the YAML's objects as JSON; the
# claim gets the machine's GPUs as DRA devices and, per request, the GPU it
# must match (its name says which: gpu<index>).
to_docs() {
	python3 - "$@" <<'PY'
import json, sys, yaml
plan, topo, out = sys.argv[1:4]
gpus = json.load(open(topo))["gpus"]
docs = [d for d in yaml.safe_load_all(open(plan)) if d]
for d in docs:
    if d["kind"] == "ResourceClaim":
        d["x-devices"] = {
            "all": [{"attributes": {"gpu.nvidia.com": {"uuid": g["uuid"], "pcieBusID": g["pci"]}}} for g in gpus],
            "match": {r["name"]: [i for i, g in enumerate(gpus) if "gpu%d" % g["index"] == r["name"]]
                      for r in d["spec"]["devices"]["requests"]},
        }
json.dump(docs, open(out, "w"))
PY
}

# check DESC PLAN.yaml TOPO.json
check() {
	if to_docs "$2" "$3" "$TMP/docs.json" && node "$SRC/tests/tools/k8s-check.mjs" "$tools" "$TMP/docs.json" >"$TMP/check.out" 2>&1
	then ok "$1"; else not_ok "$1: $(head -3 "$TMP/check.out" | tr '\n' ' ')"; fi
}

for m in hgx-h100-8gpu dual-8gpu-pcie-switch h200x4-vm; do
	R=$FIX/$m/root
	"$GPUFEED" topo --root "$R" --json >"$TMP/$m.json" 2>/dev/null
	for fmt in k8s k8s-plugin; do
		for n in 1 2; do
			run "$GPUFEED" plan --root "$R" --gpus "$n" --format "$fmt" --image nvcr.io/nvidia/pytorch:24.01-py3 \
				--name "train-$n"
			[ "$rc" = 0 ] || not_ok "$m: plan --gpus $n --format $fmt: exit $rc"
			check "$m: $n GPUs, $fmt: valid objects; each selector matches its GPU alone" "$out" "$TMP/$m.json"
		done
	done
done

# A UUID with quotes and a backslash in the recording (a copy of the 4x H200
# VM): the selector matches the GPU that has it, and no other.
EVIL=$TMP/evil
cp -a "$FIX/h200x4-vm/root" "$EVIL"
python3 "$SRC/tests/tools/plant-uuid.py" "$EVIL/nvml.json"
"$GPUFEED" topo --root "$EVIL" --json >"$TMP/evil.json" 2>/dev/null
run "$GPUFEED" plan --root "$EVIL" --gpus 1 --free 0 --format k8s
check "a planted UUID: the CEL selector matches that GPU alone" "$out" "$TMP/evil.json"

# The checks can fail: a Pod the API would refuse and a selector that
# matches every device are both reported.
run "$GPUFEED" plan --root "$FIX/h200x4-vm/root" --gpus 1 --format k8s
sed -e 's/restartPolicy: Never/restartPolicy: Sometimes/' \
	-e 's/expression: .*/expression: "device.attributes[\\"gpu.nvidia.com\\"].uuid != \\"\\""/' "$out" >"$TMP/broken.yaml"
if to_docs "$TMP/broken.yaml" "$TMP/h200x4-vm.json" "$TMP/b.json"; then
	node "$SRC/tests/tools/k8s-check.mjs" "$tools" "$TMP/b.json" >"$TMP/b.out" 2>&1
	grep -q 'restartPolicy' "$TMP/b.out" && grep -q 'matches devices \[0,1,2,3\], not \[0\]' "$TMP/b.out" &&
		ok "a bad restartPolicy and a match-all selector are caught" || not_ok "the checker missed: $(cat "$TMP/b.out")"
else not_ok "the broken YAML did not convert"; fi
finish
