"""``catalog check --state``: real edits of the example and corpus projects, with the exact
findings, classes and downstream hits (no Neo4j).

From examples/coffee_shop/target/compiled: stg_orders.status passes into orders.status and
orders.payment_status; customers filters `where status <> 'cancelled'` on orders (condition
lineage: all of customers' rows, and customer_segments' `select *` of it); the exposure
sales_dashboard reads orders and the metric revenue (sum of the measure amount_paid of the
semantic model orders, over orders.amount_paid). All marts are `access: public`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.check import CheckReport, check_states
from catalog.cli.app import app
from catalog.extract import load_project
from catalog.compare import analyze_states
from catalog.prune import prune_state
from catalog.report.check_md import check_markdown
from edits import (
    drop_catalog_column, edit_catalog_type, edit_column, edit_manifest, edit_measure_expr, edit_sql, enforce_contract, rename_catalog_column,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"
STG_ORDERS = "model.coffee_shop.stg_orders"
EVALUATOR = "model.dbt_project_evaluator_integration_tests"
JAFFLE = "model.jaffle_shop"
# jaffle-shop's stg_orders: `tax_paid as tax_paid_cents` beside `(tax_paid / 100)::numeric(16, 2)
# as tax_paid`; orders is `select orders.*` over it, customers sums orders.tax_paid into
# lifetime_tax_paid, and the semantic model orders has a measure over orders.tax_paid
TAX_PAID = "        (tax_paid / 100)::numeric(16, 2) as tax_paid,\n"
DROP_STATUS = (",\n    coalesce(lower(trim(status)), 'unknown') as status", "")


def check(base: Path, target: Path) -> CheckReport:
    old, new = load_project(base), load_project(target)
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    return check_states(old, old_lineages, new, lineages, base=str(base))


def copy(base: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "target"
    shutil.copytree(base, dst)
    return dst


def edit_stg_orders(shared_dir: Path, tmp_path: Path, old: str, new: str, regenerate) -> tuple[Path, Path]:
    """jaffle-shop and a copy with stg_orders' SQL edited and catalog.json regenerated for
    stg_orders and for orders, whose `select orders.*` passes its columns on
    (``regenerate(target, unique_id)``)."""
    base = shared_dir / "corpus" / "jaffle-shop" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, f"{JAFFLE}.stg_orders", old, new)
    for model in ("stg_orders", "orders"):
        regenerate(target, f"{JAFFLE}.{model}")
    return base, target


def summary(report: CheckReport) -> list[tuple]:
    return [
        (f.severity, f.model, f.column, f.changes, f.hit_models(), f.hit_names("metric"), f.hit_names("exposure"), f.hit_names("saved_query"))
        for f in report.findings
    ]


def test_drop_a_column_read_downstream(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, *DROP_STATUS)
    report = check(EXAMPLE, target)
    assert summary(report) == [
        ("breaking", "stg_orders", "status", ("removed",), ["customer_scores", "customer_segments", "customers", "orders"], [], ["sales_dashboard"], [])
    ]
    (f,) = report.findings
    by_name = {h.name: h for h in f.hits}
    assert by_name["orders.status"].lineage == "value"
    assert [(p.kind, p.to_key) for p in by_name["orders.status"].path] == [("feeds", "model.coffee_shop.orders.status")]
    assert by_name["customers.lifetime_value"].lineage == "condition"  # where status <> 'cancelled'
    assert [p.clause for p in by_name["customers.lifetime_value"].path if p.kind == "conditions"] == ["where"]
    assert by_name["exposure:sales_dashboard"].kind == "exposure"


def test_rename_a_column(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, "'unknown') as status", "'unknown') as order_status")
    report = check(EXAMPLE, target)
    assert summary(report) == [
        ("breaking", "stg_orders", "status", ("renamed",), ["customer_scores", "customer_segments", "customers", "orders"], [], ["sales_dashboard"], [])
    ]
    assert report.findings[0].renamed_to == "order_status"
    assert report.findings[0].why == "renamed, and read downstream"


def test_change_a_cast(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, "cast(ordered_at as date) as order_date", "cast(ordered_at as timestamp) as order_date")
    edit_catalog_type(target, STG_ORDERS, "order_date", "TIMESTAMP")
    report = check(EXAMPLE, target)
    assert summary(report) == [
        ("breaking", "stg_orders", "order_date", ("expression", "data_type"), ["customer_orders_daily", "orders"], [], ["sales_dashboard"], [])
    ]
    assert "data type date -> timestamp" in report.findings[0].detail


def test_change_a_where_only(tmp_path):
    """Rows change, values do not: one `*` finding, partial, reaching the metric through rows."""
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, '"raw_orders"', '"raw_orders"\nwhere status is not null')
    report = check(EXAMPLE, target)
    assert summary(report) == [
        (
            "partial", "stg_orders", "*", ("rows",),
            ["customer_orders_daily", "customer_scores", "customer_segments", "customers", "order_events", "orders"],
            ["revenue"], ["sales_dashboard"], [],
        )
    ]  # fmt: skip
    assert report.findings[0].detail == "conditions +where source.coffee_shop.shop.orders.status"
    assert not any("expression" in f.changes for f in report.findings)


def test_add_a_column(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, "as status\n", "as status,\n    1 as flag\n")
    report = check(EXAMPLE, target)
    assert summary(report) == [("safe", "stg_orders", "flag", ("added",), [], [], [], [])]
    assert report.failing("partial") == []


def test_change_a_measure_expr(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_measure_expr(target, "semantic_model.coffee_shop.orders", "amount_paid", "amount_paid - credit_card_amount")
    report = check(EXAMPLE, target)
    assert summary(report) == [("partial", "semantic_model:orders", "amount_paid", ("expression",), [], ["revenue"], ["sales_dashboard"], [])]
    assert [h.name for h in report.findings[0].hits] == ["metric:revenue", "exposure:sales_dashboard"]


@pytest.mark.corpus
def test_change_a_measure_expr_jaffle_shop(shared_dir, tmp_path):
    base = shared_dir / "corpus" / "jaffle-shop" / "target"
    target = copy(base, tmp_path)
    edit_measure_expr(target, "semantic_model.jaffle_shop.orders", "order_total", "order_total - tax_paid")
    report = check(base, target)
    assert summary(report) == [("partial", "semantic_model:orders", "order_total", ("expression",), [], ["order_total"], [], ["order_metrics"])]


def prune_summary(base: Path, target: Path) -> dict[str, tuple]:
    """``prune --state``: per model, why it is in, the columns that change, its own changes."""
    old, new = load_project(base), load_project(target)
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    plan = prune_state(old, old_lineages, new, lineages)
    return {m.name: (m.lineage, m.columns, [(c.column, c.change, c.detail) for c in m.changes]) for m in plan.models}


@pytest.mark.corpus
def test_a_column_beside_a_changed_cast_is_not_reported(shared_dir, tmp_path):
    """tax_paid_cents reads the relation's tax_paid, not the projection tax_paid beside it:
    its expression and lineage are unchanged, so neither check nor prune reports it."""
    base, target = edit_stg_orders(
        shared_dir, tmp_path, "(tax_paid / 100)::numeric(16, 2)", "(tax_paid / 100)::numeric(18, 2)",
        lambda t, uid: edit_catalog_type(t, uid, "tax_paid", "DECIMAL(18,2)"),
    )  # fmt: skip
    report = check(base, target)
    assert summary(report) == [
        ("breaking", "orders", "tax_paid", ("data_type",), ["customers"], [], [], []),
        ("breaking", "stg_orders", "tax_paid", ("expression", "data_type"), ["customers", "orders"], [], [], []),
    ]
    assert prune_summary(base, target) == {
        "customers": ("value", ("lifetime_tax_paid",), []),
        "orders": ("changed", ("tax_paid",), [("tax_paid", "modified", "data type decimal(16,2) -> decimal(18,2)")]),
        "stg_orders": (
            "changed", ("tax_paid",),
            [("tax_paid", "modified", "expression 'CAST((tax_paid / 100) AS DECIMAL(16, 2))' -> 'CAST((tax_paid / 100) AS "
              "DECIMAL(18, 2))'; data type decimal(16,2) -> decimal(18,2)")],
        ),
    }  # fmt: skip


@pytest.mark.corpus
def test_a_removed_column_lists_its_readers_changed_with_it(shared_dir, tmp_path):
    """stg_orders.tax_paid removed, catalog.json regenerated: orders' `select orders.*` loses
    it too, and customers' sum(orders.tax_paid) reads a missing column. Both models change in
    the same change, and both still read it."""
    base, target = edit_stg_orders(shared_dir, tmp_path, TAX_PAID, "", lambda t, uid: drop_catalog_column(t, uid, "tax_paid"))
    report = check(base, target)
    assert summary(report) == [
        ("breaking", "customers", "lifetime_tax_paid", ("reads_removed",), [], [], [], []),
        ("breaking", "orders", "tax_paid", ("removed",), ["customers"], [], [], []),
        ("breaking", "stg_orders", "tax_paid", ("removed",), ["customers", "orders"], [], [], []),
    ]
    reader, _, removed = report.findings
    assert reader.why == "reads a removed column"
    assert reader.detail == (
        "sources -model.jaffle_shop.orders.tax_paid; type derived -> unknown; resolved True -> False"
        " (column orders.tax_paid not found in its relation)"
    )
    assert [(h.name, [p.to_key for p in h.path]) for h in removed.hits] == [
        ("orders.tax_paid", [f"{JAFFLE}.orders.tax_paid"]),
        ("customers.lifetime_tax_paid", [f"{JAFFLE}.orders.tax_paid", f"{JAFFLE}.customers.lifetime_tax_paid"]),
        ("semantic_model:orders.tax_paid", [f"{JAFFLE}.orders.tax_paid", "semantic_model.jaffle_shop.orders.tax_paid"]),
    ]
    assert prune_summary(base, target) == {
        "customers": ("changed", ("lifetime_tax_paid",), [("lifetime_tax_paid", "modified", reader.detail)]),
        "orders": ("changed", (), [("tax_paid", "removed", "")]),
        "stg_orders": ("changed", (), [("tax_paid", "removed", "")]),
    }


@pytest.mark.corpus
def test_jaffle_shop_semantic_layer_is_read(shared_dir):
    project = load_project(shared_dir / "corpus" / "jaffle-shop" / "target")
    assert (len(project.semantic_models), len(project.metrics), len(project.saved_queries)) == (6, 19, 3)
    ratio = project.metrics["metric.jaffle_shop.food_revenue_pct"]
    assert ratio.metrics == ("metric.jaffle_shop.food_revenue", "metric.jaffle_shop.revenue")
    assert project.metrics["metric.jaffle_shop.cumulative_revenue"].measures == ("revenue",)


@pytest.mark.corpus
def test_remove_a_column_an_exposure_reads(shared_dir, tmp_path):
    base = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, f"{EVALUATOR}.fct_model_6", "select 1 as id", "select 1 as ident")
    report = check(base, target)
    assert summary(report) == [
        ("breaking", "fct_model_6", "id", ("removed",), ["report_2"], [], ["exposure_1"], []),
        ("safe", "fct_model_6", "ident", ("added",), [], [], [], []),
    ]


@pytest.mark.corpus
def test_add_a_column_to_a_contracted_model(shared_dir, tmp_path):
    """dim_model_7 enforces its contract (id int, not_null): a column added is a change of the
    contract, not a breaking one (as dbt's state comparison says)."""
    base = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, f"{EVALUATOR}.dim_model_7", "select * from __dbt__cte__stg_model_4", "select id, 1 as version from __dbt__cte__stg_model_4")
    report = check(base, target)
    assert summary(report) == [("safe", "dim_model_7", "version", ("added",), [], [], [], [])]
    assert report.findings[0].why == "no value changes; not a breaking change of the enforced contract of dim_model_7"


