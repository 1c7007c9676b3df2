"""A hub-heavy dbt project: one column whose value reaches tens of thousands of columns.

Writes dbt's artifacts as synth_dbt.py does (``target/manifest.json`` v12 with compiled SQL,
``target/catalog.json``; DuckDB) for:

- a source ``raw.events`` (``id``, ``value``) and a model ``hub`` passing both through;
- ``--fans`` models ``fan_<i>``, each reading ``hub`` into ``id`` and ``--width`` columns
  ``v_<j>`` renamed from ``hub.value``;
- behind each fan model a chain of ``--chain`` models ``fan_<i>_<k>`` passing every column of
  the one before through.

So ``hub.value`` reaches exactly ``fans * width * (chain + 1)`` columns (12,500 by default) and
``hub.id`` reaches ``fans * (chain + 1)``. :func:`expected_impact` gives the exact sets.

    .venv/bin/python benchmarks/hub_project.py --out /tmp/hub     # then: catalog build /tmp/hub
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

PACKAGE = "hub"
DATABASE = "hub"
VERSION = "https://schemas.getdbt.com/dbt/manifest/v12.json"
GENERATED_AT = "2026-01-01T00:00:00.000000Z"
SOURCE = f"source.{PACKAGE}.raw.events"


def model_id(name: str) -> str:
    return f"model.{PACKAGE}.{name}"


def relation(name: str, schema: str = "main") -> str:
    return f'"{DATABASE}"."{schema}"."{name}"'


def layout(fans: int, width: int, chain: int) -> list[tuple[str, str, list[str], list[tuple[str, str]]]]:
    """Every model: (name, upstream name, columns, [(column, expression)])."""
    values = [f"v_{j}" for j in range(width)]
    models = [("hub", "", ["id", "value"], [("id", "id"), ("value", "value")])]
    for i in range(fans):
        models.append((f"fan_{i}", "hub", ["id", *values], [("id", "id")] + [(v, "value") for v in values]))
        for k in range(1, chain + 1):
            up = f"fan_{i}" if k == 1 else f"fan_{i}_{k - 1}"
            models.append((f"fan_{i}_{k}", up, ["id", *values], [(c, c) for c in ["id", *values]]))
    return models


def expected_impact(fans: int, width: int, chain: int) -> dict[str, set[str]]:
    """``model.column`` -> every ``model.column`` downstream of it, for the hub's two columns."""
    out: dict[str, set[str]] = {"hub.value": set(), "hub.id": set()}
    for name, up, _, selects in layout(fans, width, chain):
        if up:
            for column, expr in selects:
                start = "hub.value" if column != "id" else "hub.id"
                out[start].add(f"{name}.{column}")
    return out


def _node(name: str, upstream: str, selects: list[tuple[str, str]]) -> dict:
    parent = model_id(upstream) if upstream else SOURCE
    parent_relation = relation(upstream) if upstream else relation("events", "raw")
    select = ",\n    ".join(expr if expr == column else f"{expr} as {column}" for column, expr in selects)
    sql = f"select\n    {select}\nfrom {parent_relation}\n"
    raw = sql.replace(parent_relation, f"{{{{ ref('{upstream}') }}}}" if upstream else "{{ source('raw', 'events') }}")
    return {
        "database": DATABASE, "schema": "main", "name": name, "resource_type": "model", "package_name": PACKAGE,
        "path": f"{name}.sql", "original_file_path": f"models/{name}.sql", "unique_id": model_id(name),
        "fqn": [PACKAGE, name], "alias": name,
        "checksum": {"name": "sha256", "checksum": hashlib.sha256(raw.encode()).hexdigest()},
        "config": {"enabled": True, "materialized": "view", "tags": [], "meta": {}, "contract": {"enforced": False}},
        "tags": [], "description": "", "columns": {}, "meta": {}, "relation_name": relation(name), "raw_code": raw,
        "language": "sql", "refs": [{"name": upstream, "package": None, "version": None}] if upstream else [],
        "sources": [] if upstream else [["raw", "events"]], "depends_on": {"macros": [], "nodes": [parent]},
        "compiled_path": f"target/compiled/{PACKAGE}/models/{name}.sql", "compiled": True, "compiled_code": sql,
        "extra_ctes_injected": True, "extra_ctes": [], "access": "protected",
    }


def _catalog_entry(unique_id: str, name: str, schema: str, columns: list[str]) -> dict:
    types = {c: "INTEGER" if c == "id" else "VARCHAR" for c in columns}
    return {
        "metadata": {"type": "VIEW" if schema == "main" else "BASE TABLE", "schema": schema, "name": name, "database": DATABASE,
                     "comment": None, "owner": None},
        "columns": {c: {"type": types[c], "index": i + 1, "name": c, "comment": None} for i, c in enumerate(columns)},
        "stats": {}, "unique_id": unique_id,
    }


def write_hub_project(out: Path, fans: int = 50, width: int = 50, chain: int = 4) -> Path:
    """Write the project's artifacts under ``out/target``; returns that folder."""
    target = out / "target"
    target.mkdir(parents=True, exist_ok=True)
    models = layout(fans, width, chain)
    nodes = {model_id(name): _node(name, up, selects) for name, up, _, selects in models}
    source = {
        "database": DATABASE, "schema": "raw", "name": "events", "resource_type": "source", "package_name": PACKAGE,
        "path": "models/sources.yml", "original_file_path": "models/sources.yml", "unique_id": SOURCE,
        "fqn": [PACKAGE, "raw", "events"], "source_name": "raw", "identifier": "events", "description": "",
        "columns": {}, "meta": {}, "tags": [], "config": {"enabled": True}, "relation_name": relation("events", "raw"),
    }
    parent_map = {uid: n["depends_on"]["nodes"] for uid, n in nodes.items()} | {SOURCE: []}
    child_map: dict[str, list[str]] = {uid: [] for uid in parent_map}
    for uid, parents in parent_map.items():
        for p in parents:
            child_map[p].append(uid)
    manifest = {
        "metadata": {"dbt_schema_version": VERSION, "dbt_version": "1.10.0", "generated_at": GENERATED_AT,
                     "invocation_id": "00000000-0000-0000-0000-000000000000", "env": {}, "project_name": PACKAGE,
                     "adapter_type": "duckdb"},
        "nodes": nodes, "sources": {SOURCE: source}, "macros": {}, "docs": {}, "exposures": {}, "metrics": {}, "groups": {},
        "selectors": {}, "disabled": {}, "parent_map": parent_map, "child_map": child_map, "group_map": {},
        "saved_queries": {}, "semantic_models": {}, "unit_tests": {},
    }
    catalog = {
        "metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json", "dbt_version": "1.10.0",
                     "generated_at": GENERATED_AT, "invocation_id": "00000000-0000-0000-0000-000000000000", "env": {}},
        "nodes": {model_id(name): _catalog_entry(model_id(name), name, "main", columns) for name, _, columns, _ in models},
        "sources": {SOURCE: _catalog_entry(SOURCE, "events", "raw", ["id", "value"])},
        "errors": None,
    }
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (target / "catalog.json").write_text(json.dumps(catalog), encoding="utf-8")
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--fans", type=int, default=50)
    ap.add_argument("--width", type=int, default=50)
    ap.add_argument("--chain", type=int, default=4)
    args = ap.parse_args()
    write_hub_project(args.out, args.fans, args.width, args.chain)
    reach = expected_impact(args.fans, args.width, args.chain)
    print(f"{args.out}: hub.value reaches {len(reach['hub.value'])} columns, hub.id {len(reach['hub.id'])}")


if __name__ == "__main__":
    main()
