"""`catalog lsp` driven over stdio as an editor drives it (pytest-lsp), on jaffle-shop and
dbt-project-evaluator laid out as project folders, answered in memory and from a stored build:
the same exact answers both ways.

jaffle-shop: stg_orders.order_total is `{{ cents_to_dollars('order_total') }} as order_total`
over the source ecom.raw_orders; orders passes it on through `orders.*` (so its place there is
unknown), customers sums it into lifetime_spend; a metric, a saved query and three semantic
model columns read it (as tests/mcp/test_mcp_memory.py finds). orders.order_cost is
`sum(supply_cost)` over order_items.supply_cost."""

from __future__ import annotations

import asyncio
import re
import shutil

from editor import editor
from projects import EXAMPLE

STG_ORDERS = "models/staging/stg_orders.sql"
ORDERS = "models/marts/orders.sql"
ORDER_ITEMS = "models/marts/order_items.sql"
CUSTOMERS = "models/marts/customers.sql"
SOURCES = "models/staging/__sources.yml"


def test_jaffle_shop_hover_definition_references(jaffle):
    async def run():
        async with editor(jaffle.root, *jaffle.args, env=jaffle.env) as ed:
            ed.open(STG_ORDERS)
            at = ed.at(STG_ORDERS, "as order_total,", into=3)
            assert await ed.hover(STG_ORDERS, at) == "\n".join([
                "**stg_orders.order_total** `DECIMAL(16,2)`",
                "",
                "- transformation: derived `CAST((order_total / 100) AS DECIMAL(16, 2))`",
                "- model stg_orders: resolved",
                "",
                "**Upstream** (one hop): `ecom.raw_orders.order_total` (derived)  ",
                "1 column upstream in all, 1 of them in sources and seeds",
                "",
                "**Downstream**: 2 columns in 2 models (customers, orders)  ",
                "1 metric (order_total)  ",
                "1 saved query (order_metrics)  ",
                "3 semantic model columns (customers.lifetime_spend, orders.order_total, orders.order_total_dim)",
                "",
                jaffle.origin,
            ])  # fmt: skip
            source = ed.at(SOURCES, "- name: order_total", into=8)
            assert await ed.definition(STG_ORDERS, at) == [(SOURCES, source.line, source.character)]
            # orders reads it through `orders.*`: its file, at the top, not a guessed line
            assert await ed.references(STG_ORDERS, at) == [(ORDERS, 0, 0)]

            cost = ed.at(ORDERS, "as order_cost", into=3)
            supply = ed.at(ORDER_ITEMS, "as supply_cost", into=3)
            assert await ed.definition(ORDERS, cost) == [(ORDER_ITEMS, supply.line, supply.character)]
            assert await ed.references(ORDERS, cost) == []  # only metrics and a semantic model read it
            # a column of a parent, where the model reads it
            read = ed.at(ORDERS, "sum(supply_cost)", into=4)
            hover = await ed.hover(ORDERS, read)
            assert hover.startswith("**order_items.supply_cost** `DECIMAL(38,2)`\n")
            assert "_`supply_cost` here is read from order_items._" in hover
            assert await ed.references(ORDERS, read) == [(ORDERS, cost.line, cost.character)]
            assert await ed.definition(ORDERS, read) == [(ORDER_ITEMS, supply.line, supply.character)]
            assert await ed.hover(ORDERS, ed.at(ORDERS, "left join")) is None  # not a column
            assert ed.messages() == []
            read = [m.message for m in ed.client.log_messages if m.message.startswith("catalog lsp: answering from ")]
            how = "53 nodes" if "--memory" in jaffle.args else "asked per question"  # stored: no whole build read first
            assert len(read) == 1 and read[0].startswith(f"catalog lsp: answering from {jaffle.origin[len('_From '):-len('._')]}, {how}, read in ")

    asyncio.run(run())


