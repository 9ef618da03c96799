#!/usr/bin/env bash
# deploy/: the systemd units verified by systemd-analyze and their ExecStart
# run on a recording; every `docker run` line of docs/deploy.md held to the
# CLI; and, where a Docker daemon and a Debian 12 base image are here, the
# image built and run (docs/deploy.md, "Tested here").
. "$(dirname "$0")/lib.sh"
UNITS=$SRC/deploy/systemd

# ---- systemd ----
if command -v systemd-analyze >/dev/null; then
	# verify needs the ExecStart binary and the man pages the units name.
	mkdir -p "$TMP/units" "$TMP/man/man1"
	cp "$SRC"/man/*.1 "$TMP/man/man1/"
	sed "s#/usr/local/bin/gpufeed#$GPUFEED#" "$UNITS/gpufeed-check.service" >"$TMP/units/gpufeed-check.service"
	cp "$UNITS/gpufeed-check.timer" "$TMP/units/"
	# verify exits 0 on an unknown key or a bad value (it only warns): any
	# output is a failure.
	if MANPATH=$TMP/man systemd-analyze verify "$TMP/units/gpufeed-check.service" "$TMP/units/gpufeed-check.timer" \
		>"$TMP/verify" 2>&1 && [ ! -s "$TMP/verify" ]; then
		ok "systemd-analyze verify: gpufeed-check.service and .timer, no warning"
	else not_ok "systemd-analyze verify: $(head -3 "$TMP/verify" | tr '\n' ' ')"; fi
	# The verification can fail.
	sed 's/^ProtectSystem=strict/ProtectSistem=strict/' "$TMP/units/gpufeed-check.service" >"$TMP/units/bad.service"
	MANPATH=$TMP/man systemd-analyze verify "$TMP/units/bad.service" >"$TMP/verify" 2>&1
	expect_grep "$TMP/verify" "Unknown key" "a misspelt key is reported by verify"
else
	[ -n "${CI:-}" ] && not_ok "systemd-analyze is needed under CI" || echo "# skip: no systemd-analyze"
fi

# The ExecStart line as written, on a recording: its exit status is one the
# unit counts as success, and the textfile it writes is what node_exporter reads.
exec_start=$(sed -n 's/^ExecStart=//p' "$UNITS/gpufeed-check.service")
success=$(sed -n 's/^SuccessExitStatus=//p' "$UNITS/gpufeed-check.service")
prom=$(echo "$exec_start" | sed -n 's/.*--prom \([^ ]*\).*/\1/p')
case $prom in /var/lib/prometheus/node-exporter/*.prom) ok "the unit writes into Debian's node_exporter textfile directory" ;;
*) not_ok "the unit writes $prom" ;; esac
cmd=${exec_start/\/usr\/local\/bin\/gpufeed/$GPUFEED}
cmd=${cmd/$prom/$TMP/gpufeed.prom}
run $cmd --root "$FIX/untuned-hgx/root"
if [ "$rc" = 0 ] || [[ " $success " == *" $rc "* ]]; then
	ok "ExecStart on untuned-hgx exits $rc, a success for the unit (SuccessExitStatus=$success)"
else not_ok "ExecStart on untuned-hgx exits $rc (SuccessExitStatus=$success)"; fi
[ "$rc" = 1 ] && ok "the planted problems are findings (exit 1)" || not_ok "untuned-hgx: exit $rc, wanted 1"
expect_grep "$TMP/gpufeed.prom" "^gpufeed_check_" "the textfile holds gpufeed_check_ metrics"
if command -v promtool >/dev/null; then
	if promtool check metrics <"$TMP/gpufeed.prom" >"$TMP/lint" 2>&1; then ok "promtool accepts the unit's textfile"
	else not_ok "promtool: $(head -2 "$TMP/lint" | tr '\n' ' ')"; fi
fi

# ---- the docker run lines of docs/deploy.md ----
# Joined across backslash-newlines; each is `docker run [opts] gpufeed CMD [args]`.
sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$SRC/docs/deploy.md" | grep -E '^ +docker run ' >"$TMP/lines"
nlines=$(wc -l <"$TMP/lines")
[ "$nlines" -ge 5 ] && ok "docs/deploy.md has $nlines docker run lines" || not_ok "only $nlines docker run lines"
grep -q -E -- ' -it | -ti | -t | --tty' "$TMP/lines" && not_ok "a docker run line has -it/-t" || ok "no docker run line has -it or -t"
while read -r line; do
	rest=${line#* gpufeed }
	[ "$rest" != "$line" ] || { not_ok "no image name 'gpufeed' in: $line"; continue; }
	read -r -a words <<<"$rest"
	sub=${words[0]}
	if ! "$GPUFEED" "$sub" --help >"$TMP/help" 2>/dev/null; then
		if [ "$sub" = exporter ]; then echo "# skip: this binary has no 'exporter' yet: $line"; continue; fi
		not_ok "gpufeed $sub: no such command ($line)"; continue
	fi
	bad=
	for w in "${words[@]:1}"; do
		case $w in --*) grep -q -- "${w%%=*}" "$TMP/help" || bad="$bad $w" ;; esac
	done
	[ -z "$bad" ] && ok "gpufeed $sub ${words[*]:1}: every option exists" || not_ok "gpufeed $sub: unknown$bad"
done <"$TMP/lines"

# ---- the image ----
if ! command -v docker >/dev/null || ! docker info >/dev/null 2>&1; then
	echo "# skip: no Docker daemon here (docs/deploy.md: the image is built where one runs)"
elif ! docker image inspect debian:12-slim >/dev/null 2>&1; then
	echo "# skip: no debian:12-slim image here and no registry assumed (docs/deploy.md: debootstrap + docker import)"
else
	tag=gpufeed-test-$$
	if DOCKER_BUILDKIT=0 docker build -q --network host -f "$SRC/deploy/Dockerfile" -t "$tag" "$SRC" >"$TMP/build" 2>&1; then
		ok "the image builds from deploy/Dockerfile"
		run docker run --rm --entrypoint id "$tag" -u
		[ "$(cat "$out")" = 10001 ] && ok "it runs as uid 10001, not root" || not_ok "it runs as uid $(cat "$out")"
		run docker run --rm --entrypoint /bin/sh "$tag" -c 'ldd /usr/local/bin/gpufeed'
		grep -q -E 'jansson|uring|libz' "$out" && not_ok "the binary links jansson, liburing or zlib dynamically" ||
			ok "only the C library is linked dynamically"
		# check as docs/deploy.md runs it (no --gpus: no GPU runtime here).
		line=$(grep ' gpufeed check$' "$TMP/lines" | head -1 | sed -e 's/--gpus all //' -e "s/ gpufeed check$/ $tag check/")
		run bash -c "$line"
		[ "$rc" = 0 ] || [ "$rc" = 1 ] && ok "check runs in the container as documented (exit $rc)" ||
			{ not_ok "check in the container: exit $rc"; head -3 "$err" | sed 's/^/#   /'; }
		expect_grep "$out" "gpufeed check:" "check in the container printed its results"
		run docker run --rm --read-only --cap-drop=ALL --security-opt=no-new-privileges \
			-v "$SRC/tests/fixtures/machines/h200x2-vm/root.tar.gz:/in/host.tar.gz:ro" "$tag" report --root /in/host.tar.gz
		[ "$rc" = 0 ] && grep -q "H200" "$out" && ok "report --root on a recording mounted read-only" ||
			not_ok "report --root in the container: exit $rc $(head -2 "$err" | tr '\n' ' ')"
		docker rmi -f "$tag" >/dev/null 2>&1
	else
		not_ok "docker build: $(tail -3 "$TMP/build" | tr '\n' ' ')"
	fi
fi
finish
