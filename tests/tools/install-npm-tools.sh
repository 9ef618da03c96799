#!/usr/bin/env bash
# Installs the npm packages the client tests use (package.json, pinned with
# its package-lock.json: every version and integrity hash) into a cache
# folder outside the repository, once per lock file:
#   tests/tools/install-npm-tools.sh        prints the folder (its node_modules/)
# The folder is $GPUFEED_NPM_TOOLS, default /var/tmp/gpufeed-npm-tools.
# Exit 0 with the folder on stdout; 77 when npm is not here, 1 when npm ci
# failed (its output on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${GPUFEED_NPM_TOOLS:-/var/tmp/gpufeed-npm-tools}
command -v npm >/dev/null && command -v node >/dev/null || { echo "npm and node are needed" >&2; exit 77; }
stamp=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$dir/.gpufeed-stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$dir/node_modules" ]; then
	mkdir -p "$dir"
	cp "$here/package.json" "$here/package-lock.json" "$dir/"
	# ci: exactly the lock's versions, checked against its hashes.
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
	echo "$stamp" >"$dir/.gpufeed-stamp"
fi
echo "$dir"