# ---------------------------------------------------------------------------- contracts
# jaffle-shop's orders (a table, duckdb) with its contract enforced in the base and the change,
# every column declared with catalog.json's type, order_id not_null and unique, and a model-level
# primary key on order_id; customers reads orders.order_id (count distinct) and groups by
# orders.customer_id, the semantic model orders reads order_cost and is_food_order


def contracted_orders(tmp_path: Path, shared_dir: Path) -> tuple[Path, Path]:
    base = copy(shared_dir / "corpus" / "jaffle-shop" / "target", tmp_path / "base")
    enforce_contract(base, f"{JAFFLE}.orders", {"order_id": ["not_null", "unique"]}, [{"type": "primary_key", "columns": ["order_id"]}])
    return base, copy(base, tmp_path)


@pytest.mark.corpus
def test_a_contracted_model_breaks_on_what_breaks_its_contract_only(shared_dir, tmp_path):
    """One change to orders: order_items_subtotal removed (SQL, YAML, catalog.json), which
    nothing downstream reads; order_cost declared decimal(38,4); is_food_order's expression
    changed (read by the semantic model); a column added; customer_order_number retyped in
    catalog.json only. dbt calls the first two breaking changes of the contract, and nothing else."""
    base, target = contracted_orders(tmp_path, shared_dir)
    orders = f"{JAFFLE}.orders"
    edit_sql(target, orders, "        order_items_summary.order_items_subtotal,\n", "")
    edit_column(target, orders, "order_items_subtotal", remove=True)
    drop_catalog_column(target, orders, "order_items_subtotal")
    edit_column(target, orders, "order_cost", data_type="decimal(38,4)")
    edit_catalog_type(target, orders, "order_cost", "DECIMAL(38,4)")
    edit_sql(target, orders, "count_food_items > 0 as is_food_order", "count_food_items >= 2 as is_food_order")
    edit_sql(target, orders, "as is_drink_order\n", "as is_drink_order,\n        1 as version\n")
    # catalog.json's type alone (the declared data_type unchanged): not the contract's
    edit_catalog_type(target, orders, "customer_order_number", "INTEGER")
    report = check(base, target)
    assert [(f.severity, f.column, f.changes, f.why) for f in report.findings] == [
        ("breaking", "order_cost", ("data_type",), "breaks the enforced contract of orders: data_type decimal(38,2) -> decimal(38,4)"),
        ("breaking", "order_items_subtotal", ("removed",), "breaks the enforced contract of orders: declared column removed"),
        (
            "partial", "customer_order_number", ("data_type",),
            "retyped, and read downstream; not a breaking change of the enforced contract of orders",
        ),
        (
            "partial", "is_food_order", ("expression",),
            "values change downstream; not a breaking change of the enforced contract of orders",
        ),
        # customers reads orders, not its new column
        ("safe", "version", ("added",), "no value changes; unused: no reader; not a breaking change of the enforced contract of orders"),
    ]  # fmt: skip
    hits = {f.column: [h.name for h in f.hits] for f in report.findings}
    assert hits["order_cost"] == ["semantic_model:orders.order_cost", "metric:order_cost", "metric:order_gross_profit"]
    assert hits["is_food_order"] == ["semantic_model:orders.is_food_order"]
    assert hits["order_items_subtotal"] == []  # breaking although nothing reads it: the contract promised it


