#!/usr/bin/env bash
# Environment variables are read only through the registry (src/core/env.c,
# docs/environment.md): no getenv/secure_getenv elsewhere in the library or
# the CLI, and neither of them changes the environment.
#   scripts/check-env.sh [SRCDIR]     exit 0 clean, 1 with the offending lines
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2
bad=$(grep -nE '\b(secure_)?getenv[[:space:]]*\(|\b(setenv|unsetenv|putenv|clearenv)[[:space:]]*\(' \
	--include='*.c' --include='*.h' -r src cli include 2>/dev/null | grep -v '^src/core/env\.c:')
if [ -n "$bad" ]; then
	echo "check-env: read environment variables through the registry, not getenv:"
	echo "$bad" | sed 's/^/  /'
	echo "  (add the variable to src/core/env.c and include/gpufeed/env.h, read it with"
	echo "   gf_env_str(GF_ENV_...), and paste 'build/tests/test_env --markdown' into docs/environment.md)"
	exit 1
fi
# Every id of include/gpufeed/env.h has its row in src/core/env.c and the
# other way round (a row-less id would read as "unset" forever).
ids=$(sed -n 's/^[[:space:]]*\(GF_ENV_[A-Z0-9_]*\) = [0-9]*,.*/\1/p' include/gpufeed/env.h | sort)
rows=$(sed -n 's/^[[:space:]]*\[\(GF_ENV_[A-Z0-9_]*\)\] = {.*/\1/p' src/core/env.c | sort)
if [ -z "$ids" ] || [ "$ids" != "$rows" ]; then
	echo "check-env: ids in include/gpufeed/env.h and rows in src/core/env.c differ:"
	diff <(echo "$ids") <(echo "$rows") | sed -n 's/^< /  no row in src\/core\/env.c: /p; s/^> /  no id in include\/gpufeed\/env.h: /p'
	exit 1
fi
echo "check-env: ok (no getenv outside src/core/env.c; $(echo "$ids" | wc -l) variables, each with its row)"
