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
from edits import drop_catalog_column, edit_catalog_type, edit_manifest, edit_measure_expr, edit_sql

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
        ("breaking", "stg_orders", "status", ("removed",), ["customer_segments", "customers", "orders"], [], ["sales_dashboard"], [])
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
        ("breaking", "stg_orders", "status", ("renamed",), ["customer_segments", "customers", "orders"], [], ["sales_dashboard"], [])
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
            ["customer_orders_daily", "customer_segments", "customers", "order_events", "orders"],
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
    base = shared_dir / "corpus" / "jaffle-shop" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, f"{JAFFLE}.stg_orders", "(tax_paid / 100)::numeric(16, 2)", "(tax_paid / 100)::numeric(18, 2)")
    for model in ("stg_orders", "orders"):
        edit_catalog_type(target, f"{JAFFLE}.{model}", "tax_paid", "DECIMAL(18,2)")
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
    base = shared_dir / "corpus" / "jaffle-shop" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, f"{JAFFLE}.stg_orders", TAX_PAID, "")
    for model in ("stg_orders", "orders"):
        drop_catalog_column(target, f"{JAFFLE}.{model}", "tax_paid")
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
def test_change_a_contracted_model(shared_dir, tmp_path):
    base = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, f"{EVALUATOR}.dim_model_7", "select * from __dbt__cte__stg_model_4", "select id, 1 as version from __dbt__cte__stg_model_4")
    report = check(base, target)
    assert summary(report) == [("breaking", "dim_model_7", "version", ("added",), [], [], [], [])]
    assert report.findings[0].why == "dim_model_7 has an enforced contract"


def test_pii_newly_flowing_is_policy(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, "model.coffee_shop.stg_customers", "first_name,", "first_name,\n    first_name as greeting_name,")
    report = check(EXAMPLE, target)
    assert summary(report) == [
        ("policy", "shop.customers", "first_name", ("pii_flow",), ["stg_customers"], [], [], []),
        ("safe", "stg_customers", "greeting_name", ("added",), [], [], [], []),
    ]
    assert report.failing("breaking") == [report.findings[0]]


def test_pii_passed_through_by_a_tagged_column_is_policy(tmp_path):
    """A project that tags PII on its marts only: customers.email (tagged) passes
    stg_customers.email through unchanged, so stg_customers.email is PII too, and a new
    column of customers taking values from it is a policy finding."""

    def tag_marts_only(manifest):
        source = manifest["sources"]["source.coffee_shop.shop.customers"]["columns"]["email"]
        for col in (source, manifest["nodes"]["model.coffee_shop.stg_customers"]["columns"]["email"]):
            col["tags"] = col["config"]["tags"] = []
            col["meta"] = col["config"]["meta"] = {}

    base = copy(EXAMPLE, tmp_path / "base")
    edit_manifest(base, tag_marts_only)
    target = copy(base, tmp_path)
    edit_sql(
        target,
        "model.coffee_shop.customers",
        "    customers.country_code,\n",
        "    customers.country_code,\n    coalesce(lower(customers.country_code), lower(customers.email)) as account_state,\n",
    )
    report = check(base, target)
    assert summary(report) == [
        ("breaking", "customers", "account_state", ("added",), [], [], [], []),
        ("policy", "stg_customers", "email", ("pii_flow",), ["customers"], [], [], []),
    ]
    assert report.findings[1].detail == (
        "PII (passed unchanged into customers.email, customers_snapshot.email, tagged PII) now reaches customers.account_state"
    )


def test_documentation_and_pii_tag_changes_are_safe(tmp_path):
    target = copy(EXAMPLE, tmp_path)

    def change(manifest):
        cols = manifest["nodes"][STG_ORDERS]["columns"]
        cols["status"]["description"] = "The order's status, lower case."
        cols["customer_id"]["tags"] = ["pii"]

    edit_manifest(target, change)
    report = check(EXAMPLE, target)
    assert summary(report) == [
        ("safe", "stg_orders", "customer_id", ("pii_tag",), [], [], [], []),
        ("safe", "stg_orders", "status", ("documentation",), [], [], [], []),
    ]


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
    assert "Rebuild: `dbt build -s customer_orders_daily customer_segments customers order_events orders stg_orders "
    "not_null_stg_orders_order_id unique_stg_orders_order_id`" in full
    rows = [line for line in full.splitlines() if line.startswith("| 🔴") or line.startswith("| 🟡")]
    assert rows[0].startswith("| 🔴 breaking | `stg_orders.status` | `removed` | 3 model(s) (customer_segments, customers, orders), 27 column(s);")
    assert rows[1].startswith("| 🟡 partial | `stg_orders.*` | `rows: conditions +where source.coffee_shop.shop.orders.status` |")
    # each finding's hits are summarized: counts by kind and model, the first paths, the rest counted
    assert "Hits: 27 column(s), 1 semantic model element(s), 1 exposure(s) (4 by value, 25 by condition only)." in full
    assert "Columns hit per model: `customer_segments` 13, `customers` 12, `orders` 2." in full
    assert "Owners of the exposures hit: Sales analytics." in full
    assert "_and 24 more hit(s): `catalog check --json` lists every one with its path._" in full
    assert full.count("<details>") == 2
    # a tighter limit shortens the blocks (one path each) before it leaves one out, and the table
    # keeps every finding
    tight = check_markdown(report, "breaking", limit=len(full) - 500)
    assert len(tight) <= len(full) - 500
    assert tight.count("<details>") == 2 and "_and 28 more hit(s)" in tight and "_and 54 more hit(s)" in tight
    tighter = check_markdown(report, "breaking", limit=len(full) - 800)
    assert len(tighter) <= len(full) - 800
    assert tighter.count("<details>") == 1 and "_and 28 more hit(s)" in tighter
    assert tighter.endswith("_Details of 1 finding(s) in the table left out to stay under GitHub's limit (`stg_orders.*`): `catalog check --json` has them._")
    assert "| 🟡 partial | `stg_orders.*`" in tighter and "not in this table" not in tighter


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
        "Hits: 3 model(s) (customer_segments, customers, orders), 27 column(s); semantic: orders.status; exposures: sales_dashboard",
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