@pytest.mark.corpus
def test_removed_constraints_and_a_new_materialization_break_a_contract(shared_dir, tmp_path):
    """order_id's not_null and unique constraints removed, the model-level primary key
    removed, and orders materialized as a view (where no constraint applies): all breaking,
    duckdb enforcing every constraint type. Its SQL is unchanged."""
    base, target = contracted_orders(tmp_path, shared_dir)
    orders = f"{JAFFLE}.orders"
    edit_column(target, orders, "order_id", constraints=[])
    edit_manifest(target, lambda m: m["nodes"][orders].update(constraints=[]))
    edit_manifest(target, lambda m: m["nodes"][orders]["config"].update(materialized="view"))
    report = check(base, target)
    assert [(f.severity, f.column, f.changes, f.why) for f in report.findings] == [
        (
            "breaking", "*", ("constraint", "materialization"),
            "breaks the enforced contract of orders: primary_key on (order_id) constraint removed; "
            "materialized table -> view: its constraints no longer apply",
        ),
        ("breaking", "order_id", ("constraint",), "breaks the enforced contract of orders: not_null constraint removed; unique constraint removed"),
    ]  # fmt: skip
    # what reads orders.order_id: customers' count(distinct orders.order_id) and what it feeds
    assert report.findings[1].hit_models() == ["customers"]
    assert [h.name for h in report.findings[1].hits][:3] == [
        "customers.count_lifetime_orders", "customers.customer_type", "semantic_model:orders.order_id",
    ]  # fmt: skip


