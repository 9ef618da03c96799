#!/usr/bin/env bash
# `make install` honours PREFIX and DESTDIR and installs the CLI, a shared
# library with a SONAME, a static library, the headers, a pkg-config file,
# the man pages, the docs and the shell completion; a program builds and runs against them.
set -euo pipefail
cd "$(dirname "$0")/../.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
prefix=/opt/gpufeed
make -s install PREFIX=$prefix DESTDIR="$stage" >/dev/null
root=$stage$prefix
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }
check "CLI installed" "[ -x $root/bin/gpufeed ]"
check "static library" "[ -f $root/lib/libgpufeed.a ]"
check "shared library with SONAME libgpufeed.so.0" \
	"readelf -d $root/lib/libgpufeed.so.0.1.0 | grep -q 'SONAME.*libgpufeed.so.0'"
check "SONAME link" "[ -L $root/lib/libgpufeed.so.0 ] && [ -L $root/lib/libgpufeed.so ]"
check "headers" "[ -f $root/include/gpufeed/gpufeed.h ] && [ -f $root/include/gpufeed/topo.h ]"
for page in man/*.1; do
	check "man page $(basename "$page") in share/man/man1" "cmp -s $page $root/share/man/man1/$(basename "$page")"
done
check "man pages for every command (gpufeed, topo, report, record, bench io)" \
	"[ \$(ls $root/share/man/man1/gpufeed*.1 | wc -l) -ge 5 ]"
check "the installed page reads (man -l)" \
	"! command -v man >/dev/null || MANWIDTH=80 man -l $root/share/man/man1/gpufeed-topo.1 2>/dev/null | grep -q -- '--root'"
check "docs in share/doc/gpufeed (README and every docs page)" \
	"cmp -s README.md $root/share/doc/gpufeed/README.md && (for d in docs/*.md; do cmp -s \$d $root/share/doc/gpufeed/\$(basename \$d) || exit 1; done)"
check "bash completion in share/bash-completion/completions" \
	"bash -c 'source $root/share/bash-completion/completions/gpufeed && complete -p gpufeed' | grep -q _gpufeed"
check "zsh completion in share/zsh/site-functions" "head -1 $root/share/zsh/site-functions/_gpufeed | grep -qx '#compdef gpufeed'"
check "pkg-config file names the prefix" "grep -q '^prefix=$prefix' $root/lib/pkgconfig/gpufeed.pc"
# The .pc follows PREFIX (and LIBDIR, INCLUDEDIR) from one install to the next:
# it was built once and kept, so /opt/x got one naming /usr/local.
make -s install PREFIX=/usr/local DESTDIR="$stage/a" >/dev/null
make -s install PREFIX=/opt/x LIBDIR=/opt/x/lib64 DESTDIR="$stage/b" >/dev/null
check "an install with another PREFIX after one to /usr/local names the new one in gpufeed.pc" \
	"grep -q '^prefix=/opt/x\$' $stage/b/opt/x/lib64/pkgconfig/gpufeed.pc && grep -q '^libdir=/opt/x/lib64\$' $stage/b/opt/x/lib64/pkgconfig/gpufeed.pc"
check "and the first install's still names /usr/local" "grep -q '^prefix=/usr/local\$' $stage/a/usr/local/lib/pkgconfig/gpufeed.pc"
check "only gf_ symbols exported" \
	"! nm -D --defined-only $root/lib/libgpufeed.so.0.1.0 | awk '{print \$3}' | grep -v -e '^gf_' -e '^GPUFEED_' | grep -q ."
check "every exported symbol carries a release node (src/libgpufeed.map)" \
	"! nm -D --defined-only $root/lib/libgpufeed.so.0.1.0 | awk '\$2 != \"A\"' | grep -v '@@GPUFEED_[0-9]*\\.[0-9]*\$' | grep -q ."
check "internal helpers hidden" "! nm -D --defined-only $root/lib/libgpufeed.so.0.1.0 | grep -q gf_fs_read"
cat >"$stage/demo.c" <<'C'
#include <stdio.h>
#include <gpufeed/gpufeed.h>

int main(int argc, char **argv)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t;

	o.root = argc > 1 ? argv[1] : NULL;
	if (gf_topo_discover(&o, &t)) {
		fprintf(stderr, "%s\n", gf_last_error());
		return 1;
	}
	printf("gpufeed %s: %d GPUs, %d CPUs, log filter in %s\n", gf_version(), t->ngpus, t->cpus.ncpu,
	       gf_env_name(GF_ENV_LOG));
	gf_topo_free(t);
	return 0;
}
C
export PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
check "a program builds with pkg-config (shared)" \
	"cc $stage/demo.c \$(pkg-config --cflags --libs gpufeed) -o $stage/demo"
check "and runs against the installed library" \
	"LD_LIBRARY_PATH=$root/lib $stage/demo tests/fixtures/machines/hgx-h100-8gpu/root.tar.gz | grep -q '8 GPUs, 224 CPUs, log filter in GPUFEED_LOG'"
check "a program builds statically" \
	"cc $stage/demo.c \$(pkg-config --cflags gpufeed) $root/lib/libgpufeed.a -ljansson -luring -lz -ldl -lpthread -lm -o $stage/demo-static"
check "static build runs" "$stage/demo-static tests/fixtures/machines/ci-vm/root.tar.gz | grep -q '0 GPUs'"
check "uninstall removes it" "make -s uninstall PREFIX=$prefix DESTDIR=$stage && [ ! -e $root/bin/gpufeed ]"
check "and the man pages" "[ -z \"\$(ls $root/share/man/man1/ 2>/dev/null)\" ]"
check "and the docs" "[ ! -e $root/share/doc/gpufeed ]"
check "and the completion scripts" "[ ! -e $root/share/bash-completion/completions/gpufeed ] && [ ! -e $root/share/zsh/site-functions/_gpufeed ]"
[ $fail -eq 0 ] && echo "test-install: all passed" || echo "test-install: FAILED"
exit $fail
