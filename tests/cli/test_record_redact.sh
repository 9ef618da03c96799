#!/usr/bin/env bash
# gpufeed record --redact: no original identity (host name, MAC, GUID, GPU
# and MIG UUIDs, a serial) is left anywhere in the archive (grep over every
# unpacked file, name and link target), the manifest says what was redacted,
# and topo, check and report read the same machine, identities aside.
. "$(dirname "$0")/lib.sh"

# The originals, found independently of gpufeed: the host name, every
# netdev address and InfiniBand GUID that is not all zeros or all ones, and
# every UUID and serial in nvml.json, and the file systems' UUIDs on the
# kernel command line (root=UUID=..., resume=PARTUUID=...).
originals() { # DIR
	cat "$1/proc/sys/kernel/hostname"
	grep -o -E '(PART)?UUID=[^ ]+' "$1/proc/cmdline" | cut -d= -f2
	find "$1/sys/devices" \( -path '*/net/*/address' -o -name node_guid -o -name sys_image_guid \) -type f \
		-exec cat {} + | grep -v -E '^(00[:]?)+00$|^(ff[:]?)+ff$|^(0000[:]?)+0000$'
	jq -r '.. | objects | (.uuid?, .cluster_uuid?, .serial?) | strings' "$1/nvml.json" | sed 's/^\(GPU\|MIG\)-//' |
		grep -v -E '^[0:-]+$'	# an all-zero cluster UUID names nothing
}

# Identities masked, so what remains is the model: UUIDs, MACs (6 or 20
# octets), GUIDs, the host name and its pseudonym, the recording's path.
normalise() { # FILE HOST PSEUDO ROOT
	sed -E -e 's/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/UUID/g' \
		-e 's/([0-9a-fA-F]{2}:){5,19}[0-9a-fA-F]{2}/MAC/g' -e 's/([0-9a-f]{4}:){3}[0-9a-f]{4}/GUID/g' \
		-e "s#$4#ROOT#g" -e "s/\\b$2\\b/HOST/g" -e "s/\\b$3\\b/HOST/g" \
		-e '/"generated_at"/d' "$1"
}

# An HGX with a planted GPU serial in nvml.json (kept byte for byte by
# record --root), and the real 2 x H200 VM with its real UUIDs.
cp -a "$FIX/hgx-h100-8gpu/root" "$TMP/hgx"
jq '.gpus[0].serial = "1654923011742"' "$FIX/hgx-h100-8gpu/root/nvml.json" >"$TMP/hgx/nvml.json"

for m in hgx h200x2-vm; do
	src=$TMP/$m
	[ -d "$src" ] || src=$(realpath "$FIX/$m/root")
	expect_rc 0 "$m: record --redact" "$GPUFEED" record --root "$src" --redact "$TMP/$m-red.tar.gz" --quiet
	mkdir "$TMP/$m-x" && tar -C "$TMP/$m-x" -xzf "$TMP/$m-red.tar.gz"
	red=$TMP/$m-x/$m-red
	originals "$src" | sort -u >"$TMP/$m.orig"
	norig=$(wc -l <"$TMP/$m.orig")
	[ "$norig" -ge 3 ] && ok "$m: $norig original values to look for" || not_ok "$m: only $norig originals found"
	left=0
	while IFS= read -r v; do
		[ -n "$v" ] || continue
		if [ "$v" = "$(cat "$src/proc/sys/kernel/hostname")" ]; then	# a word: "vm" is inside "kvm"
			hit=$(grep -r -l -w -F -- "$v" "$red" | head -1)
		else
			hit=$(grep -r -l -i -F -- "$v" "$red" | head -1)
			[ -n "$hit" ] || hit=$(find "$red" \( -iname "*$v*" -o -lname "*$v*" \) | head -1)
		fi
		[ -z "$hit" ] || { left=$((left + 1)); echo "#   '$v' remains in ${hit#$red/}"; }
	done <"$TMP/$m.orig"
	[ "$left" = 0 ] && ok "$m: no original value remains in any file, name or link" ||
		not_ok "$m: $left original values remain"
	expect_jq "$red/gpufeed-recording.json" '.redacted.hostname == 1 and .redacted.uuid >= 2' \
		"$m: the manifest says what was redacted"
	host=$(cat "$src/proc/sys/kernel/hostname") pseudo=$(cat "$red/proc/sys/kernel/hostname")
	[ "${#host}" = "${#pseudo}" ] && [ "$host" != "$pseudo" ] &&
		ok "$m: host name $host became $pseudo (same length)" || not_ok "$m: host name '$host' -> '$pseudo'"
	# Both read through paths of one length: check wraps a long path, and
	# the wrap must fall in the same place.
	cp -a "$src" "$TMP/$m-a" && cp -a "$red" "$TMP/$m-b"
	for cmd in "topo --json" "topo" "check --all --fail-on never" "report"; do
		"$GPUFEED" $cmd --root "$TMP/$m-a" >"$TMP/a" 2>&1
		"$GPUFEED" $cmd --root "$TMP/$m-b" >"$TMP/b" 2>&1
		normalise "$TMP/a" "$host" "$pseudo" "$TMP/$m-a" >"$TMP/a.n"
		normalise "$TMP/b" "$host" "$pseudo" "$TMP/$m-b" >"$TMP/b.n"
		if diff "$TMP/a.n" "$TMP/b.n" >"$TMP/d"; then ok "$m: $cmd reads the same machine, identities aside"
		else not_ok "$m: $cmd differs: $(head -4 "$TMP/d" | tr '\n' ' ')"; fi
	done
done

# The planted serial and the MACs are found, not just absent by chance.
expect_jq "$TMP/hgx-x/hgx-red/gpufeed-recording.json" '.redacted.serial == 1 and .redacted.mac >= 10 and .redacted.guid >= 8' \
	"hgx: the serial, every NIC's address and GUID were counted"
# Without --redact the originals stay (the grep above can find them).
expect_rc 0 "record without --redact" "$GPUFEED" record --root "$TMP/hgx" "$TMP/plain" --quiet
expect_grep "$TMP/plain/nvml.json" "1654923011742" "without --redact the serial is kept"
expect_jq "$TMP/plain/gpufeed-recording.json" 'has("redacted") | not' "without --redact the manifest has no 'redacted'"
finish
