#!/usr/bin/env bash
# test-scope: tree (checks the tree, not the build: tests/run.sh runs it in the full set only)
# The tree's structural rules, and each checker on a small bad example so a
# checker that passes everything fails here:
#   scripts/check-env.sh      getenv only in src/core/env.c
#   scripts/check-layers.sh   includes follow the layers of docs/design.md
#   scripts/check-symbols.sh  the exported symbols are src/libgpufeed.map's
. "$(dirname "$0")/lib.sh"

# A scratch copy of the parts of the tree a checker reads.
scratch() {
	rm -rf "$TMP/tree"
	mkdir -p "$TMP/tree"
	mkdir -p "$TMP/tree/tests"
	cp -r "$SRC/src" "$SRC/cli" "$SRC/include" "$SRC/scripts" "$TMP/tree/"
	cp -r "$SRC/tests/fakes" "$TMP/tree/tests/"
}

# layers_refuse DESC PATTERN: check-layers fails on the scratch tree and its
# message matches PATTERN.
layers_refuse() {
	expect_rc 1 "check-layers refuses $1" bash "$TMP/tree/scripts/check-layers.sh" "$TMP/tree"
	expect_grep "$out" "$2" "  with: $2"
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
scratch
sed -i 's|^\(\tGF_ENV_SOURCE_DATE_EPOCH = 5,.*\)|\1\n\tGF_ENV_NEW_KNOB = 6,|' "$TMP/tree/include/gpufeed/env.h"
expect_rc 1 "check-env refuses an id without a registry row" bash "$SRC/scripts/check-env.sh" "$TMP/tree"
expect_grep "$out" "no row in src/core/env.c: GF_ENV_NEW_KNOB" "  and names it"

# ---- layers ----
expect_rc 0 "check-layers passes on the tree" bash "$SRC/scripts/check-layers.sh" "$SRC"
scratch
expect_rc 0 "check-layers passes on the scratch copy" bash "$TMP/tree/scripts/check-layers.sh" "$TMP/tree"
scratch
printf '#include "core/error.h"\n' >> "$TMP/tree/cli/cmd_topo.c"
layers_refuse "a private header in cli/" 'cli/cmd_topo.c:[0-9]*: includes core/error.h: cli/ sees only'
scratch
printf '#include <topo/render.h>\n' >> "$TMP/tree/cli/cli.h"
layers_refuse "a private header in cli/ spelt <...>" 'cli/cli.h:[0-9]*: includes topo/render.h: cli/ sees only'
scratch
printf '#include "io/engine.h"\n' >> "$TMP/tree/src/topo/gpus.c"
layers_refuse "topo using io (not in its DEPS)" 'src/topo/gpus.c:[0-9]*: includes io/engine.h, but topo may use only: core vendor'
scratch
printf '#include "topo/topo_internal.h"\n' >> "$TMP/tree/src/bench/io_report.c"
layers_refuse "another feature's private header" 'src/bench/io_report.c:[0-9]*: includes topo/topo_internal.h, private to topo'
scratch
printf '#include "vendor/cuda/cuda.h"\n' >> "$TMP/tree/src/topo/gpus.c"
layers_refuse "a private header in a subsystem's own folder" 'src/topo/gpus.c:[0-9]*: includes vendor/cuda/cuda.h, private to vendor'
scratch
printf '#include "cuda_api.h"\n' >> "$TMP/tree/src/vendor/cuda/cuda.c"
layers_refuse "a sibling spelt without its folders" 'src/vendor/cuda/cuda.c:[0-9]*: includes "cuda_api.h": spell it "vendor/cuda/cuda_api.h"'
scratch
printf '#include "../core/error.h"\n' >> "$TMP/tree/src/io/file.c"
layers_refuse "a ../ include" "src/io/file.c:[0-9]*: includes ../core/error.h: no '../' includes"
scratch
printf '#include "core/error.h"\n' >> "$TMP/tree/include/gpufeed/topo.h"
layers_refuse "a private header in the public API" 'include/gpufeed/topo.h:[0-9]*: includes "core/error.h"'
scratch
printf '#include "core/error.h"\n' >> "$TMP/tree/tests/fakes/fake_nvml.c"
layers_refuse "gpufeed's own code in a stand-in library" 'tests/fakes/fake_nvml.c:[0-9]*: includes core/error.h'
scratch
mkdir -p "$TMP/tree/src/plan" && printf 'int gf_plan_x;\n' > "$TMP/tree/src/plan/plan.c"
layers_refuse "a subsystem missing from the table" 'src/plan: a subsystem not in the layer table'
scratch
sed -i 's|#include <stddef.h>|#include <stddef.h>\n#include "core/error.h"|' "$TMP/tree/src/core/strutil.h"
printf '#include "core/strutil.h"\n' >> "$TMP/tree/src/core/error.h"
layers_refuse "a header include cycle" 'include cycle among headers: .*src/core/error.h'
scratch
sed -i 's/^core:$/core: vendor/' "$TMP/tree/scripts/check-layers.sh"
printf '#include "vendor/nvml/nvml_facts.h"\n' >> "$TMP/tree/src/core/table.c"
layers_refuse "a cycle between subsystems" 'include cycle among subsystems: core vendor'

# ---- exported symbols ----
B=${BUILD:-build}
case $B in /*) ;; *) B=$SRC/$B ;; esac
MAP=$SRC/src/libgpufeed.map
symbols() { expect_rc "$1" "$2" bash "$SRC/scripts/check-symbols.sh" "$B" "$TMP/map" "${3:-0.1.0}"; }
expect_rc 0 "check-symbols passes on the build" bash "$SRC/scripts/check-symbols.sh" "$B"
# A GF_API function not in the map (as when one is added to the code).
grep -v '^[[:space:]]*gf_version;' "$MAP" > "$TMP/map"
symbols 1 "check-symbols refuses a GF_API function missing from the map"
expect_grep "$out" "GF_API functions missing from .*: gf_version$" "  names it"
expect_grep "$out" "add them to the node GPUFEED_0.1" "  and the node to add it to"
symbols 1 "the same, building release 0.2" 0.2.0
expect_grep "$out" "^	GPUFEED_0.2 {" "  proposes a new node GPUFEED_0.2"
expect_grep "$out" "^	} GPUFEED_0.1;" "  that inherits GPUFEED_0.1"
# A map entry with no function.
sed 's/^\([[:space:]]*\)gf_version;/&\n\1gf_no_such_function;/' "$MAP" > "$TMP/map"
symbols 1 "check-symbols refuses a map entry with no function"
expect_grep "$out" "no GF_API function defines them: gf_no_such_function" "  names it"
# Wildcards hide what is exported.
sed 's/^\([[:space:]]*\)gf_version;/\1gf_*;/' "$MAP" > "$TMP/map"
symbols 1 "check-symbols refuses a wildcard"
expect_grep "$out" "wildcards in a global: section (gf_\*)" "  and says so"
# One name, two nodes; and a node other than the one the library carries.
{ cat "$MAP"; printf 'GPUFEED_0.2 {\n\tglobal:\n\t\tgf_version;\n} GPUFEED_0.1;\n'; } > "$TMP/map"
symbols 1 "check-symbols refuses a name in two nodes"
expect_grep "$out" "in more than one node: gf_version" "  names it"
{ grep -v '^[[:space:]]*gf_version;' "$MAP"; printf 'GPUFEED_0.2 {\n\tglobal:\n\t\tgf_version;\n} GPUFEED_0.1;\n'; } > "$TMP/map"
symbols 1 "check-symbols refuses a symbol exported under another node"
expect_grep "$out" "gf_version (GPUFEED_0.1, map: GPUFEED_0.2)" "  names both nodes"

finish
