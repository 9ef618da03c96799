#!/usr/bin/env bash
# test-scope: tree (checks the tree, not the build: tests/run.sh runs it in the full set only)
# The exporter's deployment files checked by the tools that read them,
# offline: deploy/kubernetes/gpufeed-exporter.yaml against the Kubernetes
# API's schema (tests/tools/k8s-check.mjs: kubernetes-models, generated
# from the Kubernetes OpenAPI spec, pinned in tests/tools/package-lock.json),
# with planted faults it must refuse; the settings the manifest relies on at
# their exact paths (the published schema allows unknown fields, so a
# misspelt key would pass it); deploy/systemd/gpufeed-exporter.service by
# systemd-analyze verify, with no warning; and the options both pass to
# gpufeed exporter are options it has.  Without npm or systemd-analyze the
# part that needs it skips (77 when nothing ran), except under CI.
. "$(dirname "$0")/lib.sh"

unavailable() {
	if [ -n "${CI:-}" ]; then not_ok "$1 (CI must run these checks)"; finish; fi
	echo "skip: $1"; exit 77
}
python3 -c 'import yaml' 2>/dev/null || unavailable "python3-yaml is needed (scripts/install-deps.sh test)"
manifest=$SRC/deploy/kubernetes/gpufeed-exporter.yaml
unit=$SRC/deploy/systemd/gpufeed-exporter.service
"$GPUFEED" help --options exporter >"$TMP/options"

# ---- Kubernetes ----
python3 - "$manifest" "$TMP" <<'PY'
import copy, json, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
out = sys.argv[2]
json.dump(docs, open(out + "/docs.json", "w"))
ds = next(d for d in docs if d["kind"] == "DaemonSet")
# Planted faults the schema must refuse: a wrong type, a missing required field.
bad = copy.deepcopy(docs); next(d for d in bad if d["kind"] == "DaemonSet")["spec"]["template"]["spec"]["hostPID"] = "yes"
json.dump(bad, open(out + "/bad-type.json", "w"))
bad = copy.deepcopy(docs); del next(d for d in bad if d["kind"] == "DaemonSet")["spec"]["selector"]
json.dump(bad, open(out + "/bad-required.json", "w"))
# The settings the manifest's comments promise, at their exact paths.
pod = ds["spec"]["template"]["spec"]
c = pod["containers"][0]
env = {e["name"]: e["value"] for e in c.get("env", [])}
facts = {
    "kinds": sorted(d["kind"] for d in docs),
    "runtimeClassName": pod.get("runtimeClassName"),
    "hostNetwork": pod.get("hostNetwork"),
    "hostPID": pod.get("hostPID"),
    "readOnlyRootFilesystem": c.get("securityContext", {}).get("readOnlyRootFilesystem"),
    "allowPrivilegeEscalation": c.get("securityContext", {}).get("allowPrivilegeEscalation"),
    "runAsNonRoot": pod.get("securityContext", {}).get("runAsNonRoot"),
    "limits": sorted(c.get("resources", {}).get("limits", {})),
    "requests": sorted(c.get("resources", {}).get("requests", {})),
    "NVIDIA_DRIVER_CAPABILITIES": env.get("NVIDIA_DRIVER_CAPABILITIES"),
    "NVIDIA_VISIBLE_DEVICES": env.get("NVIDIA_VISIBLE_DEVICES"),
    "scrape": ds["spec"]["template"]["metadata"].get("annotations", {}).get("prometheus.io/scrape"),
    "port_annotation": ds["spec"]["template"]["metadata"].get("annotations", {}).get("prometheus.io/port"),
    "container_port": c["ports"][0]["containerPort"],
    "selector_matches": all(ds["spec"]["template"]["metadata"]["labels"].get(k) == v
                            for k, v in ds["spec"]["selector"]["matchLabels"].items()),
    "service_selector_matches": all(ds["spec"]["template"]["metadata"]["labels"].get(k) == v
                                    for k, v in next(d for d in docs if d["kind"] == "Service")["spec"]["selector"].items()),
}
json.dump(facts, open(out + "/facts.json", "w"))
open(out + "/k8s-args", "w").write("\n".join(c["args"]) + "\n")
PY
f=$TMP/facts.json
expect_jq "$f" '.kinds == ["DaemonSet", "Namespace", "Service"]' "the manifest: a Namespace, a DaemonSet and a Service"
expect_jq "$f" '.runtimeClassName == "nvidia" and .NVIDIA_VISIBLE_DEVICES == "all" and .NVIDIA_DRIVER_CAPABILITIES == "utility"' \
	"NVML from the node through the NVIDIA runtime class (utility capability, every GPU)"
