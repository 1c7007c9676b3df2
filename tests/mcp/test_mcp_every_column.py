"""Every column an answer names can be asked about, in both modes, and both modes answer alike.

A source read from a file (nba-monte-carlo's CSV sources, here jaffle-shop's ecom.raw_orders
with its declared columns taken out of manifest.json and catalog.json) has columns only the
SQL that reads it names: stg_orders reads `order_total` of it. The stored build keeps such a
column as a node its edges start from; `trace` names it, so `impact`, `path`, `column_lineage`,
`model` and `search` know it too, with its reason, from a stored build and in memory.

Then every corpus project: each column of each model traced, each column the traces name
walked through impact, column_lineage and path, in memory and from its stored build, tool by
tool: the same answer to the letter, paths included (of equally short paths, both keep the
one the rule of catalog/walks.py picks)."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from catalog.builds import Builder
from catalog.errors import CatalogError
from catalog.history import forget_project
from catalog.mcp import tools
from catalog.mcp.stored import InMemory, Stored

pytestmark = pytest.mark.neo4j

RAW_ORDERS = "source.jaffle_shop.ecom.raw_orders"
CORPUS = ["jaffle_shop_duckdb", "jaffle-shop", "dbt-project-evaluator", "fivetran-hubspot", "flipside-thorchain", "tuva"]


def without_declared_columns(target: Path, uid: str) -> None:
    """The source as a CSV file read by the warehouse declares it: no columns in its YAML, none
    in catalog.json."""
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["sources"][uid]["columns"] = {}
    (target / "manifest.json").write_text(json.dumps(manifest))
    catalog = json.loads((target / "catalog.json").read_text())
    del catalog["sources"][uid]
    (target / "catalog.json").write_text(json.dumps(catalog))


class Both:
    """One dbt target in memory and as its stored build."""

    def __init__(self, memory: InMemory, stored: Stored):
        self.memory, self.stored = memory, stored

    def ask(self, tool: str, *args: Any) -> tuple[Any, Any]:
        """The tool's answer from each (without project and build), or the error's text."""
        out = []
        for src in (self.memory, self.stored):
            try:
                try:
                    got = getattr(tools, tool)(src, *args)
                except CatalogError as e:  # another client's build changed what the read saw: Neo4j asks to run it again
                    if "Retry the transaction" not in str(e):
                        raise
                    got = getattr(tools, tool)(src, *args)
            except CatalogError as e:
                out.append(f"error: {e}".replace(f" (build {self.stored_build})", ""))
                continue
            got.pop("project", None), got.pop("build", None)
            out.append(got)
        return out[0], out[1]

    @property
    def stored_build(self) -> int:
        return self.stored.catalog(None, None).build_id


@pytest.fixture(scope="module")
def built(graph, neo4j_settings, tmp_path_factory) -> Iterator[Any]:
    """``built(target)``: the target in memory and stored under a project name of its own."""
    names: list[str] = []
    sources: list[Stored] = []

    def make(target: Path) -> Both:
        name = f"test_{uuid.uuid4().hex[:10]}"
        names.append(name)
        Builder(graph, target, project_name=name, jobs=1).run()
        stored = Stored(neo4j_settings, project=name)
        sources.append(stored)
        memory = InMemory(target, jobs=1)
        return Both(memory, stored)

    try:
        yield make
    finally:
        for s in sources:
            s.close()
        for name in names:
            forget_project(graph, name)


@pytest.fixture(scope="module")
def csv_source(built, shared_dir, tmp_path_factory) -> Both:
    target = tmp_path_factory.mktemp("csv") / "target"
    shutil.copytree(shared_dir / "corpus" / "jaffle-shop" / "target", target)
    without_declared_columns(target, RAW_ORDERS)
    return built(target)


def test_a_source_column_known_only_from_sql_can_be_asked_about_in_both_modes(csv_source):
    from catalog.mcp.view import UNDECLARED

    for src in (csv_source.memory, csv_source.stored):
        traced = tools.trace(src, "stg_orders.order_total", None, 200, None, None, None)
        assert [c["column"] for c in traced["columns"]] == [f"{RAW_ORDERS}.order_total"]
        hit = tools.impact(src, ["ecom.raw_orders.order_total"], None, False, 200, None, None, None)
        assert hit["summary"]["selector"] == "customers orders stg_orders" and hit["summary"]["metrics"] == 1
        up = tools.column_lineage(src, "stg_orders.order_total", "upstream", None, False, 200, None, None, None)
        assert [(n["column"], n["distance"]) for n in up["nodes"]] == [(f"{RAW_ORDERS}.order_total", 1)]
        found = tools.path(src, "ecom.raw_orders.order_total", "customers.lifetime_spend", None, None)
        assert [h["to"] for h in found["value_path"]] == [
            "model.jaffle_shop.stg_orders.order_total", "model.jaffle_shop.orders.order_total", "model.jaffle_shop.customers.lifetime_spend",
        ]  # fmt: skip
        card = tools.model(src, "ecom.raw_orders", 200, None, None, None)
        assert {c["name"]: (c["reason"], c["type"], c["data_type"]) for c in card["columns"]} == {
            name: (UNDECLARED, None, None) for name in ("id", "store_id", "customer", "subtotal", "tax_paid", "order_total", "ordered_at")
        }
        results = tools.search(src, "raw_orders.order_t", ["column"], 5, None, None, None)["results"]
        assert {"kind": "column", "name": "ecom.raw_orders.order_total", "unique_id": RAW_ORDERS, "column": "order_total"} in results


def walk(both: Both) -> int:
    """Trace every column of every model in both modes; walk every column the traces name
    through impact, column_lineage and path (from it to the traced column), in both; each
    answer must be the same from both, and none an error. How many columns were walked."""
    view = both.memory.view(None, None)
    asked = [c for c in view.columns.values() if view.nodes[c.id.unique_id].kind in ("model", "snapshot")]
    named: dict[str, str] = {}  # each column a trace named -> one column it was traced from
    for col in asked:
        label = f"{col.id.unique_id}.{col.id.name}"
        memory, stored = both.ask("trace", label, None, 2000, None, None, None)
        assert memory == stored, label
        for c in memory["columns"]:
            named.setdefault(c["column"], label)
    for column, down in sorted(named.items()):
        for tool, args in (
            ("impact", ([column], None, False, 2000, None, None, None)),
            ("column_lineage", (column, "both", None, False, 2000, None, None, None)),
            ("path", (column, down, None, None)),
        ):
            memory, stored = both.ask(tool, *args)
            assert not isinstance(memory, str), (tool, column, memory)
            assert memory == stored, (tool, column)
    return len(named)


def test_every_column_a_trace_names_answers_alike_in_both_modes_with_a_csv_source(csv_source):
    assert walk(csv_source) > 0


@pytest.mark.parametrize("project", CORPUS)
def test_every_column_a_trace_names_answers_alike_in_both_modes(built, shared_dir, project):
    assert walk(built(shared_dir / "corpus" / project / "target")) > 0
