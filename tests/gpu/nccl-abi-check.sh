#!/usr/bin/env bash
# Builds and runs tests/gpu/nccl_abi_check.c against the nccl.h of this
# machine (NCCL_HOME/include, /usr/include, the CUDA toolkit's, or the one
# PyTorch's nvidia-nccl wheel ships); exit 77 with one line where there is
# none.  nccl.h includes cuda_runtime.h: CUDA_HOME (else /usr/local/cuda)
# gives its directory.
set -u
cd "$(dirname "$0")/../.."
cuda=${CUDA_HOME:-/usr/local/cuda}
hdr=
for d in ${NCCL_HOME:+"$NCCL_HOME/include"} /usr/include "$cuda/include" \
	/usr/local/lib/python3*/dist-packages/nvidia/nccl/include ${VIRTUAL_ENV:+"$VIRTUAL_ENV"/lib/python3*/site-packages/nvidia/nccl/include}; do
	if [ -f "$d/nccl.h" ]; then hdr=$d/nccl.h; break; fi
done
if [ -z "$hdr" ]; then
	echo "skip: nccl.h not found: NCCL ABI check not run"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "nccl_abi_check: $hdr"
${CC:-cc} -std=c11 -Wall -Werror -I"$(dirname "$hdr")" -I"$cuda/include" -Isrc tests/gpu/nccl_abi_check.c \
	-o "$tmp/nabi" && "$tmp/nabi"
