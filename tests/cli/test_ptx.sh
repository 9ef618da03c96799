#!/usr/bin/env bash
# test-scope: tree (checks the tree, not the build: tests/run.sh runs it in the full set only)
# The committed PTX (gpu/kernels/*.ptx) is nvcc's output for the committed
# .cu: `make ptx` records the sha256 of each .cu in its .ptx, and a .cu
# changed without `make ptx` fails here.  nvcc is not needed.
. "$(dirname "$0")/lib.sh"
cd "$SRC" || exit 1
for cu in gpu/kernels/*.cu; do
	ptx=${cu%.cu}.ptx
	want=$(sha256sum "$cu" | cut -d' ' -f1)
	have=$(sed -n 's|^// gpufeed-source-sha256: \([0-9a-f]*\)$|\1|p' "$ptx" 2>/dev/null)
	if [ "$have" = "$want" ]; then ok "$ptx is nvcc's output for $cu"
	else not_ok "$ptx is stale or missing: run 'make ptx' where nvcc is (see gpu/kernels/README.md)"; fi
	entry=$(basename "$cu" .cu)
	if grep -q "^\.visible \.entry gf_$entry(" "$ptx" 2>/dev/null; then ok "$ptx has entry gf_$entry"
	else not_ok "$ptx lacks entry gf_$entry"; fi
done
finish
