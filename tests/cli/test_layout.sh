#!/usr/bin/env bash
# The tree's structural rules, and each checker on a small bad example so a
# checker that passes everything fails here:
#   scripts/check-env.sh      getenv only in src/core/env.c
#   scripts/check-layers.sh   includes follow the layers of docs/design.md
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
printf '#include "vendor/nvml_facts.h"\n' >> "$TMP/tree/src/core/table.c"
layers_refuse "a cycle between subsystems" 'include cycle among subsystems: core vendor'

finish