@pytest.mark.corpus
def test_which_removed_constraints_break_depends_on_what_the_adapter_enforces(shared_dir, tmp_path):
    """The same removal of not_null and unique on a Snowflake project: Snowflake enforces
    not_null only (unique is not enforced there), so only not_null's removal breaks."""
    from catalog.contract import contract_breaks

    base, target = contracted_orders(tmp_path, shared_dir)
    edit_column(target, f"{JAFFLE}.orders", "order_id", constraints=[])
    old, new = load_project(base).nodes[f"{JAFFLE}.orders"], load_project(target).nodes[f"{JAFFLE}.orders"]
    assert [(b.column, b.detail) for b in contract_breaks(old, new, "snowflake")] == [("order_id", "not_null constraint removed")]
    assert [(b.column, b.detail) for b in contract_breaks(old, new, "duckdb")] == [
        ("order_id", "not_null constraint removed"), ("order_id", "unique constraint removed"),
    ]  # fmt: skip
    # a view applies no constraints: removing them from one breaks nothing
    view = load_project(base).nodes[f"{JAFFLE}.orders"].model_copy(update={"materialized": "view"})
    assert contract_breaks(view, new, "duckdb") == []


@pytest.mark.corpus
def test_a_contract_no_longer_enforced_breaks_it_and_a_new_one_does_not(shared_dir, tmp_path):
    base, target = contracted_orders(tmp_path, shared_dir)
    orders = f"{JAFFLE}.orders"
    edit_manifest(target, lambda m: m["nodes"][orders]["config"].update(contract={"enforced": False, "alias_types": True}))
    report = check(base, target)
    assert [(f.severity, f.column, f.changes, f.why) for f in report.findings] == [
        ("breaking", "*", ("contract",), "breaks the enforced contract of orders: contract no longer enforced"),
    ]
    # the other way round: a contract enforced from now on has nothing to break yet, and a
    # column added with it is safe
    plain = shared_dir / "corpus" / "jaffle-shop" / "target"
    added = copy(base, tmp_path / "added")
    edit_sql(added, orders, "as is_drink_order\n", "as is_drink_order,\n        1 as version\n")
    report = check(plain, added)
    assert [(f.severity, f.column, f.changes, f.why) for f in report.findings] == [
        ("safe", "version", ("added",), "no value changes; unused: no reader")]


