"""`catalog lsp` follows the project without a restart: a new target/manifest.json in memory
(after `dbt compile`), a new active build when stored, and `catalog check`'s findings of a
compiled change against the active build as diagnostics; a half-written manifest is told and
the answers stay those of the last good one.

The change (jaffle-shop): stg_orders divides order_total by 1000 instead of 100 (its values
change downstream: partial) and drops tax_paid, which orders and customers read (breaking)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from catalog.builds import Builder
from catalog.history import forget_project
from projects import server_env
from edits import edit_sql
from editor import editor
from projects import lay_out
from test_lsp import STG_ORDERS

UID = "model.jaffle_shop.stg_orders"


def edit_stg_orders(root: Path) -> None:
    """The edit in the raw SQL."""
    raw = root / STG_ORDERS
    text = raw.read_text(encoding="utf-8")
    text = text.replace("        {{ cents_to_dollars('tax_paid') }} as tax_paid,\n", "")
    raw.write_text(text.replace("{{ cents_to_dollars('order_total') }} as order_total", "(order_total / 1000)::numeric(16, 2) as order_total"))


def compile_stg_orders(root: Path) -> None:
    """The edit's compiled SQL in target/manifest.json, as `dbt compile` leaves it."""
    edit_sql(root / "target", UID, "        (tax_paid / 100)::numeric(16, 2) as tax_paid,\n", "")
    edit_sql(root / "target", UID, "(order_total / 100)::numeric(16, 2) as order_total", "(order_total / 1000)::numeric(16, 2) as order_total")


def test_in_memory_a_new_manifest_is_answered_and_a_half_written_one_told(shared_dir, tmp_path):
    root = lay_out(shared_dir / "corpus" / "jaffle-shop" / "target", tmp_path / "jaffle_shop")

    async def run():
        async with editor(root, "--memory") as ed:
            ed.open(STG_ORDERS)
            at = ed.at(STG_ORDERS, "as order_total,", into=3)
            assert "`CAST((order_total / 100) AS DECIMAL(16, 2))`" in await ed.hover(STG_ORDERS, at)
            manifest = root / "target" / "manifest.json"
            whole = manifest.read_bytes()
            manifest.write_bytes(whole[: len(whole) // 2])  # dbt is still writing it
            told = await ed.until(lambda: ed.messages())
            assert len(told) == 1 and told[0].startswith(f"catalog lsp: {manifest}: ")
            assert told[0].endswith(f"; answering from {manifest} (in memory) meanwhile")
            assert "`CAST((order_total / 100) AS DECIMAL(16, 2))`" in await ed.hover(STG_ORDERS, at)

            manifest.write_bytes(whole)
            edit_stg_orders(root)
            ed.edited(STG_ORDERS)
            compile_stg_orders(root)
            at = ed.at(STG_ORDERS, "as order_total,", into=3)

            async def new_answer():
                return "`CAST((order_total / 1000) AS DECIMAL(16, 2))`" in (await ed.hover(STG_ORDERS, at) or "")

            assert await ed.until(new_answer)
            assert await ed.hover(STG_ORDERS, ed.at(STG_ORDERS, "tax_paid_cents", into=2)) is not None
            assert len(ed.messages()) == 1

    asyncio.run(run())


def test_stored_a_new_build_is_answered_and_check_findings_are_diagnostics(shared_dir, tmp_path, graph, neo4j_settings):
    root = lay_out(shared_dir / "corpus" / "jaffle-shop" / "target", tmp_path / "jaffle_shop")
    name = f"test_{uuid.uuid4().hex[:10]}"
    first = Builder(graph, root / "target", project_name=name, jobs=1).run().build_id

    async def run():
        async with editor(root, "--project", name, env=server_env(neo4j_settings)) as ed:
            ed.open(STG_ORDERS)
            at = ed.at(STG_ORDERS, "as order_total,", into=3)
            assert (await ed.hover(STG_ORDERS, at)).endswith(f"_From build {first} of {name!r} in Neo4j._")
            edit_stg_orders(root)
            ed.edited(STG_ORDERS)
            ed.save(STG_ORDERS)
            await asyncio.sleep(0.5)
            compile_stg_orders(root)  # saved, then `dbt compile`: checked against the active build
            uri = ed.uri(STG_ORDERS)

            def findings():
                found = [(d.range.start.line, d.severity.value, d.message) for d in ed.client.diagnostics.get(uri, ())]
                return found if len(found) == 2 else None

            total = ed.at(STG_ORDERS, "as order_total,", into=3).line
            got = await ed.until(findings, timeout=120)
            assert [(line, severity) for line, severity, _ in got] == [(0, 1), (total, 2)]
            assert got[0][2].startswith("catalog check: stg_orders.tax_paid: removed. breaking: ")
            assert got[1][2].startswith("catalog check: stg_orders.order_total: expression")
            assert ed.messages() == []

            second = Builder(graph, root / "target", project_name=name, jobs=1).run().build_id

            async def new_build():
                text = await ed.hover(STG_ORDERS, ed.at(STG_ORDERS, "as order_total,", into=3)) or ""
                return text if text.endswith(f"_From build {second} of {name!r} in Neo4j._") else None

            assert "`CAST((order_total / 1000) AS DECIMAL(16, 2))`" in await ed.until(new_build)

    try:
        asyncio.run(run())
    finally:
        forget_project(graph, name)
