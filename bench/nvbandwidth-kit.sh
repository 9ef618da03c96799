#!/usr/bin/env bash
# Builds NVIDIA's nvbandwidth (the reference for `gpufeed bench h2d` and
# `bench p2p`) into bench/.nvbw/nvbandwidth, here, without cmake and without
# a GPU: one binary with Boost program_options linked statically, that the
# lead carries to a lent GPU machine (which has no network and no apt).
#
#   bench/nvbandwidth-kit.sh [NVBANDWIDTH_GIT_DIR [GO_NVML_GIT_DIR]]
#
# NVBANDWIDTH_GIT_DIR: a git directory of github.com/NVIDIA/nvbandwidth (a
# mirror; default /work/.mirror/NVIDIA+nvbandwidth/repo); its v0.8 commit
# 66746a3 (or NVBW_COMMIT) is exported with git archive.  This machine's
# CUDA toolkit lacks nvml.h and any libnvidia-ml: the header comes from
# github.com/NVIDIA/go-nvml (pkg/nvml/nvml.h, NVIDIA's own copy; default
# /work/.mirror/NVIDIA+go-nvml/repo) unless the toolkit has one, and the
# link uses a stub libnvidia-ml.so.1 made here from the symbols nvbandwidth
# calls (the driver's real library is loaded on the GPU machine, as the
# toolkit's stubs/libcuda.so stands in for libcuda.so.1).  Boost comes from
# Debian's packages (apt-get download; unpacked under bench/.nvbw, never
# installed).  Nothing fetched is committed: bench/.nvbw/ is in .gitignore.
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), NVBW_ARCHS (default
# "80 90": sm_80 and sm_90 code, and PTX for the newest so later GPUs JIT).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kit=$here/.nvbw
git_dir=${1:-/work/.mirror/NVIDIA+nvbandwidth/repo}
nvml_git=${2:-/work/.mirror/NVIDIA+go-nvml/repo}
cuda_root=$(dirname "$(dirname "$(readlink -f "${NVCC:-/usr/local/cuda/bin/nvcc}")")")
commit=${NVBW_COMMIT:-66746a3}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
archs=${NVBW_ARCHS:-80 90}

die() { echo "nvbandwidth-kit: $*" >&2; exit 1; }
[ -x "$nvcc" ] || die "no nvcc at $nvcc (set NVCC)"
mkdir -p "$kit"

# The source, at a fixed commit, without history.
if [ ! -f "$kit/src/nvbandwidth.cpp" ]; then
	[ -d "$git_dir" ] || die "no nvbandwidth git directory at $git_dir (fetch github:NVIDIA/nvbandwidth)"
	rm -rf "$kit/src" && mkdir -p "$kit/src"
	git --git-dir="$git_dir" archive "$commit" | tar -x -C "$kit/src"
fi

# Boost program_options, headers and static library, from Debian packages.
boost=$kit/boost
if [ ! -f "$boost/usr/lib/x86_64-linux-gnu/libboost_program_options.a" ]; then
	mkdir -p "$kit/debs" "$boost"
	(cd "$kit/debs" && apt-get download libboost-program-options1.74-dev libboost-program-options1.74.0 \
		libboost1.74-dev >/dev/null)
	for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$boost"; done
fi

# nvml.h: the toolkit's, else go-nvml's.
inc=$kit/include
mkdir -p "$inc"
if [ -f "$cuda_root/include/nvml.h" ]; then
	cp "$cuda_root/include/nvml.h" "$inc/nvml.h"
elif [ ! -f "$inc/nvml.h" ]; then
	[ -d "$nvml_git" ] || die "no nvml.h in $cuda_root/include and no go-nvml git directory at $nvml_git"
	git --git-dir="$nvml_git" show HEAD:pkg/nvml/nvml.h >"$inc/nvml.h"
fi

gencode=()
last=
for a in $archs; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); last=$a; done
gencode+=(-gencode "arch=compute_$last,code=compute_$last")

cd "$kit/src"
version=$(git --git-dir="$git_dir" describe --tags --always "$commit" 2>/dev/null || echo "$commit")
# Objects first (multinode_* compile to nothing without MULTINODE, which
# needs MPI); then the stub NVML from what they call; then the link, with
# libcuda and NVML by soname (the driver's on the GPU machine).
objs=$kit/obj
mkdir -p "$objs"
srcs=(testcase.cpp testcases_ce.cpp testcases_sm.cpp kernels.cu memcpy.cpp nvbandwidth.cpp
      multinode_memcpy.cpp multinode_testcases.cpp output.cpp json_output.cpp json/jsoncpp.cpp)
for s in "${srcs[@]}"; do
	o=$objs/$(basename "${s%.*}").o
	[ "$o" -nt "$s" ] && continue
	"$nvcc" -O2 -std=c++17 "${gencode[@]}" -DGIT_VERSION="\"$version\"" -I. -I"$inc" \
		-I"$boost/usr/include" -c "$s" -o "$o" &
	while [ "$(jobs -r | wc -l)" -ge "${NVBW_JOBS:-2}" ]; do wait -n; done
done
wait
stub=$kit/stub
mkdir -p "$stub"
nm -u "$objs"/*.o | awk '$2 ~ /^nvml/ {print $2}' | sort -u |
	awk '{printf "int %s(void) { return 999; }\n", $1}' >"$stub/nvml_stub.c"
cc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 "$stub/nvml_stub.c" -o "$stub/libnvidia-ml.so"
"$nvcc" "${gencode[@]}" "$objs"/*.o "$boost/usr/lib/x86_64-linux-gnu/libboost_program_options.a" \
	-L"$stub" -lnvidia-ml -L"$cuda_root/lib64/stubs" -lcuda -o "$kit/nvbandwidth"

echo "nvbandwidth-kit: built $kit/nvbandwidth ($version, sm_${archs// /, sm_}), $(du -h "$kit/nvbandwidth" | cut -f1)"
# ldd here cannot find libcuda.so.1 or libnvidia-ml.so.1 (no driver): the
# NEEDED entries are what the GPU machine will load.
readelf -d "$kit/nvbandwidth" | awk '/NEEDED/ {print "  needs " $NF}'
bad=$(readelf -d "$kit/nvbandwidth" | awk '/NEEDED/ {gsub(/[][]/, "", $NF); print $NF}' |
	grep -v -E '^(ld-linux-x86-64|libcuda|libnvidia-ml|libc|libm|libgcc_s|libstdc\+\+|libpthread|libdl|librt)\.so' || true)
[ -z "$bad" ] || die "unexpected shared libraries: $bad"
