#!/usr/bin/env bash
# Rebuilds the example dbt project(s) and keeps only the artifacts the catalog reads:
#   coffee_shop/target/manifest.json
#   coffee_shop/target/catalog.json
#   coffee_shop/target/compiled/**
# dbt is needed only here; the catalog itself never runs it.
#
# Usage: examples/regenerate.sh          (PYTHON=python3.11 to choose the interpreter)
set -euo pipefail

DBT_CORE_VERSION="1.11.16"
DBT_DUCKDB_VERSION="1.11.1"
DUCKDB_VERSION="2.0.1"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv-dbt"
project="$here/coffee_shop"
python="${PYTHON:-python3}"

if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "dbt-core==$DBT_CORE_VERSION" \
    "dbt-duckdb==$DBT_DUCKDB_VERSION" \
    "duckdb==$DUCKDB_VERSION"

dbt="$venv/bin/dbt"
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
export DBT_VERSION_CHECK=false
export DO_NOT_TRACK=1

cd "$project"

# Start from an empty warehouse so every run is a first (full-refresh) build.
rm -rf target logs dbt_packages .user.yml coffee_shop.duckdb coffee_shop.duckdb.wal

"$dbt" seed --profiles-dir .
"$dbt" build --profiles-dir .            # seeds, models, snapshot and tests
"$dbt" docs generate --profiles-dir .    # writes catalog.json from the built warehouse
"$dbt" compile --profiles-dir .          # incremental model now compiles its incremental branch

# Keep manifest.json, catalog.json and compiled/; drop the rest.
find target -mindepth 1 -maxdepth 1 \
    ! -name manifest.json ! -name catalog.json ! -name compiled \
    -exec rm -rf {} +
rm -rf logs .user.yml coffee_shop.duckdb coffee_shop.duckdb.wal

for kept in target/manifest.json target/catalog.json target/compiled; do
    [[ -e "$kept" ]] || { echo "missing $project/$kept" >&2; exit 1; }
done
echo "artifacts in $project/target:"
find target -type f | sort
