#!/usr/bin/env bash
# The Python binding (python/, docs/python.md): builds the _gpufeed extension
# against this build's libgpufeed.so into $BUILD/python (make python
# PY_EXT=...), beside a copy of the package's Python files, and runs
# tests/python with Debian's python3 and pytest; one TAP line per pytest test.
# Skips (77) without python3-pytest, python3-numpy or python3-dev;
# the torch tests skip themselves without python3-torch.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
BUILD=${BUILD:-build}
case $BUILD in /*) build=$BUILD ;; *) build=$SRC/$BUILD ;; esac

for mod in pytest numpy; do
	"$PY" -c "import $mod" 2>/dev/null || { echo "skip: $PY cannot import $mod (apt-get install python3-$mod)"; exit 77; }
done
"$PY" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
	{ echo "skip: no Python.h for $PY (apt-get install python3-dev)"; exit 77; }

# A library built with ASan needs its runtime loaded first into python;
# the extension is then built with the sanitizers too.
asan=$(ldd "$build/libgpufeed.so" 2>/dev/null | awk '/libasan/ {print $3}')
env=()
[ -z "$asan" ] || env=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-} UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-})

pkg=$build/python/gpufeed
mkdir -p "$pkg"
cp "$SRC"/python/gpufeed/*.py "$SRC"/python/gpufeed/*.pyi "$SRC"/python/gpufeed/py.typed "$pkg"/
if make -C "$SRC" -s BUILD="$BUILD" CC="${CC:-cc}" ${asan:+SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer"} \
	PY_EXT="$pkg/_gpufeed.abi3.so" python >"$TMP/make.log" 2>&1; then
	ok "the extension builds against $BUILD/libgpufeed.so"
else
	not_ok "make python failed"; sed 's/^/#   /' "$TMP/make.log" | tail -20; finish
fi

# pip install, offline, from a copy of python/ (the tree's own stays clean
# when several builds test at once), linking this build's static library.
if [ -n "$asan" ]; then
	count=$((count + 1)); echo "ok $count - # skip pip install: a sanitizer build's static library needs its runtime linked"
elif "$PY" -m pip --version >/dev/null 2>&1; then
	head -c 4096 /dev/urandom >"$TMP/flat"
	cp -r "$SRC/python" "$TMP/python" && rm -rf "$TMP/python/build" "$TMP/python/gpufeed.egg-info" "$TMP"/python/gpufeed/*.so
	if GPUFEED_SRC=$SRC GPUFEED_BUILD=$build CC="${CC:-cc}" "$PY" -m pip install -q --no-build-isolation --no-index \
		--no-cache-dir --target "$TMP/site" "$TMP/python" >"$TMP/pip.log" 2>&1 &&
	   ! ldd "$TMP/site/gpufeed/_gpufeed.abi3.so" | grep -q libgpufeed &&
	   env "${env[@]}" PYTHONPATH="$TMP/site" "$PY" -c '
import sys, gpufeed
ds, out = sys.argv[1:]
gpufeed.pack(ds, out, input="records", record_size=512)
with gpufeed.Loader(out, 4, shuffle=False) as loader:
    assert [b.count for b in loader] == [4, 4], "batches"
' "$TMP/flat" "$TMP/pip-ds" 2>>"$TMP/pip.log"; then
		ok "pip install --no-build-isolation ./python (--target): a self-contained abi3 extension that loads and reads"
	else
		not_ok "pip install ./python"; tail -n 20 "$TMP/pip.log" | sed 's/^/#   /'
	fi
else
	count=$((count + 1)); echo "ok $count - # skip pip install: $PY has no pip (apt-get install python3-pip)"
fi

cd "$SRC" || exit 1
env "${env[@]}" GPUFEED_PYTHONPATH="$build/python" GPUFEED="$GPUFEED" GPUFEED_FIXTURES="$FIX" \
	PYTHONDONTWRITEBYTECODE=1 "$PY" -m pytest -p no:cacheprovider -p no:hypothesispytest -rA -q --basetemp="$TMP/pytest" tests/python \
	>"$TMP/pytest.log" 2>&1
rc=$?
# -rA's summary: "PASSED tests/python/x.py::name", "FAILED ... - why",
# "SKIPPED [1] tests/python/x.py:12: why".
while read -r verdict rest; do
	case $verdict in
	PASSED) ok "$rest" ;;
	FAILED|ERROR) not_ok "$rest" ;;
	SKIPPED) count=$((count + 1)); echo "ok $count - # skip ${rest#\[*\] }" ;;
	esac
done < <(sed -n '/short test summary info/,$p' "$TMP/pytest.log")
if [ "$rc" -ne 0 ] && [ "$failures" -eq 0 ]; then
	not_ok "pytest exited $rc"; tail -n 30 "$TMP/pytest.log" | sed 's/^/#   /'
fi
[ "$failures" -eq 0 ] || sed -n '/= FAILURES =/,/short test summary/p' "$TMP/pytest.log" | head -150 | sed 's/^/#   /'
finish
