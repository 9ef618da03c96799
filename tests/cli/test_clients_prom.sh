#!/usr/bin/env bash
# gpufeed check --prom read by Prometheus's own linter (Debian's prometheus
# package: promtool check metrics), on every fixture: the textfile
# node_exporter would serve parses, with HELP and TYPE, and no lint
# problem.  Without promtool this skips (77), except under CI.
. "$(dirname "$0")/lib.sh"

if ! command -v promtool >/dev/null; then
	if [ -n "${CI:-}" ]; then not_ok "promtool is needed (scripts/install-deps.sh test; CI must run this)"; finish; fi
	echo "skip: promtool is needed (scripts/install-deps.sh test)"; exit 77
fi

for m in hgx-h100-8gpu dual-8gpu-pcie-switch h200x4-vm ci-vm untuned-hgx; do
	run "$GPUFEED" check --root "$FIX/$m/root" --all --prom "$TMP/$m.prom"
	if [ "$rc" -gt 1 ]; then not_ok "check --prom on $m: exit $rc"; continue; fi
	if promtool check metrics <"$TMP/$m.prom" >"$TMP/lint" 2>&1; then
		ok "$m: promtool accepts the metrics ($(grep -vc '^#' "$TMP/$m.prom") samples)"
	else not_ok "$m: promtool: $(head -2 "$TMP/lint" | tr '\n' ' ')"; fi
done

# The check can fail: a sample with a broken label set is refused.
printf '# HELP x y\n# TYPE x gauge\nx{a="1} 1\n' >"$TMP/bad.prom"
promtool check metrics <"$TMP/bad.prom" >/dev/null 2>&1 && not_ok "promtool took a broken sample" ||
	ok "promtool refuses a broken sample"
finish