# ---------------------------------------------------------------------------- the command
def test_cli_exit_codes_and_formats(tmp_path):
    runner = CliRunner()
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, *DROP_STATUS)
    done = runner.invoke(app, ["check", "--state", str(EXAMPLE), str(target)])
    assert done.exit_code == 1, done.output
    assert "removed" in done.stdout and "breaking" in done.stdout
    done = runner.invoke(app, ["check", "--state", str(EXAMPLE), str(target), "--fail-on", "never", "--json"])
    assert done.exit_code == 0
    data = json.loads(done.stdout)
    assert data["counts"] == {"breaking": 1, "policy": 0, "partial": 0, "safe": 0}
    assert data["findings"][0]["exposures_hit"] == ["sales_dashboard"]
    done = runner.invoke(app, ["check", "--state", str(EXAMPLE), str(target), "--format", "md"])
    assert done.exit_code == 1
    md = done.stdout
    assert md.startswith("<!-- catalog-check -->\n## catalog check: `coffee_shop`\n\n**Blocks the merge**")
    assert md.index("| class |") < md.index("<details>")
    assert "`stg_orders.status -[passthrough]-> orders.status`" in md

    added = copy(EXAMPLE, tmp_path / "added")
    edit_sql(added, STG_ORDERS, '"raw_orders"', '"raw_orders"\nwhere status is not null')
    assert runner.invoke(app, ["check", "--state", str(EXAMPLE), str(added)]).exit_code == 0
    assert runner.invoke(app, ["check", "--state", str(EXAMPLE), str(added), "--fail-on", "partial"]).exit_code == 1
    assert runner.invoke(app, ["check", "--state", str(EXAMPLE), str(added), "--fail-on", "bogus"]).exit_code == 2
    assert runner.invoke(app, ["check", "--state", str(EXAMPLE), str(added), "--project", "x"]).exit_code == 2  # the graph's, or --state
    assert runner.invoke(app, ["check"]).exit_code == 2  # no PATH
    # could not run: 2, apart from 1 (findings)
    done = runner.invoke(app, ["check", "--state", str(tmp_path / "nope"), str(added)])
    assert done.exit_code == 2 and done.output.startswith(f"Error: {tmp_path / 'nope'}: no such file or directory")
    done = runner.invoke(app, ["check", str(added), "--uri", "bolt://127.0.0.1:9"])  # Neo4j unreachable
    assert done.exit_code == 2 and done.output.startswith("Error: "), done.output


def test_markdown_says_what_changed_and_keeps_every_finding_under_the_limit(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, '"raw_orders"', '"raw_orders"\nwhere status is not null')
    edit_sql(target, STG_ORDERS, *DROP_STATUS)
    report = check(EXAMPLE, target)
    full = check_markdown(report, "breaking")
    assert full.startswith("<!-- catalog-check -->\n")
    # the rows of stg_orders change: its two tests (unique, not_null of order_id) are selected by name
    assert (
        "Rebuild: `dbt build -s customer_orders_daily customer_scores customer_segments customers order_events orders "
        "stg_orders not_null_stg_orders_order_id unique_stg_orders_order_id`" in full
    )
    rows = [line for line in full.splitlines() if line.startswith("| 🔴") or line.startswith("| 🟡")]
    assert rows[0].startswith("| 🔴 breaking | `stg_orders.status` | `removed` | 4 model(s) (customer_scores, customer_segments, customers, orders), 30 column(s);")
    assert rows[1].startswith("| 🟡 partial | `stg_orders.*` | `rows: conditions +where source.coffee_shop.shop.orders.status` |")
    # each finding's hits are summarized: counts by kind and model, the first paths, the rest counted
    assert "Hits: 30 column(s), 1 semantic model element(s), 1 exposure(s) (4 by value, 28 by condition only)." in full
    assert "Columns hit per model: `customer_segments` 13, `customers` 12, `customer_scores` 3, `orders` 2." in full
    assert "Owners of the exposures hit: Sales analytics." in full
    assert "_and 27 more hit(s): `catalog check --json` lists every one with its path._" in full
    assert full.count("<details>") == 2
    # a tighter limit shortens the blocks (one path, three models each) before it leaves one
    # out, and the table keeps every finding: what survives is the whole head and table, then
    table_part = full[: full.index("\n\n<details>")]
    assert "| 🟡 partial | `stg_orders.*`" in table_part and "not in this table" not in table_part
    status_short = "\n".join([
        "<details><summary>stg_orders.status: removed (breaking, 32 hit(s))</summary>",
        "",
        "Hits: 30 column(s), 1 semantic model element(s), 1 exposure(s) (4 by value, 28 by condition only).",
        "Columns hit per model: `customer_segments` 13, `customers` 12, `customer_scores` 3, and 1 more model(s).",
        "Owners of the exposures hit: Sales analytics.",
        "Exposures hit: `sales_dashboard` (model-level) (column-level: through the columns it lists).",
        "",
        "| hit | kind | lineage | path |",
        "|---|---|---|---|",
        "| `orders.payment_status` | column | value | `stg_orders.status -[derived]-> orders.payment_status` |",
        "",
        "_and 31 more hit(s): `catalog check --json` lists every one with its path._",
        "",
        "</details>",
    ])  # fmt: skip
    rows_short = "\n".join([
        "<details><summary>stg_orders.\\*: rows (partial, 58 hit(s))</summary>",
        "",
        "`conditions +where source.coffee_shop.shop.orders.status`",
        "",
        "Hits: 51 column(s), 5 semantic model element(s), 1 metric(s), 1 exposure(s) (21 by value, 37 by condition only).",
        "Columns hit per model: `customer_segments` 13, `orders` 13, `customers` 12, and 3 more model(s).",
        "Tests that read it: `not_null_stg_orders_order_id`, `unique_stg_orders_order_id`.",
        "Owners of the exposures hit: Sales analytics.",
        "Exposures hit: `sales_dashboard` (model-level) (column-level: through the columns it lists).",
        "",
        "| hit | kind | lineage | path |",
        "|---|---|---|---|",
        "| `order_events.customer_id` | column | value | `stg_orders.customer_id -[passthrough]-> order_events.customer_id` |",
        "",
        "_and 57 more hit(s): `catalog check --json` lists every one with its path._",
        "",
        "</details>",
    ])  # fmt: skip
    tight = check_markdown(report, "breaking", limit=len(full) - 500)
    assert tight == "\n\n".join([table_part, status_short, rows_short])  # both blocks in short
    assert len(tight) <= len(full) - 500
    tighter = check_markdown(report, "breaking", limit=len(full) - 800)
    left_out = "_Details of 1 finding(s) in the table left out to stay under GitHub's limit (`stg_orders.*`): `catalog check --json` has them._"
    assert tighter == "\n\n".join([table_part, status_short, left_out])  # the second block left out, and said so
    assert len(tighter) <= len(full) - 800


