"""Edits to a copy of a dbt target folder, as a developer's change would make them."""

from __future__ import annotations

import json
from pathlib import Path


def edit_sql(target: Path, uid: str, old: str, new: str) -> None:
    """Replace text in a node's compiled SQL inside manifest.json."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    sql = manifest["nodes"][uid]["compiled_code"]
    assert old in sql, f"{old!r} not in {uid}"
    manifest["nodes"][uid]["compiled_code"] = sql.replace(old, new)
    path.write_text(json.dumps(manifest))


def hash_customer_email(target: Path) -> None:
    """The example's customers hashes its email: ``md5(customers.email) as email``."""
    edit_sql(target, "model.coffee_shop.customers", "    customers.email,\n", "    md5(customers.email) as email,\n")


def edit_manifest(target: Path, change) -> None:
    """Apply ``change(manifest)`` to manifest.json (YAML edits: columns, semantic models, metrics)."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


def edit_catalog_type(target: Path, uid: str, column: str, data_type: str) -> None:
    """Set a column's type in catalog.json, as `dbt docs generate` would after a cast changed."""
    path = target / "catalog.json"
    catalog = json.loads(path.read_text())
    catalog["nodes"][uid]["columns"][column]["type"] = data_type
    path.write_text(json.dumps(catalog))


def edit_measure_expr(target: Path, semantic_model: str, measure: str, expr: str) -> None:
    """Set a semantic model's measure ``expr`` in manifest.json, as its YAML would."""

    def change(manifest) -> None:
        for m in manifest["semantic_models"][semantic_model]["measures"]:
            if m["name"] == measure:
                m["expr"] = expr

    edit_manifest(target, change)


def drop_catalog_column(target: Path, uid: str, column: str) -> None:
    """Remove a column from catalog.json, as `dbt docs generate` would after it left the model."""
    path = target / "catalog.json"
    catalog = json.loads(path.read_text())
    del catalog["nodes"][uid]["columns"][column]
    path.write_text(json.dumps(catalog))


def enforce_contract(target: Path, uid: str, constraints: dict[str, list[str]] | None = None, model_constraints: list[dict] | None = None) -> None:
    """Enforce a model's contract as its YAML would: ``contract: {enforced: true}``, every column
    of catalog.json declared with its type there as ``data_type`` (what the contract checks the
    SQL against), ``constraints``: column name -> constraint types (not_null, unique, ...);
    ``model_constraints``: model-level ones, such as ``{"type": "primary_key", "columns": ["id"]}``."""
    types = json.loads((target / "catalog.json").read_text())["nodes"][uid]["columns"]

    def change(manifest) -> None:
        node = manifest["nodes"][uid]
        node["config"]["contract"] = {"enforced": True, "alias_types": True}
        node["contract"] = {"enforced": True, "alias_types": True, "checksum": None}
        for name, col in types.items():
            declared = node["columns"].setdefault(name.lower(), {"name": name.lower(), "description": "", "meta": {}, "tags": []})
            declared["data_type"] = col["type"].lower()
            declared["constraints"] = [_constraint(t) for t in (constraints or {}).get(name.lower(), [])]
        node["constraints"] = [{**_constraint(c["type"]), "columns": c.get("columns", [])} for c in model_constraints or []]

    edit_manifest(target, change)


def _constraint(kind: str) -> dict:
    return {"type": kind, "name": None, "expression": None, "warn_unenforced": True, "warn_unsupported": True, "to": None, "to_columns": []}


def edit_column(target: Path, uid: str, column: str, **fields) -> None:
    """Change a declared column's YAML fields (``data_type``, ``constraints`` ...); ``remove=True``
    takes the column out of the YAML."""

    def change(manifest) -> None:
        columns = manifest["nodes"][uid]["columns"]
        if fields.pop("remove", False):
            del columns[column]
        else:
            columns[column].update(fields)

    edit_manifest(target, change)


def rename_catalog_column(target: Path, uid: str, column: str, new: str) -> None:
    """Rename a column in catalog.json (same type and position), as `dbt docs generate` would
    after the SQL renamed it."""
    path = target / "catalog.json"
    catalog = json.loads(path.read_text())
    columns = catalog["nodes"][uid]["columns"]
    columns[new] = {**columns.pop(column), "name": new}
    path.write_text(json.dumps(catalog))


