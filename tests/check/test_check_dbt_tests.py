"""``catalog check``: the dbt tests that read a changed column, directly, listed per finding and
added by name to the rebuild selector, in every format (no Neo4j).

examples/coffee_shop: stg_orders is `id as order_id, ...` from raw_orders, with `unique` and
`not_null` on stg_orders.order_id (models/staging/_staging.yml); orders.order_id, which reads
it, has its own two tests: those are downstream, not direct, and are not listed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.check import CheckReport, check_states
from catalog.cli.app import app
from catalog.compare import analyze_states
from catalog.extract import load_project
from catalog.prune import prune_state
from edits import edit_sql

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"
STG_ORDERS = "model.coffee_shop.stg_orders"
STG_ORDERS_TESTS = ["not_null_stg_orders_order_id", "unique_stg_orders_order_id"]


def check(base: Path, target: Path) -> tuple[CheckReport, str]:
    """The report, and the selector `prune --state` gives for the same change."""
    old, new = load_project(base), load_project(target)
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    report = check_states(old, old_lineages, new, lineages, base=str(base))
    return report, prune_state(old, old_lineages, new, lineages).selector()


def copy(base: Path, tmp_path: Path) -> Path:
    shutil.copytree(base, tmp_path / "target")
    return tmp_path / "target"


def named_tests(report: CheckReport) -> dict[str, tuple[str, ...]]:
    return {f"{f.model}.{f.column}": f.tests for f in report.findings}


def test_a_changed_expression_lists_the_tests_of_that_column_only(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, "id as order_id", "id + 0 as order_id")
    report, models = check(EXAMPLE, target)
    assert named_tests(report) == {"stg_orders.order_id": tuple(STG_ORDERS_TESTS)}
    assert [(t.name, t.kind, t.columns) for t in report.tests] == [(n, "generic", ("stg_orders.order_id",)) for n in STG_ORDERS_TESTS]
    assert models and report.selector == " ".join([models, *STG_ORDERS_TESTS])


def test_a_renamed_column_lists_the_base_tests_of_its_old_name(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, "id as order_id", "id as order_key")
    report, _ = check(EXAMPLE, target)
    assert named_tests(report)["stg_orders.order_id"] == tuple(STG_ORDERS_TESTS)


def test_changed_rows_list_every_test_of_the_model(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, 'from "coffee_shop"."raw"."raw_orders"', "from \"coffee_shop\".\"raw\".\"raw_orders\" where status <> 'test'")
    report, _ = check(EXAMPLE, target)
    assert named_tests(report)["stg_orders.*"] == tuple(STG_ORDERS_TESTS)


def test_documentation_alone_reruns_no_test(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["nodes"][STG_ORDERS]["columns"]["order_id"]["description"] = "Edited."
    path.write_text(json.dumps(manifest))
    report, _ = check(EXAMPLE, target)
    assert [f.changes for f in report.findings] == [("documentation",)] and report.tests == ()


@pytest.mark.corpus
def test_jaffle_shop_expression_test_reads_a_changed_cast(shared_dir, tmp_path):
    """stg_orders: `(tax_paid / 100)::numeric(16, 2) as tax_paid`; the generic test
    dbt_utils.expression_is_true `order_total - tax_paid = subtotal` reads it directly; the
    tests of orders (`select orders.*` over it) only downstream."""
    base = shared_dir / "corpus" / "jaffle-shop" / "target"
    target = copy(base, tmp_path)
    edit_sql(target, "model.jaffle_shop.stg_orders", "(tax_paid / 100)::numeric(16, 2) as tax_paid", "(tax_paid / 1000)::numeric(16, 2) as tax_paid")
    report, models = check(base, target)
    name = "dbt_utils_expression_is_true_stg_orders_order_total_tax_paid_subtotal"
    assert named_tests(report) == {"stg_orders.tax_paid": (name,)}
    assert report.selector == f"{models} {name}"


def test_every_format_gives_the_tests_and_the_selector(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, "id as order_id", "id + 0 as order_id")
    report, _ = check(EXAMPLE, target)
    runner = CliRunner()

    def run(*args: str) -> str:
        done = runner.invoke(app, ["check", "--state", str(EXAMPLE), str(target), "--fail-on", "never", *args])
        assert done.exit_code == 0, done.output
        return done.stdout

    data = json.loads(run("--json"))
    assert data["selector"] == report.selector and [t["name"] for t in data["tests"]] == STG_ORDERS_TESTS
    assert [f["tests"] for f in data["findings"]] == [STG_ORDERS_TESTS]
    md = run("--format", "md")
    assert f"Rebuild: `dbt build -s {report.selector}`" in md
    assert "Tests that read a changed column (2, in the selector): `not_null_stg_orders_order_id`, `unique_stg_orders_order_id`" in md
    assert "Tests that read it: `not_null_stg_orders_order_id`, `unique_stg_orders_order_id`." in md
    github = run("--format", "github").splitlines()
    assert github[-1] == f"::notice title=catalog check%3A rebuild::Rebuild: dbt build -s {report.selector} (2 tests that read a changed column included)"
    assert github[0].endswith("Tests that read it: not_null_stg_orders_order_id, unique_stg_orders_order_id")
    sarif = json.loads(run("--format", "sarif"))["runs"][0]
    assert sarif["properties"] == {"selector": report.selector, "tests": STG_ORDERS_TESTS}
    assert [r["properties"]["tests"] for r in sarif["results"]] == [STG_ORDERS_TESTS]
    table = run()
    assert "Tests that read a changed column: not_null_stg_orders_order_id, unique_stg_orders_order_id" in table
    assert f"Rebuild: dbt build -s {report.selector}" in table
