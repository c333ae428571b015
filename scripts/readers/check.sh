#!/usr/bin/env bash
# Checks that common readers load pbuckets's result files and the csv and
# json output of `pbuckets show`, with every float column as a number
# (+Inf included) and the row counts pbuckets itself reads:
#   hyparquet  (pure JavaScript Parquet reader, strict about the footer)
#   DuckDB     (@duckdb/node-api: Parquet, and the csv and json output)
#   pandas     (when python3 has it: csv and json; Parquet too when pyarrow
#               or fastparquet is installed)
# The npm packages go to a temporary folder (npm must reach its registry).
#
#   scripts/readers/check.sh RESULTS_FOLDER...   (every *.parquet below)
#
# Environment: PBUCKETS (default bin/pbuckets), NODE_MODULES (a folder that
# already holds node_modules/hyparquet and node_modules/@duckdb/node-api:
# skips the install). Exit status 0 when every reader read every file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pbuckets=${PBUCKETS:-bin/pbuckets}
[ $# -ge 1 ] || { echo "usage: scripts/readers/check.sh RESULTS_FOLDER..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mods=${NODE_MODULES:-}
if [ -z "$mods" ]; then
	mods=$tmp/npm
	mkdir -p "$mods"
	(cd "$mods" && npm init -y >/dev/null && npm install --silent hyparquet @duckdb/node-api >/dev/null)
fi
status=0
while IFS= read -r -d '' f; do
	base=$tmp/$(echo "$f" | tr '/' '_')
	"$pbuckets" show --partial --format csv "$f" >"$base.csv"
	"$pbuckets" show --partial --format json "$f" >"$base.json"
	rows=$("$pbuckets" show --partial --format json "$f" | grep -c '^{' || true)
	NODE_PATH=$mods/node_modules node "$here/readers.mjs" "$f" "$base.csv" "$base.json" "$rows" || status=1
	if python3 -c 'import pandas' 2>/dev/null; then
		python3 "$here/pandas_check.py" "$f" "$base.csv" "$base.json" "$rows" || status=1
	fi
done < <(find "$@" -name '*.parquet' -not -path '*/.cache/*' -print0 | sort -z)
exit $status