expect_jq "$f" '.hostNetwork == true and .hostPID == true' "the host's NICs and processes"
expect_jq "$f" '.readOnlyRootFilesystem == true and .allowPrivilegeEscalation == false and .runAsNonRoot == true' \
	"read-only, unprivileged, non-root"
expect_jq "$f" '.limits == ["cpu", "memory"] and .requests == ["cpu", "memory"]' "CPU and memory requests and limits"
expect_jq "$f" '.scrape == "true" and (.port_annotation | tonumber) == .container_port' \
	"scrape annotations name the container's port"
expect_jq "$f" '.selector_matches and .service_selector_matches' "the selectors match the pod's labels"
[ "$(sed -n 1p "$TMP/k8s-args")" = exporter ] && ok "the container runs 'gpufeed exporter'" || not_ok "the container's first argument is not exporter"
unknown=$(sed -n '2,$s/=.*//p' "$TMP/k8s-args" | grep -vxF -f "$TMP/options")
[ -z "$unknown" ] && ok "the container's options are gpufeed exporter's" || not_ok "options gpufeed exporter lacks: $unknown"

if tools=$("$SRC/tests/tools/install-npm-tools.sh" 2>"$TMP/npm.err") && node --version >/dev/null 2>&1; then
	if node "$SRC/tests/tools/k8s-check.mjs" "$tools" "$TMP/docs.json" >"$TMP/check.out" 2>&1; then
		ok "the Kubernetes API's schema accepts every object"
	else not_ok "the schema refuses: $(head -3 "$TMP/check.out" | tr '\n' ' ')"; fi
	for b in bad-type bad-required; do
		node "$SRC/tests/tools/k8s-check.mjs" "$tools" "$TMP/$b.json" >"$TMP/$b.out" 2>&1 &&
			not_ok "$b: the schema took a planted fault" || ok "$b: the schema refuses it ($(head -1 "$TMP/$b.out"))"
	done
else
	[ -n "${CI:-}" ] && not_ok "the npm test tools could not be installed: $(tail -1 "$TMP/npm.err")" ||
		ok "# SKIP no npm tools: $(tail -1 "$TMP/npm.err")"
fi

# ---- systemd ----
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
set -- $exec_line
[ "$2" = exporter ] && ok "the unit runs 'gpufeed exporter'" || not_ok "the unit's ExecStart: $exec_line"
shift 2
unknown=$(printf '%s\n' "$@" | grep '^--' | sed 's/=.*//' | grep -vxF -f "$TMP/options")
[ -z "$unknown" ] && ok "the unit's options are gpufeed exporter's" || not_ok "options gpufeed exporter lacks: $unknown"
if command -v systemd-analyze >/dev/null; then
	# The unit as installed, its ExecStart pointed at this build (verify
	# wants the program to exist); man pages need not be installed.
	sed "s|^ExecStart=[^ ]*|ExecStart=$GPUFEED|" "$unit" >"$TMP/gpufeed-exporter.service"
	if systemd-analyze verify --man=no "$TMP/gpufeed-exporter.service" >"$TMP/verify.out" 2>&1 &&
	   ! grep -q . "$TMP/verify.out"; then
		ok "systemd-analyze verify: no error, no warning"
	else not_ok "systemd-analyze verify: $(head -3 "$TMP/verify.out" | tr '\n' ' ')"; fi
	sed 's/^ProtectSystem=/ProtectSystm=/' "$TMP/gpufeed-exporter.service" >"$TMP/bad.service"
	systemd-analyze verify --man=no "$TMP/bad.service" >"$TMP/bad.out" 2>&1
	grep -q "ProtectSystm" "$TMP/bad.out" && ok "a misspelt key is seen" || not_ok "a misspelt key went unseen"
else
	[ -n "${CI:-}" ] && not_ok "systemd-analyze is needed" || ok "# SKIP no systemd-analyze"
fi
finish