def test_github_and_sarif_point_at_the_models_file_and_line(tmp_path, monkeypatch):
    project = tmp_path / "repo" / "coffee_shop"
    shutil.copytree(EXAMPLE.parent, project)
    edit_sql(project / "target", STG_ORDERS, *DROP_STATUS)
    sql = (project / "models" / "staging" / "stg_orders.sql").read_text().splitlines()
    line = next(i for i, text in enumerate(sql, start=1) if " as status" in text)
    monkeypatch.chdir(tmp_path / "repo")
    runner = CliRunner()
    done = runner.invoke(app, ["check", "--state", str(EXAMPLE), "coffee_shop", "--format", "github"])
    assert done.exit_code == 1
    assert done.stdout.splitlines() == [
        f"::error file=coffee_shop/models/staging/stg_orders.sql,line={line},title=catalog check%3A breaking::"
        "stg_orders.status: removed. breaking: removed, and read downstream. "
        "Hits: 4 model(s) (customer_scores, customer_segments, customers, orders), 30 column(s); semantic: orders.status; exposures: sales_dashboard",
        "::notice title=catalog check%3A rebuild::Rebuild: dbt build -s stg_orders",  # as `prune --state` selects
    ]
    done = runner.invoke(app, ["check", "--state", str(EXAMPLE), "coffee_shop", "--format", "sarif", "--fail-on", "never"])
    assert done.exit_code == 0
    log = json.loads(done.stdout)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["breaking", "policy", "partial", "safe"]
    (result,) = run["results"]
    assert result["ruleId"] == "breaking" and result["level"] == "warning"  # --fail-on never: nothing is an error
    assert result["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": "coffee_shop/models/staging/stg_orders.sql"}, "region": {"startLine": line}}}
    ]


@pytest.mark.corpus
def test_a_where_on_a_staging_model_of_tuva_gives_a_complete_comment(shared_dir, tmp_path):
    """Hundreds of hits: the comment says what changed and what is hit, every finding keeps its
    details, and it stays under GitHub's limit."""
    base = shared_dir / "corpus" / "tuva" / "target"
    target = copy(base, tmp_path)
    uid = "model.the_tuva_project.normalized_input__stg_medical_claim"
    edit_sql(target, uid, "from tuva.input_layer.medical_claim", "from tuva.input_layer.medical_claim\nwhere claim_type <> 'dental'")
    report = check(base, target)
    (finding,) = report.findings
    assert (finding.column, finding.changes, finding.severity) == ("*", ("rows",), "partial")
    assert len(finding.hits) > 1000
    md = check_markdown(report, "partial")
    assert len(md) <= 60_000
    assert md.count("<details>") == 1
    assert "| `normalized_input__stg_medical_claim.*` | `rows: conditions +where model.input_layer.medical_claim.claim_type` |" in md
    hits_line = next(line for line in md.splitlines() if line.startswith("Hits: "))
    assert hits_line.startswith(f"Hits: {sum(1 for h in finding.hits if h.kind == 'column')} column(s)")
    assert f"_and {len(finding.hits) - 5} more hit(s)" in md
    assert "left out" not in md and "not in this table" not in md


# ---------------------------------------------------------------------------- readers through conditions
def condition_readers(finding) -> dict[str, set[str]]:
    """Model -> the clauses (where, join, group_by, ...) of its own that the finding's column
    reaches (a condition, then the model's rows: all its columns)."""
    out: dict[str, set[str]] = {}
    for h in finding.hits:
        if h.kind == "column" and len(h.path) >= 2 and h.path[-1].kind == "has" and h.path[-2].kind == "conditions":
            out.setdefault(h.owner.rsplit(".", 1)[-1], set()).add(h.path[-2].clause)
    return out