def test_jaffle_shop_uncertain_place_yaml_and_lenses(jaffle):
    async def run():
        async with editor(jaffle.root, *jaffle.args, env=jaffle.env) as ed:
            ed.open(CUSTOMERS)
            # customer_id comes through `customers.*`; the raw SQL names it only in another CTE's select list
            hover = await ed.hover(CUSTOMERS, ed.at(CUSTOMERS, "orders.customer_id,", into=7))
            assert hover.startswith("**customers.customer_id** `VARCHAR`\n")
            assert hover.endswith(
                "_Position uncertain: `customer_id` is not aliased here; it is taken from the select list where it is last named._\n\n" + jaffle.origin
            )
            # lifetime_spend: written once as an alias, placed with certainty
            spend = await ed.hover(CUSTOMERS, ed.at(CUSTOMERS, "as lifetime_spend\n", into=3))
            assert "Position uncertain" not in spend and "**Upstream** (one hop): `orders.order_total` (derived)" in spend

            ed.open(SOURCES)
            yaml_hover = await ed.hover(SOURCES, ed.at(SOURCES, "- name: order_total", into=8))
            assert yaml_hover.startswith("**ecom.raw_orders.order_total** `INTEGER`\n")
            assert "**Downstream**: 5 columns in 3 models (customers, orders, stg_orders)" in yaml_hover

            lenses = await ed.lenses(CUSTOMERS)
            assert lenses[0][:3] == (0, "customers: 1 downstream · 2 upstream models", "catalog.impact")
            assert len(lenses[0][3]) == 9  # every column of customers
            placed = [(line, title) for line, title, _, _ in lenses[1:]]
            spend_line = ed.at(CUSTOMERS, "as lifetime_spend\n").line
            assert (spend_line, "1 downstream") in placed and (spend_line, "3 upstream") in placed
            assert len(placed) == 14  # 7 columns placed with certainty, two lenses each

            got = await ed.command("catalog.impact", ed.uri(STG_ORDERS), "stg_orders.order_total")
            assert got["text"].startswith("### Impact of `stg_orders.order_total`\n")
            assert "| `customers` | `lifetime_spend` | 2 | needs review |" in got["text"]
            assert [d.uri for d in ed.client.shown_documents] == [got["uri"]]
            trace = await ed.command("catalog.trace", ed.uri(STG_ORDERS), "stg_orders.order_total")
            assert "| `ecom.raw_orders` | `order_total` | 1 | source |" in trace["text"]

    asyncio.run(run())


def test_evaluator_diagnostics_and_jinja(evaluator):
    """dbt-project-evaluator's test project: fct_model_10 is three refs and no SELECT (its
    analysis fails), stg_model_5 selects * from it (unresolved); fct_model_6 is `select 1 as
    id` followed by a Jinja comment that holds `as id` many times."""

    async def run():
        async with editor(evaluator.root, *evaluator.args, env=evaluator.env) as ed:
            for rel in ("models/marts/fct_model_10.sql", "models/staging/stg_model_5.sql", "models/marts/fct_model_6.sql"):
                ed.open(rel)
            fct6 = ed.at("models/marts/fct_model_6.sql", "as id", into=3)
            hover = await ed.hover("models/marts/fct_model_6.sql", fct6)
            assert hover.startswith("**fct_model_6.id** `INTEGER`\n") and "Position uncertain" not in hover
            assert await ed.references("models/marts/fct_model_6.sql", fct6) == [("models/reports/report_2.sql", 0, 0)]

            def diagnostics():
                by_file = {uri.rsplit("/", 1)[1]: [(d.range.start.line, d.severity.value, d.message) for d in found]
                           for uri, found in ed.client.diagnostics.items()}  # fmt: skip
                return by_file if len(by_file) == 3 else None

            assert await ed.until(diagnostics) == {
                "fct_model_10.sql": [(0, 1, "fct_model_10: failed: cannot parse SQL: alias does not support CTE. Line 20, Col: 23.")],
                "stg_model_5.sql": [(0, 2, "stg_model_5: unresolved: select * over '__dbt__cte__fct_model_9' cannot be expanded: "
                                           "columns of '__dbt__cte__fct_model_9' are unknown")],
                "fct_model_6.sql": [],
            }  # fmt: skip

    asyncio.run(run())


