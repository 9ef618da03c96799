#!/usr/bin/env bash
# Layer rules of the tree (docs/design.md, "Layers"), checked on every
# #include:
#   - src/<sub>/ includes only its own headers, <gpufeed/...>, and the
#     headers that a subsystem it may use offers to others (tables below);
#   - cli/ includes only <gpufeed/...> public headers and its own cli/*.h;
#   - include/gpufeed/ (the public API) includes only <gpufeed/...> and
#     system headers, never the library's private ones;
#   - tests/fakes/ (stand-in vendor libraries) include only vendor ABI
#     declarations, src/vendor/*_api.h;
#   - no "../" includes; no include cycle between subsystems or headers.
#   scripts/check-layers.sh [SRCDIR]    exit 0 clean, 1 with each violation
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

# Which subsystems each subsystem may include.  The graph is acyclic: a
# subsystem is only ever built on the ones listed before it.
DEPS='
core:
vendor: core
topo: core vendor
io: core
xfer: core io topo vendor
bench: core io topo vendor xfer
audit: core vendor topo
tune: core vendor topo audit
report: core topo audit
bind: core topo
launch: core topo bind
verify: core topo
place: core topo
emit: core topo
'
# What a subsystem offers the others ("*": every header).  A header not
# listed is private to its subsystem.
OFFERS='
core: *
vendor: nvml_facts.h cuda_device.h cuda_kernels.h cufile.h
topo: render.h locality.h
io: engine.h file.h
xfer:
bench:
audit: audit_render.h
tune:
report:
bind:
launch:
verify:
place:
emit:
'

fail=0
say() { echo "$*"; fail=1; }
row() { printf '%s\n' "$2" | sed -n "s/^$1:[[:space:]]*//p"; }
known() { printf '%s\n' "$DEPS" | grep -q "^$1:"; }
in_list() { case " $2 " in *" $1 "*|*" * "*) return 0 ;; esac; return 1; }

