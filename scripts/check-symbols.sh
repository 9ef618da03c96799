#!/usr/bin/env bash
# The symbols libgpufeed exports are exactly those src/libgpufeed.map names,
# each in one release node, and exactly the library's GF_API functions:
#   - a GF_API function missing from the map (it would be silently hidden),
#   - a map entry with no function (removed or renamed: an ABI break),
#   - a wildcard or a name in two nodes,
#   - a symbol exported under another node than the map says
# each fail with the names and where to put them.
#   scripts/check-symbols.sh [BUILD [MAP [VERSION]]]
#   defaults: build, src/libgpufeed.map, VERSION from the Makefile
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${1:-${BUILD:-build}}
MAP=${2:-src/libgpufeed.map}
VERSION=${3:-$(sed -n 's/^VERSION *:= *//p' Makefile)}
SO=$BUILD/libgpufeed.so
AR=$BUILD/libgpufeed.a
for f in "$SO" "$AR" "$MAP"; do
	[ -e "$f" ] || { echo "check-symbols: $f missing (make lib first)"; exit 2; }
done
open_node=GPUFEED_$(echo "$VERSION" | cut -d. -f1-2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# "NAME NODE" for every name in a global: section of the map.
sed 's|/\*.*\*/||g' "$MAP" | awk '
	/\/\*/ { incomment = 1 } incomment { if (/\*\//) incomment = 0; next }
	/^[A-Za-z_][A-Za-z0-9_.]*[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); section = ""; next }
	/global:/ { section = "global"; next }
	/local:/ { section = "local"; next }
	/^\}/ { node = ""; next }
	node != "" && section == "global" {
		for (i = 1; i <= NF; i++) { n = $i; sub(/;$/, "", n); if (n != "") print n, node }
	}' | sort > "$tmp/map"
nodes=$(grep -oE '^GPUFEED_[0-9]+\.[0-9]+' "$MAP" | tr '\n' ' ')

# What the objects make visible (GF_API: default visibility, the rest is
# hidden) and what the shared library exports, with its node.
readelf -sW "$AR" | awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" && ($4 == "FUNC" || $4 == "OBJECT") { print $8 }' |
	sort -u > "$tmp/api"
nm -D --defined-only "$SO" | awk '$2 != "A" { split($3, p, "@+"); print p[1], p[2] }' | sort > "$tmp/so"
cut -d' ' -f1 "$tmp/map" | sort > "$tmp/map.names"
cut -d' ' -f1 "$tmp/so" > "$tmp/so.names"

wild=$(cut -d' ' -f1 "$tmp/map" | grep '[*?]')
if [ -n "$wild" ]; then
	echo "check-symbols: $MAP: wildcards in a global: section ($(echo $wild)): list every name, so a new one cannot slip in unseen"
	fail=1
fi
dup=$(uniq -d "$tmp/map.names")
if [ -n "$dup" ]; then
	echo "check-symbols: $MAP: in more than one node: $(echo $dup) (a name lives in the node of the release that added it)"
	fail=1
fi
missing=$(sort -u "$tmp/api" "$tmp/so.names" | comm -23 - <(sort -u "$tmp/map.names") | grep -v '[*?]')
if [ -n "$missing" ]; then
	echo "check-symbols: GF_API functions missing from $MAP: $(echo $missing)"
	if printf '%s\n' $nodes | grep -qx "$open_node"; then
		echo "  add them to the node $open_node (the release this tree builds, VERSION $VERSION), one per line:"
	else
		echo "  add a node for the release this tree builds (VERSION $VERSION) after the last one:"
		echo "	$open_node {"
		echo "		global:"
	fi
	printf '\t\t%s;\n' $missing
	printf '%s\n' $nodes | grep -qx "$open_node" ||
		echo "	} $(printf '%s\n' $nodes | tail -n 1);"
	fail=1
fi
gone=$(comm -13 "$tmp/api" <(sort -u "$tmp/map.names") | grep -v '[*?]')
if [ -n "$gone" ]; then
	echo "check-symbols: in $MAP but no GF_API function defines them: $(echo $gone)"
	echo "  a released name is never removed: restore the function (or, if it never shipped, drop it from $open_node)"
	fail=1
fi
# Same names: each must carry the map's node (a stale or hand-linked .so).
wrong=$(join "$tmp/map" "$tmp/so" | awk '$2 != $3 { print $1 " (" $3 ", map: " $2 ")" }')
if [ -n "$wrong" ]; then
	echo "check-symbols: $SO exports under another node than $MAP says: $wrong (rebuild: make lib)"
	fail=1
fi
[ $fail -eq 0 ] && echo "check-symbols: ok ($(wc -l < "$tmp/so") symbols, nodes: $nodes)"
exit $fail
