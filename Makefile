# gpufeed — top-level build.
#
#   make                 build library, CLI (build/gpufeed) and tests with $(CC)
#   make check           build and run every test (tests/run.sh)
#   make CC=clang BUILD=build-clang check
#   make sanitize        ASan+UBSan build in build-asan/ running the whole test suite
#   make install PREFIX=/usr DESTDIR=/tmp/stage   (CLI, libraries, headers, man
#                        pages, docs in DOCDIR, shell completion)
#   make man             regenerate man/*.1 from the CLI's option tables
#   make api-doc         regenerate docs/api.md from the public headers' comments
#
# Plain GNU make, no generator: the tree is small and this keeps the build
# readable and the carried device build a single folder.

VERSION     := 0.1.0
SOVERSION   := 0
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/gpufeed
# Where bash-completion (its XDG_DATA_DIRS lookup) and zsh's fpath find them.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
DESTDIR     ?=

BUILD       ?= build
CC          ?= cc
OPT         ?= -O2 -g
SANITIZE    ?=

# -Wformat-truncation is off: it flags every bounded snprintf of a path,
# and a truncated path here fails its lookup (ENOENT) rather than overflow.
WARN   := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wformat=2 -Wvla -Wpointer-arith -Wundef -Wno-format-nonliteral
ifeq ($(findstring clang,$(shell $(CC) --version 2>/dev/null | head -1)),)
WARN   += -Wno-format-truncation
endif
BASE   := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN) $(OPT) $(SANITIZE) \
          -DGF_VERSION_STRING='"$(VERSION)"' -MMD -MP

JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
CMOCKA_CFLAGS  := $(shell pkg-config --cflags cmocka 2>/dev/null)
# The CLI and tests link jansson statically when the archive exists, so one
# binary built here runs on machines that lack libjansson (GPU hosts).
JANSSON_A      := $(firstword $(wildcard /usr/lib/$(shell $(CC) -dumpmachine)/libjansson.a /usr/lib/libjansson.a /usr/local/lib/libjansson.a))
ifeq ($(JANSSON_A),)
JANSSON_LIBS   := -ljansson
else
JANSSON_LIBS   := $(JANSSON_A)
endif
# liburing likewise: the device machines have no liburing package.
URING_A        := $(firstword $(wildcard /usr/lib/$(shell $(CC) -dumpmachine)/liburing.a /usr/lib/liburing.a /usr/local/lib/liburing.a))
ifeq ($(URING_A),)
URING_LIBS     := -luring
else
URING_LIBS     := $(URING_A)
endif
# zlib likewise (recordings as .tar.gz): libz.so.1 is everywhere, zlib1g-dev is not.
ZLIB_A         := $(firstword $(wildcard /usr/lib/$(shell $(CC) -dumpmachine)/libz.a /usr/lib/libz.a /usr/local/lib/libz.a))
ifeq ($(ZLIB_A),)
ZLIB_LIBS      := -lz
else
ZLIB_LIBS      := $(ZLIB_A)
endif
SYS_LIBS       := -ldl -lpthread -lm

LIB_CFLAGS  := $(BASE) -Iinclude -Isrc $(JANSSON_CFLAGS)
# The CLI sees the public API only.
CLI_CFLAGS  := $(BASE) -Iinclude
TEST_CFLAGS := $(BASE) -Iinclude -Isrc -Itests/unit $(JANSSON_CFLAGS) $(CMOCKA_CFLAGS) -Wno-missing-prototypes