# FILE LINE KIND TARGET for every include of the given files.
includes() {
	awk '{
		if (match($0, /^[ \t]*#[ \t]*include[ \t]*[<"][^>"]+[>"]/)) {
			s = substr($0, RSTART, RLENGTH); sub(/^[^<"]*/, "", s)
			kind = substr(s, 1, 1) == "<" ? "sys" : "quote"
			gsub(/[<>"]/, "", s)
			print FILENAME, FNR, kind, s
		}
	}' "$@"
}

subsystems=$(printf '%s\n' "$DEPS" | sed -n 's/^\([a-z_]*\):.*/\1/p' | tr '\n' ' ')
for d in src/*/; do
	d=${d%/}; d=${d#src/}
	known "$d" || say "src/$d: a subsystem not in the layer table: add its line to DEPS and OFFERS in scripts/check-layers.sh and to docs/design.md"
done

# ---- src/<sub>/ ----
edges=$(mktemp); hedges=$(mktemp)
trap 'rm -f "$edges" "$hedges"' EXIT
files=$(find src -name '*.[ch]' | sort)
if [ -n "$files" ]; then
	includes $files > "$edges.inc"
	while read -r file line kind target; do
		sub=${file#src/}; sub=${sub%%/*}
		case $target in
		../*|*/../*) say "$file:$line: includes $target: no '../' includes"; continue ;;
		gpufeed/*) continue ;;
		esac
		top=${target%%/*}
		if [ "$top" = "$target" ]; then
			# A bare name: a system header, or a sibling spelt without its folder.
			[ "$kind" = quote ] && [ -f "src/$sub/$target" ] &&
				say "$file:$line: includes \"$target\": spell it \"$sub/$target\""
			continue
		fi
		in_list "$top" "$subsystems" || continue	# <sys/stat.h>, <linux/...>
		hdr=${target#*/}
		echo "src/$target $file" >> "$hedges"
		[ "$top" = "$sub" ] && continue
		known "$sub" || continue
		echo "$sub $top" >> "$edges"
		if ! in_list "$top" "$(row "$sub" "$DEPS")"; then
			say "$file:$line: includes $target, but $sub may use only: $(row "$sub" "$DEPS") (DEPS in scripts/check-layers.sh)"
		elif ! in_list "$hdr" "$(row "$top" "$OFFERS")"; then
			say "$file:$line: includes $target, private to $top (it offers: $(row "$top" "$OFFERS"))"
		fi
	done < "$edges.inc"
	rm -f "$edges.inc"
fi

# ---- cli/: the public API and its own headers only ----
for f in $(find cli -name '*.[ch]' 2>/dev/null | sort); do
	includes "$f"
done | while read -r file line kind target; do
	case $target in
	gpufeed/*) [ -f "include/$target" ] || echo "$file:$line: includes $target: no such public header" ;;
	*/*) [ "$kind" = sys ] && ! in_list "${target%%/*}" "$subsystems src" ||
		echo "$file:$line: includes $target: cli/ sees only <gpufeed/...> and its own headers" ;;
	*) [ "$kind" = quote ] && [ ! -f "cli/$target" ] &&
		echo "$file:$line: includes \"$target\": not a cli/ header; cli/ sees only <gpufeed/...>" ;;
	esac
done > "$edges.cli"
[ -s "$edges.cli" ] && { cat "$edges.cli"; fail=1; }
rm -f "$edges.cli"

# ---- include/gpufeed/: nothing private leaks into the public API ----
for f in $(find include -name '*.h' 2>/dev/null | sort); do
	includes "$f"
done | while read -r file line kind target; do
	case $kind:$target in
	sys:gpufeed/*) ;;
	quote:*) echo "$file:$line: includes \"$target\": public headers use <gpufeed/...> or system headers only" ;;
	sys:*/*) in_list "${target%%/*}" "$subsystems src" &&
		echo "$file:$line: includes <$target>: a private header in the public API" ;;
	esac
done > "$edges.pub"
[ -s "$edges.pub" ] && { cat "$edges.pub"; fail=1; }
rm -f "$edges.pub"

# ---- tests/fakes/: a stand-in knows the vendor ABI, not gpufeed ----
for f in $(find tests/fakes -name '*.c' 2>/dev/null | sort); do
	includes "$f"
done | while read -r file line kind target; do
	case $target in
	vendor/*_api.h) ;;
	*/*) in_list "${target%%/*}" "$subsystems src gpufeed" &&
		echo "$file:$line: includes $target: a stand-in library includes only src/vendor/*_api.h" ;;
	esac
done > "$edges.fake"
[ -s "$edges.fake" ] && { cat "$edges.fake"; fail=1; }
rm -f "$edges.fake"

# ---- cycles: the allowed graph, the subsystems' includes, the headers' ----
# cycle NAME FILE: FILE holds "FROM TO" pairs; tsort names a loop's members.
cycle() {
	local out
	out=$(tsort "$2" 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')
	[ -z "$out" ] || say "include cycle among $1: $out"
}
printf '%s\n' "$DEPS" | awk -F': *' 'NF { n = split($2, d, " "); for (i = 1; i <= n; i++) print $1, d[i]; print $1, $1 }' > "$edges.deps"
cycle "subsystems in DEPS" "$edges.deps"
sort -u "$edges" > "$edges.subs"
cycle "subsystems" "$edges.subs"
# Header -> header: which headers each header includes.
grep ' src/.*\.h$' "$hedges" | awk '{ print $2, $1 }' | sort -u > "$edges.hdrs"
cycle "headers" "$edges.hdrs"
rm -f "$edges.deps" "$edges.subs" "$edges.hdrs"

[ $fail -eq 0 ] && echo "check-layers: ok ($(echo $subsystems | wc -w) subsystems, cli/, include/, tests/fakes/)"
exit $fail