def test_coffee_shop_pii_exposures_and_a_snapshot(coffee_shop):
    """The bundled example: orders.amount_paid is `coalesce(order_payments.total_paid, 0)` over
    stg_payments.amount, read by the metric revenue and by the dashboard exposure
    sales_dashboard (which reads every column of orders); the snapshot customers_snapshot
    selects email, tagged PII, from stg_customers (its only mention, in SQL without `*`)."""

    async def run():
        async with editor(coffee_shop.root, *coffee_shop.args, env=coffee_shop.env) as ed:
            orders = "models/marts/orders.sql"
            ed.open(orders)
            paid = ed.at(orders, "as amount_paid", into=3)
            assert await ed.hover(orders, paid) == "\n".join([
                "**orders.amount_paid** `DOUBLE`",
                "",
                "Total of all successful payments, 0 when none.",
                "",
                "- transformation: derived `COALESCE(order_payments.total_paid, 0)`",
                "- model orders: resolved",
                "",
                "**Upstream** (one hop): `stg_payments.amount` (derived)  ",
                "2 columns upstream in all, 1 of them in sources and seeds",
                "",
                "**Downstream**: 5 columns in 4 models (customer_orders_daily, customer_scores, customer_segments, customers)  ",
                "1 metric (revenue)  ",
                "1 exposure (sales_dashboard), 1 of them dashboards  ",
                "1 semantic model column (orders.amount_paid)",
                "",
                coffee_shop.origin,
            ])  # fmt: skip
            amount = ed.at("models/staging/stg_payments.sql", "as amount", into=3)
            assert await ed.definition(orders, paid) == [("models/staging/stg_payments.sql", amount.line, amount.character)]
            daily = ed.at("models/marts/customer_orders_daily.sql", "as amount_paid", into=3)
            # customers reads it in a CTE and passes it on through `*`: its file's top
            assert await ed.references(orders, paid) == [("models/marts/customer_orders_daily.sql", daily.line, daily.character),
                                                         ("models/marts/customers.sql", 0, 0)]  # fmt: skip

            # the example's schema YAML: the column under orders, then under customer_orders_daily
            marts = "models/marts/_marts.yml"
            shutil.copy(EXAMPLE / marts, coffee_shop.root / marts)
            ed.open(marts)
            first = await ed.hover(marts, ed.at(marts, "- name: amount_paid", into=8))
            assert first.startswith("**orders.amount_paid** `DOUBLE`\n\nTotal of all successful payments, 0 when none.\n")
            daily = await ed.hover(marts, ed.at(marts, "- name: amount_paid", nth=1, into=8))
            assert daily.startswith("**customer_orders_daily.amount_paid** `DOUBLE`\n\nSum paid on that day.\n")
            assert await ed.hover(marts, ed.at(marts, "- name: amount_paid", nth=2, into=8)) is None  # a semantic model's measure

            snapshot = "snapshots/customers_snapshot.sql"
            ed.open(snapshot)
            hover = await ed.hover(snapshot, ed.at(snapshot, "email"))
            assert hover.startswith("**customers_snapshot.email** `VARCHAR` · **PII**\n\nE-mail address in lower case.\n\n- transformation: passthrough\n")
            assert "Position uncertain" not in hover
            email = ed.at("models/staging/stg_customers.sql", "as email", into=3)
            assert await ed.definition(snapshot, ed.at(snapshot, "email")) == [("models/staging/stg_customers.sql", email.line, email.character)]

    asyncio.run(run())


def test_a_hover_while_the_lineage_is_first_read_says_so_then_answers(shared_dir, tmp_path):
    """A synth project of 400 models takes seconds to analyze: with --hover-wait 0 the first
    hover says what is being read instead of waiting; once read, the same position answers
    as it does when the hover waits."""
    import subprocess
    import sys

    from projects import lay_out

    out = tmp_path / "synth"
    tool = shared_dir / "tools" / "synth_dbt.py"
    subprocess.run([sys.executable, str(tool), "--models", "400", "--seed", "3", "--out", str(out), "--quiet"], check=True)
    root = lay_out(out / "target", tmp_path / "project")
    rel = sorted(p.relative_to(root).as_posix() for p in (root / "models" / "staging").rglob("*.sql"))[0]
    text = (root / rel).read_text(encoding="utf-8")
    alias = re.search(r"\bas \w+(?=,?\n)", text).group(0)  # a staging model's renamed column, at the end of its line

    async def first_hovers(*args: str) -> tuple[str | None, str | None]:
        async with editor(root, "--memory", *args) as ed:
            ed.open(rel)
            at = ed.at(rel, alias, into=len(alias) - 1)
            first = await ed.hover(rel, at)
            answered = await ed.until(lambda: _answered(ed.hover(rel, at)), timeout=300)
            return first, answered

    first, answered = asyncio.run(first_hovers("--hover-wait", "0"))
    assert first.startswith(f"_catalog lsp is analyzing {root / 'target' / 'manifest.json'} (")
    assert first.endswith("s so far): the lineage of this file answers once it is read. Hover again in a moment._")
    waited, _ = asyncio.run(first_hovers())
    assert answered == waited and answered.startswith("**")


async def _answered(hover) -> str | None:
    text = await hover
    return text if text and not text.startswith("_catalog lsp is ") else None