@pytest.mark.corpus
def test_a_removed_column_lists_the_models_reading_it_in_a_join(shared_dir, tmp_path):
    """stg_orders.order_id removed (catalog.json regenerated: orders' `select *` loses it too).
    order_items reads it only in `left join orders on order_items.order_id = orders.order_id`,
    orders in `on orders.order_id = order_items_summary.order_id`: their SQL is unchanged, so
    they still read it (the analysis drops the join condition on a missing column). Both are
    listed with their clause, and each says it reads a removed column. customers counts
    orders.order_id (by value) and groups by orders.customer_id, whose rows change."""
    base, target = edit_stg_orders(shared_dir, tmp_path, "id as order_id,", "", lambda t, uid: drop_catalog_column(t, uid, "order_id"))
    report = check(base, target)
    assert [(f.severity, f.model, f.column, f.changes, f.why) for f in report.findings] == [
        ("breaking", "customers", "count_lifetime_orders", ("reads_removed",), "reads a removed column"),
        ("breaking", "customers", "customer_type", ("reads_removed",), "reads a removed column"),
        ("breaking", "order_items", "*", ("reads_removed", "rows"), "reads a removed column"),
        ("breaking", "orders", "*", ("reads_removed", "rows"), "reads a removed column"),
        ("breaking", "orders", "order_id", ("removed",), "removed, and read downstream"),
        ("breaking", "stg_orders", "order_id", ("removed",), "removed, and read downstream"),
    ]
    assert report.findings[2].detail == "conditions -join model.jaffle_shop.stg_orders.order_id"
    removed = report.findings[-1]
    assert removed.hit_models() == ["customers", "order_items", "orders"]
    assert condition_readers(removed) == {"order_items": {"join"}, "orders": {"join"}, "customers": {"group_by"}}
    assert sorted(h.name for h in removed.hits if h.lineage == "condition" and h.owner == f"{JAFFLE}.order_items") == [
        f"order_items.{c}"
        for c in ("is_drink_item", "is_food_item", "order_id", "order_item_id", "ordered_at", "product_id", "product_name", "product_price", "supply_cost")
    ]


@pytest.mark.corpus
def test_a_changed_column_lists_the_models_reading_it_in_a_window_or_group_by(shared_dir, tmp_path):
    """stg_orders.customer_id becomes upper(customer): orders passes it on and partitions its
    row_number() by it (window); customers reads orders.customer_id only to group by and
    join on it, so all its columns are hit through its GROUP BY."""
    base = shared_dir / "corpus" / "jaffle-shop" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, f"{JAFFLE}.stg_orders", "customer as customer_id", "upper(customer) as customer_id")
    (finding,) = check(base, target).findings
    assert (finding.severity, finding.column, finding.changes) == ("partial", "customer_id", ("expression", "lineage"))
    assert condition_readers(finding) == {"orders": {"window"}, "customers": {"group_by"}}
    customers = sorted(h.name for h in finding.hits if h.owner == f"{JAFFLE}.customers")
    assert customers == [
        f"customers.{c}"
        for c in (
            "count_lifetime_orders", "customer_id", "customer_name", "customer_type", "first_ordered_at", "last_ordered_at",
            "lifetime_spend", "lifetime_spend_pretax", "lifetime_tax_paid",
        )
    ]  # fmt: skip


@pytest.mark.corpus
def test_a_rename_passed_on_by_select_star_is_a_rename_downstream(shared_dir, tmp_path):
    """stg_orders renames tax_paid to tax_paid_dollars (catalog.json regenerated); orders'
    `select orders.*` passes it on under the new name: a rename there too, caused by
    stg_orders'. customers' sum(orders.tax_paid) now reads a missing column."""
    base, target = edit_stg_orders(
        shared_dir, tmp_path, "::numeric(16, 2) as tax_paid,", "::numeric(16, 2) as tax_paid_dollars,",
        lambda t, uid: rename_catalog_column(t, uid, "tax_paid", "tax_paid_dollars"),
    )  # fmt: skip
    report = check(base, target)
    assert [(f.severity, f.model, f.column, f.changes, f.renamed_to, f.cause, f.detail) for f in report.findings] == [
        ("breaking", "customers", "lifetime_tax_paid", ("reads_removed",), None, "", (
            "sources -model.jaffle_shop.orders.tax_paid; type derived -> unknown; resolved True -> False"
            " (column orders.tax_paid not found in its relation)"
        )),
        ("breaking", "orders", "tax_paid", ("renamed",), "tax_paid_dollars", "stg_orders.tax_paid",
         "passes on the rename of stg_orders.tax_paid to tax_paid_dollars"),
        ("breaking", "stg_orders", "tax_paid", ("renamed",), "tax_paid_dollars", "", ""),
    ]  # fmt: skip
    # what still reads the old name: customers (changed with it) and the semantic model's measure
    assert [h.name for h in report.findings[1].hits] == ["customers.lifetime_tax_paid", "semantic_model:orders.tax_paid"]
    assert report.to_dict()["findings"][1]["cause"] == "stg_orders.tax_paid"