LIB_SRCS  := $(sort $(wildcard src/*/*.c src/*/*/*.c))
CLI_SRCS  := $(sort $(wildcard cli/*.c))
TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TESTLIB_SRCS := $(sort $(filter-out $(TEST_SRCS),$(wildcard tests/unit/*.c)))
# Stand-in vendor libraries (rule below): fake_<lib>.c -> $(BUILD)/fakes/<soname>.
FAKE_SRCS := $(sort $(wildcard tests/fakes/fake_*.c))
fake_soname = $(or $(shell sed -n 's/.*fake-soname: *\([^ *]*\).*/\1/p' $(1) | head -n 1),$(error $(1) has no "fake-soname:" line))
FAKE_LIBS := $(foreach f,$(FAKE_SRCS),$(BUILD)/fakes/$(call fake_soname,$(f)))

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
# Device code: gpu/kernels/*.cu, compiled to PTX by `make ptx` where nvcc
# exists and committed, so this build needs no CUDA toolkit; the PTX is
# embedded into the library as C arrays (vendor/cuda_kernels.h).
PTX_FILES := $(sort $(wildcard gpu/kernels/*.ptx))
PTX_OBJ   := $(BUILD)/obj/gen/ptx_images.o
LIB_OBJS  += $(PTX_OBJ)
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
# README and docs/*.md, built into the CLI ('gpufeed help TOPIC',
# cli/help_topic.h) and installed into DOCDIR.
DOC_PAGES := README.md $(sort $(wildcard docs/*.md))
DOCS_OBJ  := $(BUILD)/obj/gen/docs.o
CLI_OBJS  += $(DOCS_OBJ)
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# The CUDA layer against a real GPU: built everywhere (so every compiler
# checks it), run on GPU machines by tests/gpu/run-gpu-tests.sh.
# examples/: small programs on the public API (built like a user's program,
# -Iinclude only, against the static library); tests/cli/test_examples.sh runs them.
EXAMPLE_SRCS := $(sort $(wildcard examples/*.c))
EXAMPLES := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)
GPU_SMOKE := $(BUILD)/gpu/cuda_smoke
GPU_XFER_CHECK := $(BUILD)/gpu/xfer_check
GPU_LOADER_CHECK := $(BUILD)/gpu/loader_check

STATIC_LIB := $(BUILD)/libgpufeed.a
SHARED_REAL := $(BUILD)/libgpufeed.so.$(VERSION)
SHARED_SONAME := libgpufeed.so.$(SOVERSION)
CLI := $(BUILD)/gpufeed
PC_FILE := $(BUILD)/gpufeed.pc
# One page per command, written by the binary from its option tables
# ('gpufeed help --man [COMMAND [SUB]]') and committed; tests/cli/test_help.sh
# fails when they differ from what the binary writes.
MAN_PAGES := man/gpufeed.1 man/gpufeed-check.1 man/gpufeed-tune.1 man/gpufeed-revert.1 man/gpufeed-report.1 man/gpufeed-topo.1 man/gpufeed-record.1 man/gpufeed-bench-io.1
MAN_PAGES += man/gpufeed-run.1
MAN_PAGES += man/gpufeed-verify.1
MAN_PAGES += man/gpufeed-diagnose.1
MAN_PAGES += man/gpufeed-plan.1
MAN_PAGES += man/gpufeed-config-kubelet.1 man/gpufeed-config-slurm.1 man/gpufeed-config-nccl-topo.1 man/gpufeed-config-labels.1
MAN_PAGES += man/gpufeed-launch.1
MAN_PAGES += man/gpufeed-nccl-log.1 man/gpufeed-nccl-check.1 man/gpufeed-nccl-fr.1 man/gpufeed-nccl-ras.1
MAN_PAGES += man/gpufeed-bench-mem.1
MAN_PAGES += man/gpufeed-bench-h2d.1
MAN_PAGES += man/gpufeed-bench-p2p.1
MAN_PAGES += man/gpufeed-bench-io-gpu.1
MAN_PAGES += man/gpufeed-bench-loader.1
MAN_PAGES += man/gpufeed-bench-coll.1
MAN_PAGES += man/gpufeed-bench-overlap.1
MAN_PAGES += man/gpufeed-pack.1 man/gpufeed-inspect.1
MAN_PAGES += man/gpufeed-exporter.1
MAN_PAGES += man/gpufeed-watch.1
MAN_PAGES += man/gpufeed-completion.1

.PHONY: all lib cli tests examples check sanitize clang install uninstall clean man ptx api-doc python fuzz-nccl-log
all: lib cli tests

lib: $(STATIC_LIB) $(SHARED_REAL)
cli: $(CLI)
tests: $(TEST_BINS) $(FAKE_LIBS) $(GPU_SMOKE) $(GPU_XFER_CHECK) $(GPU_LOADER_CHECK) $(EXAMPLES)
examples: $(EXAMPLES)

$(BUILD)/obj/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/obj/cli/%.o: cli/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/gen/ptx_images.c: $(PTX_FILES) scripts/embed-ptx.sh
	@mkdir -p $(dir $@)
	scripts/embed-ptx.sh $@ $(PTX_FILES)

$(PTX_OBJ): $(BUILD)/gen/ptx_images.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

# PTX for compute capability 8.0, which the driver JIT-compiles for the GPU
# it runs on (sm_80, sm_90, ...).  Run by hand where nvcc is (never by
# `make all`: a checkout's timestamps must not call for nvcc); each .ptx
# records the sha256 of its .cu, and tests/cli/test_ptx.sh fails when a .cu
# changed without `make ptx`.
NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) nvcc)
ptx:
	@set -e; for cu in $(sort $(wildcard gpu/kernels/*.cu)); do \
	    ptx=$${cu%.cu}.ptx; \
	    $(NVCC) -ptx -arch=compute_80 -o $$ptx.tmp $$cu; \
	    echo "// gpufeed-source-sha256: $$(sha256sum $$cu | cut -d' ' -f1)" >>$$ptx.tmp; \
	    mv $$ptx.tmp $$ptx; echo "  PTX $$ptx"; done

$(BUILD)/gen/docs.c: $(DOC_PAGES) scripts/embed-docs.sh
	@mkdir -p $(dir $@)
	scripts/embed-docs.sh $@ $(DOC_PAGES)

$(DOCS_OBJ): $(BUILD)/gen/docs.c
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -Icli -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(SHARED_REAL): $(LIB_OBJS) src/libgpufeed.map
	$(CC) -shared -Wl,-soname,$(SHARED_SONAME) -Wl,--version-script=src/libgpufeed.map \
	    -Wl,--no-undefined $(SANITIZE) -o $@ $(LIB_OBJS) -ljansson -luring -lz $(SYS_LIBS)
	ln -sf libgpufeed.so.$(VERSION) $(BUILD)/$(SHARED_SONAME)
	ln -sf $(SHARED_SONAME) $(BUILD)/libgpufeed.so

$(CLI): $(CLI_OBJS) $(STATIC_LIB)
	$(CC) $(SANITIZE) -o $@ $(CLI_OBJS) $(STATIC_LIB) $(JANSSON_LIBS) $(URING_LIBS) $(ZLIB_LIBS) $(SYS_LIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TESTLIB_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(SANITIZE) -o $@ $< $(TESTLIB_OBJS) $(STATIC_LIB) $(JANSSON_LIBS) $(URING_LIBS) $(ZLIB_LIBS) -lcmocka $(SYS_LIBS)

$(BUILD)/examples/%: examples/%.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CLI_CFLAGS) -o $@ $< $(STATIC_LIB) $(JANSSON_LIBS) $(URING_LIBS) $(ZLIB_LIBS) $(SYS_LIBS)

$(GPU_SMOKE): $(BUILD)/obj/tests/gpu/cuda_smoke.o $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(SANITIZE) -o $@ $< $(STATIC_LIB) $(JANSSON_LIBS) $(URING_LIBS) $(ZLIB_LIBS) $(SYS_LIBS)

$(GPU_XFER_CHECK): $(BUILD)/obj/tests/gpu/xfer_check.o $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(SANITIZE) -o $@ $< $(STATIC_LIB) $(JANSSON_LIBS) $(URING_LIBS) $(ZLIB_LIBS) $(SYS_LIBS)

$(GPU_LOADER_CHECK): $(BUILD)/obj/tests/gpu/loader_check.o $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(SANITIZE) -o $@ $< $(STATIC_LIB) $(JANSSON_LIBS) $(URING_LIBS) $(ZLIB_LIBS) $(SYS_LIBS)

# The Python binding (python/, docs/python.md): `make python` builds the
# abi3 extension in place, linked to this build's libgpufeed.so through an
# rpath relative to it (PY_EXT=elsewhere: tests/cli/test_python.sh builds one
# per build directory); `pip install ./python` links the static library
# instead (python/setup.py).
PYTHON ?= /usr/bin/python3
PY_EXT ?= python/gpufeed/_gpufeed.abi3.so
python: $(PY_EXT)
$(PY_EXT): $(wildcard python/src/*.[ch] include/gpufeed/*.h) $(SHARED_REAL)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(BASE)) -Iinclude -I$(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])') \
	    -DPy_LIMITED_API=0x030B0000 -shared -o $@ $(filter %.c,$^) -L$(BUILD) -lgpufeed \
	    -Wl,-rpath,'$$ORIGIN/$(shell realpath -m --relative-to=$(dir $@) $(BUILD))'

# Stand-in vendor libraries, so the dlopen'ed code paths run in CI (no GPU
# there): tests/fakes/fake_<lib>.c builds $(BUILD)/fakes/<soname>, the soname
# on its "fake-soname:" line, and a test points GPUFEED_<LIB>_LIBRARY at it.
define FAKE_RULE
$(BUILD)/fakes/$(call fake_soname,$(1)): $(1)
	@mkdir -p $$(dir $$@)
	$$(CC) -std=c11 -D_GNU_SOURCE -fPIC -shared $$(WARN) -Wno-missing-prototypes $$(OPT) \
	    -Isrc -Wl,-soname,$(call fake_soname,$(1)) -o $$@ $$<
endef
$(foreach f,$(FAKE_SRCS),$(eval $(call FAKE_RULE,$(f))))

# The install variables the .pc is made from, rewritten only when they
# change: an install with another PREFIX makes the .pc again, and a second
# install with the same one does not (as git's GIT-CFLAGS).
PC_VARS := $(BUILD)/gpufeed.pc.vars
PC_VARS_NOW := prefix=$(PREFIX) libdir=$(LIBDIR) includedir=$(INCLUDEDIR) version=$(VERSION)
$(PC_VARS): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(PC_VARS_NOW)' | cmp -s - $@ || printf '%s\n' '$(PC_VARS_NOW)' >$@
.PHONY: FORCE
FORCE:

$(PC_FILE): gpufeed.pc.in Makefile $(PC_VARS)
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

# docs/api.md, the C API's reference, from the comments in include/gpufeed/*.h
# (tests/cli/test_help.sh fails when it is stale or a function has none).
api-doc:
	python3 scripts/api-doc.py

man: $(CLI)
	@mkdir -p man
	@set -e; for page in $(MAN_PAGES); do \
	    words=$$(basename $$page .1 | sed -e 's/^gpufeed-\{0,1\}//' -e 's/-/ /'); \
	    $(CLI) help --man $$words >$$page.tmp; mv $$page.tmp $$page; echo "  MAN $$page"; done

check: all
	BUILD=$(BUILD) tests/run.sh

# ---- structure checks (scripts/check-*.sh; tests/cli/test_layout.sh runs
# them and tries each on a bad example) ----
.PHONY: check-env check-layers check-symbols
check-env:
	scripts/check-env.sh
check-layers:
	scripts/check-layers.sh
check-symbols: lib
	scripts/check-symbols.sh $(BUILD)

clang:
	$(MAKE) CC=clang BUILD=build-clang all

sanitize:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	    SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all" check

# The completion scripts, written by the CLI from its command tables.
COMPLETIONS := $(BUILD)/completion/gpufeed $(BUILD)/completion/_gpufeed
$(BUILD)/completion/gpufeed: $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) completion bash >$@.tmp && mv $@.tmp $@
$(BUILD)/completion/_gpufeed: $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) completion zsh >$@.tmp && mv $@.tmp $@

install: lib cli $(PC_FILE) $(COMPLETIONS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/gpufeed $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/gpufeed
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/libgpufeed.a
	install -m 755 $(SHARED_REAL) $(DESTDIR)$(LIBDIR)/libgpufeed.so.$(VERSION)
	ln -sf libgpufeed.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SHARED_SONAME)
	ln -sf $(SHARED_SONAME) $(DESTDIR)$(LIBDIR)/libgpufeed.so
	install -m 644 include/gpufeed/*.h $(DESTDIR)$(INCLUDEDIR)/gpufeed/
	install -m 644 $(PC_FILE) $(DESTDIR)$(PKGCONFIGDIR)/gpufeed.pc
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(DOCDIR)
	install -m 644 $(DOC_PAGES) $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 644 $(BUILD)/completion/gpufeed $(DESTDIR)$(BASHCOMPDIR)/gpufeed
	install -m 644 $(BUILD)/completion/_gpufeed $(DESTDIR)$(ZSHCOMPDIR)/_gpufeed

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpufeed $(DESTDIR)$(LIBDIR)/libgpufeed.a \
	      $(DESTDIR)$(LIBDIR)/libgpufeed.so* $(DESTDIR)$(PKGCONFIGDIR)/gpufeed.pc
	rm -rf $(DESTDIR)$(INCLUDEDIR)/gpufeed
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_PAGES)))
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
	rm -f $(DESTDIR)$(BASHCOMPDIR)/gpufeed $(DESTDIR)$(ZSHCOMPDIR)/_gpufeed

clean:
	rm -rf build build-clang build-asan
	rm -f python/gpufeed/_gpufeed.abi3.so

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# libFuzzer over the NCCL log reader (clang with libFuzzer; not part of
# check): the library built for it in build-fuzz/, the recorded logs copied
# there as the seed corpus.  FUZZ_RUNS=-1 runs until stopped.
FUZZ_RUNS ?= 200000
fuzz-nccl-log:
	$(MAKE) CC=clang BUILD=build-fuzz OPT='-O1 -g' \
		SANITIZE='-fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer' build-fuzz/libgpufeed.a
	clang -O1 -g -fsanitize=address,undefined,fuzzer -Iinclude -o build-fuzz/nccl_log_fuzz \
		tests/fuzz/nccl_log_fuzz.c build-fuzz/libgpufeed.a $(JANSSON_LIBS) $(URING_LIBS) $(ZLIB_LIBS) $(SYS_LIBS)
	mkdir -p build-fuzz/corpus && cp tests/fixtures/nccl/h200x2/*.log build-fuzz/corpus/
	build-fuzz/nccl_log_fuzz -runs=$(FUZZ_RUNS) -max_len=16384 build-fuzz/corpus
