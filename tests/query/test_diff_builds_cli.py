"""``catalog diff A B`` end to end, against a real Neo4j: the exact changes between two given
builds of an edited project, not only between the last two."""

from __future__ import annotations

import pytest

from edits import edit_catalog_type, edit_manifest, edit_sql, hash_customer_email
from run_cli import answer, one_error, run

pytestmark = pytest.mark.neo4j
STG_ORDERS = "model.coffee_shop.stg_orders"
STATUS_BEFORE = "Lower-case status; 'unknown' when the till left it empty."
STATUS_AFTER = "The order's status, lower case."

EMAIL_EDGE = {
    "change": "changed", "kind": "feeds",
    "up": "model.coffee_shop.stg_customers.email", "down": "model.coffee_shop.customers.email",
    "before": {"expr": "customers.email", "type": "passthrough", "resolved": True},
    "after": {"expr": "MD5(customers.email)", "type": "derived", "resolved": True},
}  # fmt: skip


def _column(data_type: str | None, description: str | None) -> dict:
    return {"data_type": data_type, "description": description, "tags": None, "meta": None, "pii": None}


STG_ORDERS_CHANGES = [
    {"change": "added", "unique_id": STG_ORDERS, "column": "flag", "aspects": [], "before": None, "after": _column(None, None)},
    {"change": "changed", "unique_id": STG_ORDERS, "column": "order_date", "aspects": ["data_type"],
     "before": _column("DATE", "Calendar day of ordered_at."), "after": _column("TIMESTAMP", "Calendar day of ordered_at.")},
    {"change": "changed", "unique_id": STG_ORDERS, "column": "status", "aspects": ["description"],
     "before": _column("VARCHAR", STATUS_BEFORE), "after": _column("VARCHAR", STATUS_AFTER)},
]  # fmt: skip


def _stg_orders_edits(target) -> None:
    """A column with no upstream, a retyped column (catalog.json), a documented one (YAML)."""
    edit_sql(target, STG_ORDERS, "as status\n", "as status,\n    1 as flag\n")
    edit_catalog_type(target, STG_ORDERS, "order_date", "TIMESTAMP")

    def document(manifest) -> None:
        manifest["nodes"][STG_ORDERS]["columns"]["status"]["description"] = STATUS_AFTER

    edit_manifest(target, document)


def test_diff_of_two_given_builds(build, project_name, example_copy, neo4j_env):
    first = build(example_copy, project_name).build_id
    hash_customer_email(example_copy)
    second = build(example_copy, project_name).build_id
    _stg_orders_edits(example_copy)
    third = build(example_copy, project_name).build_id

    def diff(*args: str) -> dict:
        return answer(neo4j_env, "diff", *args, "--project", project_name, "--json")

    assert diff(str(first), str(third)) == {
        "project": project_name, "from_build": first, "to_build": third,
        "edges": [EMAIL_EDGE], "statuses": [], "columns": STG_ORDERS_CHANGES,
        "counts": {"columns_added": 1, "columns_changed": 2, "feeds_changed": 1, "status_changes": 0},
    }  # fmt: skip
    assert diff(str(first), str(second)) == {
        "project": project_name, "from_build": first, "to_build": second,
        "edges": [EMAIL_EDGE], "statuses": [], "columns": [], "counts": {"feeds_changed": 1, "status_changes": 0},
    }  # fmt: skip
    latest = {
        "project": project_name, "from_build": second, "to_build": third, "edges": [], "statuses": [],
        "columns": STG_ORDERS_CHANGES, "counts": {"columns_added": 1, "columns_changed": 2, "status_changes": 0},
    }  # fmt: skip
    assert diff(str(second), str(third)) == latest
    assert diff() == latest  # without A and B: the build before the active one, and the active one
    assert diff(str(second)) == latest  # B defaults to the active build

    backwards = diff(str(third), str(first))  # from the newer to the older: every change undone
    assert [(e["change"], e["before"]["expr"], e["after"]["expr"]) for e in backwards["edges"]] == [
        ("changed", "MD5(customers.email)", "customers.email")
    ]
    assert [(c["change"], c["column"], c["aspects"]) for c in backwards["columns"]] == [
        ("removed", "flag", []), ("changed", "order_date", ["data_type"]), ("changed", "status", ["description"])
    ]  # fmt: skip

    md = run(neo4j_env, "diff", str(first), str(third), "--project", project_name, "-f", "md")
    assert md.exit_code == 0, md.output
    assert md.stdout.splitlines() == [
        f"### Column lineage changes: build {first} → {third} (`{project_name}`)",
        "",
        "0 column edges added, 0 removed, 1 changed; 0 condition edges changed; 0 model status changes; "
        "1 columns added, 0 removed, 2 changed.",
        "",
        "| change | edge | before | after |",
        "|---|---|---|---|",
        "| changed | `model.coffee_shop.stg_customers.email -> model.coffee_shop.customers.email` "
        "| `expr=customers.email, type=passthrough, resolved=True` | `expr=MD5(customers.email), type=derived, resolved=True` |",
        "",
        "| column | name | what | before | after |",
        "|---|---|---|---|---|",
        "| added | `model.coffee_shop.stg_orders.flag` |  |  |  |",
        "| changed | `model.coffee_shop.stg_orders.order_date` | data_type | `data_type=DATE` | `data_type=TIMESTAMP` |",
        f"| changed | `model.coffee_shop.stg_orders.status` | description | `description={STATUS_BEFORE}` | `description={STATUS_AFTER}` |",
    ]

    missing = 999_999_999
    assert one_error(run(neo4j_env, "diff", str(first), str(missing), "--project", project_name)) == (
        f"Error: project {project_name!r} has no finished build {missing} (see `catalog builds`)"
    )