@pytest.mark.corpus
def test_a_base_that_kept_no_contract_details_breaks_on_any_change_to_a_contracted_model(shared_dir, tmp_path):
    """A stored build made before contracts were kept has `contract_enforced` but no details
    to grade by dbt's rules: every change but documentation to that model stays breaking."""
    base, target = contracted_orders(tmp_path, shared_dir)
    edit_sql(target, f"{JAFFLE}.orders", "as is_drink_order\n", "as is_drink_order,\n        1 as version\n")
    old, new = load_project(base), load_project(target)
    nodes = {**old.nodes, f"{JAFFLE}.orders": old.nodes[f"{JAFFLE}.orders"].model_copy(update={"contract": None})}
    old = old.model_copy(update={"nodes": nodes})
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    report = check_states(old, old_lineages, new, lineages, base="build 1")
    assert [(f.severity, f.column, f.changes, f.why) for f in report.findings] == [("breaking", "version", ("added",), "orders has an enforced contract")]


# ---------------------------------------------------------------------------- real code that is odd
TUVA = "model.the_tuva_project"


@pytest.mark.corpus
def test_a_literal_beside_a_star_in_union_branches_changes_that_column_only(shared_dir, tmp_path):
    """tuva's acute_inpatient__encounter_data_for_medical_claims is two `select *, '<run time>'
    as tuva_last_run from <cte>` branches of a UNION ALL; a var bump changes the literal in
    both. Only tuva_last_run changes: every other column reads the same CTE columns as before."""
    base = shared_dir / "corpus" / "tuva" / "target"
    target = copy(base, tmp_path)
    uid = f"{TUVA}.acute_inpatient__encounter_data_for_medical_claims"
    edit_sql(target, uid, "'2024-02-22 18:57:22.487629+00:00' as tuva_last_run", "'2024-03-01 00:00:00.000000+00:00' as tuva_last_run")
    report = check(base, target)
    assert [(f.severity, f.column, f.changes, f.detail) for f in report.findings] == [
        ("partial", "tuva_last_run", ("expression",), "expression \"'2024-02-22 18:57:22.487629+00:00'\" -> \"'2024-03-01 00:00:00.000000+00:00'\""),
    ]
    plan = prune_summary(base, target)
    assert plan["acute_inpatient__encounter_data_for_medical_claims"] == ("changed", ("tuva_last_run",), [("tuva_last_run", "modified", report.findings[0].detail)])


def drop_from_ephemeral(target: Path, uid: str, line: str) -> None:
    """Remove a line from an ephemeral model's SQL and from every model that dbt inlines it
    into (as a ``__dbt__cte__`` CTE), as `dbt compile` would."""
    cte = "__dbt__cte__" + uid.rsplit(".", 1)[-1]

    def change(manifest) -> None:
        for key, node in manifest["nodes"].items():
            sql = node.get("compiled_code") or ""
            if key == uid or cte in sql:
                assert line in sql, f"{line!r} not in {key}"
                node["compiled_code"] = sql.replace(line, "", 1)

    edit_manifest(target, change)


@pytest.mark.corpus
def test_a_column_removed_from_an_ephemeral_model_breaks_the_join_reading_it(shared_dir, tmp_path):
    """tuva's normalized_input__stg_medical_claim is ephemeral; normalized_input__int_medical_npi_normalize
    joins on its facility_npi (`on med.facility_npi = fac_prov.npi`). Removing the column
    changes the consumers' compiled SQL only where dbt inlines the ephemeral model: their own
    SQL is unchanged, so they still read the column, and the analysis no longer resolves the
    JOIN on it."""
    base = shared_dir / "corpus" / "tuva" / "target"
    target = copy(base, tmp_path)
    ephemeral = f"{TUVA}.normalized_input__stg_medical_claim"
    drop_from_ephemeral(target, ephemeral, "    , facility_npi\n")
    old, new = load_project(base), load_project(target)
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    report = check_states(old, old_lineages, new, lineages, base=str(base))
    assert [(f.severity, f.model, f.column, f.changes, f.detail) for f in report.findings] == [
        ("breaking", "normalized_input__int_medical_npi_normalize", "*", ("reads_removed", "rows"), f"conditions -join {ephemeral}.facility_npi"),
        ("breaking", "normalized_input__int_undetermined_claim_type", "facility_npi", ("reads_removed",), (
            f"sources -{ephemeral}.facility_npi; type passthrough -> unknown; resolved True -> False"
            " (column 'facility_npi' not found in any relation of the query)"
        )),
        ("breaking", "normalized_input__stg_medical_claim", "facility_npi", ("removed",), ""),
    ]  # fmt: skip
    # the lineage (what `catalog lineage` shows) keeps no JOIN on the missing column
    npi = lineages[f"{TUVA}.normalized_input__int_medical_npi_normalize"]
    assert [c.column.column for c in npi.conditions if c.column.unique_id == ephemeral] == ["billing_npi", "claim_type", "rendering_npi"]
    assert [c.column.column for c in old_lineages[npi.unique_id].conditions if c.column.unique_id == ephemeral] == [
        "billing_npi", "claim_type", "facility_npi", "rendering_npi"
    ]