def add_saved_query(target: Path, name: str, metrics: list[str]) -> None:
    """Add a saved query over the project's ``metrics`` to manifest.json, as its YAML would."""

    def change(manifest) -> None:
        project = manifest["metadata"]["project_name"]
        uid = f"saved_query.{project}.{name}"
        manifest.setdefault("saved_queries", {})[uid] = {
            "name": name, "resource_type": "saved_query", "package_name": project, "unique_id": uid,
            "path": "marts/_marts.yml", "original_file_path": "models/marts/_marts.yml", "fqn": [project, "marts", name],
            "query_params": {"metrics": metrics, "group_by": ["TimeDimension('metric_time', 'day')"], "where": None, "order_by": [], "limit": None},
            "exports": [], "description": None, "label": None, "metadata": None, "config": {"enabled": True, "meta": {}},
            "unrendered_config": {}, "group": None, "refs": [], "tags": [],
            "depends_on": {"macros": [], "nodes": [f"metric.{project}.{m}" for m in metrics]},
        }  # fmt: skip

    edit_manifest(target, change)


def add_simple_metric(target: Path, model: str, measure: str, metric: str, time_dimension: str) -> None:
    """Add a semantic model over the project's ``model`` with one ``sum`` measure of the column
    ``measure``, and the simple metric ``metric`` over it, to manifest.json, as their YAML would."""

    def change(manifest) -> None:
        project = manifest["metadata"]["project_name"]
        node = manifest["nodes"][f"model.{project}.{model}"]
        uid, metric_uid = f"semantic_model.{project}.{model}", f"metric.{project}.{metric}"
        shared = {"package_name": project, "path": "_models.yml", "original_file_path": "models/_models.yml", "description": None, "label": None, "metadata": None}
        manifest["semantic_models"][uid] = {
            **shared, "name": model, "resource_type": "semantic_model", "unique_id": uid, "fqn": [project, model],
            "model": f"ref('{model}')", "defaults": {"agg_time_dimension": time_dimension},
            "node_relation": {"alias": node["alias"], "schema_name": node["schema"], "database": node["database"], "relation_name": node["relation_name"]},
            "entities": [],
            "measures": [{"name": measure, "agg": "sum", "description": None, "label": None, "create_metric": False, "expr": None, "agg_params": None,
                          "non_additive_dimension": None, "agg_time_dimension": None, "config": {"meta": {}}}],
            "dimensions": [{"name": time_dimension, "type": "time", "description": None, "label": None, "is_partition": False,
                            "type_params": {"time_granularity": "month", "validity_params": None}, "expr": None, "metadata": None, "config": {"meta": {}}}],
            "depends_on": {"macros": [], "nodes": [node["unique_id"]]}, "refs": [{"name": model, "package": None, "version": None}],
            "created_at": 0.0, "config": {"enabled": True, "group": None, "meta": {}}, "unrendered_config": {}, "primary_entity": None, "group": None,
        }
        measure_input = {"name": measure, "filter": None, "alias": None, "join_to_timespine": False, "fill_nulls_with": None}
        manifest["metrics"][metric_uid] = {
            **shared, "name": metric, "resource_type": "metric", "unique_id": metric_uid, "fqn": [project, metric], "type": "simple",
            "type_params": {"measure": measure_input, "input_measures": [measure_input], "numerator": None, "denominator": None, "expr": None,
                            "window": None, "grain_to_date": None, "metrics": [], "conversion_type_params": None, "cumulative_type_params": None,
                            "metric_aggregation_params": None},
            "filter": None, "time_granularity": None, "meta": {}, "tags": [], "config": {"enabled": True, "group": None, "meta": {}},
            "unrendered_config": {}, "sources": [], "depends_on": {"macros": [], "nodes": [uid]}, "refs": [], "metrics": [], "created_at": 0.0, "group": None,
        }  # fmt: skip
        manifest["child_map"].setdefault(node["unique_id"], []).append(uid)
        manifest["child_map"][uid] = [metric_uid]
        manifest["parent_map"][uid] = [node["unique_id"]]
        manifest["parent_map"][metric_uid] = [uid]

    edit_manifest(target, change)
