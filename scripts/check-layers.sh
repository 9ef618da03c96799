#!/usr/bin/env bash
# Layer rules of the tree (docs/design.md, "Layers"), checked on every
# #include:
#   - src/<sub>/ includes only its own headers, <gpufeed/...>, and the
#     headers that a subsystem it may use offers to others (tables below);
#     a subsystem may keep its files in folders of its own
#     (src/vendor/nvml/nvml.c): the subsystem is the first folder;
#   - cli/ includes only <gpufeed/...> public headers and its own cli/*.h;
#   - include/gpufeed/ (the public API) includes only <gpufeed/...> and
#     system headers, never the library's private ones;
#   - tests/fakes/ (stand-in vendor libraries) include only vendor ABI
#     declarations, src/vendor/**/*_api.h;
#   - no "../" includes; no include cycle between subsystems or headers.
#   scripts/check-layers.sh [SRCDIR]    exit 0 clean, 1 with each violation
# One awk pass reads every include of the tree; tsort finds the cycles.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

# Which subsystems each subsystem may include.  The graph is acyclic: a
# subsystem is only ever built on the ones listed before it.
DEPS='
core:
vendor: core
topo: core vendor
mem: core vendor
io: core mem
xfer: core io mem topo vendor
dataset: core io
pack: core dataset
loader: core io mem topo vendor dataset
coll: core vendor mem topo
bench: core io mem topo vendor xfer dataset loader coll
nccl: core vendor topo coll audit
audit: core vendor topo
tune: core vendor topo audit
record: core vendor topo audit
report: core topo audit
bind: core topo
launch: core topo bind
verify: core topo
place: core topo
emit: core topo
monitor: core vendor topo
exporter: core topo monitor audit
diagnose: core vendor topo monitor audit nccl coll
'
# What a subsystem offers the others ("*": every header), by its path inside
# the subsystem.  A header not listed is private to its subsystem.
OFFERS='
core: *
vendor: nvml/nvml_facts.h nvml/nvml.h cuda/cuda_device.h cuda/cuda_kernels.h cufile/cufile.h nccl/nccl.h
topo: render.h discover.h
mem: mem.h host.h
io: engine.h file.h
xfer:
dataset: format.h
pack:
loader:
coll: world.h ctl.h comm.h run.h
bench:
nccl:
audit: audit_render.h audit_record.h
tune:
record:
report:
bind:
launch:
verify:
place:
emit:
monitor:
exporter:
diagnose:
'

fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every subsystem folder must have its row.
subsystems=$(printf '%s\n' "$DEPS" | sed -n 's/^\([a-z_]*\):.*/\1/p' | tr '\n' ' ')
for d in src/*/; do
	d=${d%/}; d=${d#src/}
	case " $subsystems " in *" $d "*) ;; *)
		echo "src/$d: a subsystem not in the layer table: add its line to DEPS and OFFERS in scripts/check-layers.sh and to docs/design.md"
		fail=1 ;;
	esac
done

{ find src -name '*.[ch]'; find cli -name '*.[ch]'; find include -name '*.h'; find tests/fakes -name '*.c'; } \
	2>/dev/null | sort > "$tmp/files"
# Every file's includes, one pass.  Violations on stdout; "E sub top" lines
# (subsystem edges) and "H from to" lines (header edges) in $tmp/edges.
xargs -r awk -v deps="$DEPS" -v offers="$OFFERS" -v edges="$tmp/edges" '
function row(table, name,   n, lines, i, l) {
	n = split(table, lines, "\n")
	for (i = 1; i <= n; i++) {
		l = lines[i]
		if (index(l, name ":") == 1) { sub(/^[^:]*:[ \t]*/, "", l); return l }
	}
	return ""
}
function in_list(x, list) { return index(" " list " ", " " x " ") || index(" " list " ", " * ") }
function exists(path,   line, r) {
	if (path in seen) return seen[path]
	r = (getline line < path) >= 0; close(path)
	return seen[path] = r
}
BEGIN {
	n = split(deps, lines, "\n")
	for (i = 1; i <= n; i++) if (match(lines[i], /^[a-z_]+:/)) known[substr(lines[i], 1, RLENGTH - 1)] = 1
}
match($0, /^[ \t]*#[ \t]*include[ \t]*[<"][^>"]+[>"]/) {
	s = substr($0, RSTART, RLENGTH); sub(/^[^<"]*/, "", s)
	kind = substr(s, 1, 1) == "<" ? "sys" : "quote"
	gsub(/[<>"]/, "", s)
	file = FILENAME; line = FNR; target = s
	top = target; sub(/\/.*/, "", top)
	if (file ~ /^src\//) {
		sub_ = file; sub(/^src\//, "", sub_); sub(/\/.*/, "", sub_)
		if (target ~ /^\.\.\// || target ~ /\/\.\.\//) { print file ":" line ": includes " target ": no '"'"'../'"'"' includes"; next }
		if (target ~ /^gpufeed\//) next
		if (top == target) {
			# A bare name: a system header, or a sibling spelt without its folder.
			dir = file; sub(/\/[^\/]*$/, "", dir)
			if (kind == "quote" && exists(dir "/" target))
				print file ":" line ": includes \"" target "\": spell it \"" substr(dir, 5) "/" target "\""
			next
		}
		if (!(top in known)) next		# <sys/stat.h>, <linux/...>
		hdr = target; sub(/^[^\/]*\//, "", hdr)
		print "H src/" target " " file > edges
		if (top == sub_ || !(sub_ in known)) next
		print "E " sub_ " " top > edges
		if (!in_list(top, row(deps, sub_)))
			print file ":" line ": includes " target ", but " sub_ " may use only: " row(deps, sub_) " (DEPS in scripts/check-layers.sh)"
		else if (!in_list(hdr, row(offers, top)))
			print file ":" line ": includes " target ", private to " top " (it offers: " row(offers, top) ")"
	} else if (file ~ /^cli\//) {
		# cli/: the public API and its own headers only.
		if (target ~ /^gpufeed\//) {
			if (!exists("include/" target)) print file ":" line ": includes " target ": no such public header"
		} else if (target ~ /\//) {
			if (kind != "sys" || (top in known) || top == "src")
				print file ":" line ": includes " target ": cli/ sees only <gpufeed/...> and its own headers"
		} else if (kind == "quote" && !exists("cli/" target))
			print file ":" line ": includes \"" target "\": not a cli/ header; cli/ sees only <gpufeed/...>"
	} else if (file ~ /^include\//) {
		# The public API: nothing private leaks in.
		if (kind == "quote")
			print file ":" line ": includes \"" target "\": public headers use <gpufeed/...> or system headers only"
		else if (target !~ /^gpufeed\// && target ~ /\// && ((top in known) || top == "src"))
			print file ":" line ": includes <" target ">: a private header in the public API"
	} else if (file ~ /^tests\/fakes\//) {
		# A stand-in knows the vendor ABI, not gpufeed.
		if (target ~ /^vendor\/(.*\/)?[^\/]*_api\.h$/) next
		if (target ~ /\// && ((top in known) || top == "src" || top == "gpufeed"))
			print file ":" line ": includes " target ": a stand-in library includes only src/vendor/<lib>/<lib>_api.h"
	}
}' < "$tmp/files" > "$tmp/violations"
[ -s "$tmp/violations" ] && { cat "$tmp/violations"; fail=1; }
touch "$tmp/edges"

# ---- cycles: the allowed graph, the subsystems' includes, the headers' ----
# cycle NAME FILE: FILE holds "FROM TO" pairs; tsort names a loop's members.
cycle() {
	local out
	out=$(tsort "$2" 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')
	[ -z "$out" ] || { echo "include cycle among $1: $out"; fail=1; }
}
printf '%s\n' "$DEPS" | awk -F': *' 'NF { n = split($2, d, " "); for (i = 1; i <= n; i++) print $1, d[i]; print $1, $1 }' > "$tmp/deps"
cycle "subsystems in DEPS" "$tmp/deps"
awk '$1 == "E" { print $2, $3 }' "$tmp/edges" | sort -u > "$tmp/subs"
cycle "subsystems" "$tmp/subs"
# Header -> header: which headers each header includes.
awk '$1 == "H" && $3 ~ /\.h$/ { print $3, $2 }' "$tmp/edges" | sort -u > "$tmp/hdrs"
cycle "headers" "$tmp/hdrs"

[ $fail -eq 0 ] && echo "check-layers: ok ($(echo $subsystems | wc -w) subsystems, cli/, include/, tests/fakes/)"
exit $fail
