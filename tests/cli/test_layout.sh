#!/usr/bin/env bash
# The tree's structural rules, and each checker on a small bad example so a
# checker that passes everything fails here:
#   scripts/check-env.sh      getenv only in src/core/env.c
. "$(dirname "$0")/lib.sh"

# A scratch copy of the parts of the tree a checker reads.
scratch() {
	rm -rf "$TMP/tree"
	mkdir -p "$TMP/tree"
	cp -r "$SRC/src" "$SRC/cli" "$SRC/include" "$TMP/tree/"
}

# ---- environment registry ----
expect_rc 0 "check-env passes on the tree" bash "$SRC/scripts/check-env.sh" "$SRC"
scratch
printf 'static const char *x(void) { return getenv("GPUFEED_NEW"); }\n' >> "$TMP/tree/src/topo/gpus.c"
expect_rc 1 "check-env refuses a getenv in src/topo" bash "$SRC/scripts/check-env.sh" "$TMP/tree"
expect_grep "$out" "src/topo/gpus.c:.*getenv(\"GPUFEED_NEW\")" "and names the file, line and call"
scratch
printf 'static void y(void) { setenv("NO_COLOR", "1", 1); }\n' >> "$TMP/tree/cli/cli.c"
expect_rc 1 "check-env refuses a setenv in cli/" bash "$SRC/scripts/check-env.sh" "$TMP/tree"

finish
