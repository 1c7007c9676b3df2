#!/usr/bin/env bash
# Rebuilds the two-project (dbt Mesh) example and keeps only the artifacts the catalog reads:
#   platform/target/{manifest.json,catalog.json,compiled/**}   the producer
#   finance/target/{manifest.json,catalog.json,compiled/**}    the consumer, whose manifest holds
#                                                              platform's public models as dbt-loom injects them
#   finance_pkg/target/{manifest.json,catalog.json,compiled/**} platform installed as a dbt package (packages.yml,
#                                                              local: ../platform): its models with their SQL
# dbt is needed only here; the catalog itself never runs it. dbt-loom needs dbt-core 1.10 here
# (newer dbt-duckdb releases pull a dbt-core whose parser downloads a binary when installed).
#
# Usage: examples/mesh/regenerate.sh     (VENV=dir for dbt's virtualenv, default /tmp/mesh-venv;
#                                          PYTHON=python3.11 to choose the interpreter)
set -euo pipefail

DBT_CORE_VERSION="1.10.23"
DBT_DUCKDB_VERSION="1.9.6"
DBT_LOOM_VERSION="0.9.6"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${VENV:-/tmp/mesh-venv}"
python="${PYTHON:-python3}"

if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "dbt-core==$DBT_CORE_VERSION" \
    "dbt-duckdb==$DBT_DUCKDB_VERSION" \
    "dbt-loom==$DBT_LOOM_VERSION"

dbt="$venv/bin/dbt"
export DBT_SEND_ANONYMOUS_USAGE_STATS=false
export DBT_VERSION_CHECK=false
export DO_NOT_TRACK=1

clean() {
    rm -rf target logs dbt_packages package-lock.yml .user.yml ./*.duckdb ./*.duckdb.wal
}

keep_artifacts() {
    find target -mindepth 1 -maxdepth 1 \
        ! -name manifest.json ! -name catalog.json ! -name compiled \
        -exec rm -rf {} +
    for kept in target/manifest.json target/catalog.json target/compiled; do
        [[ -e "$kept" ]] || { echo "missing $PWD/$kept" >&2; exit 1; }
    done
    echo "artifacts in $PWD/target:"
    find target -type f | sort
}

# The producer first: its warehouse and manifest are what the consumer reads.
cd "$here/platform"
clean
"$dbt" build --profiles-dir .
"$dbt" docs generate --profiles-dir .

# The consumer: dbt-loom reads ../platform/target/manifest.json (dbt_loom.config.yml), and its
# profile attaches platform.duckdb read-only, where platform's public models are tables.
cd "$here/finance"
clean
"$dbt" build --profiles-dir .
"$dbt" docs generate --profiles-dir .
keep_artifacts
rm -rf logs .user.yml ./*.duckdb ./*.duckdb.wal

# The package pattern: `dbt deps` links ../platform into dbt_packages/, and one `dbt build`
# builds platform's seeds and models and finance_pkg's own into finance_pkg.duckdb.
cd "$here/finance_pkg"
clean
"$dbt" deps --profiles-dir .
"$dbt" build --profiles-dir .
"$dbt" docs generate --profiles-dir .
keep_artifacts
rm -rf logs dbt_packages package-lock.yml .user.yml ./*.duckdb ./*.duckdb.wal

cd "$here/platform"
keep_artifacts
rm -rf logs .user.yml ./*.duckdb ./*.duckdb.wal
