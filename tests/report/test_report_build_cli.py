"""``catalog report`` and ``catalog explore`` end to end, against a real Neo4j: ``--build ID`` of an
older build reports and draws that build (customers hashes its email only in the second build of
``coffee_shop_builds``), and ``--top N`` lists that many most depended-on columns."""

from __future__ import annotations

import json

import pytest
from test_explorer_stored import _page_data, _without_identity

from catalog.analyze.project import analyze_project
from catalog.export.openlineage import export_input
from catalog.extract import load_project
from catalog.report.explorer import explorer_data
from run_cli import answer, run

pytestmark = pytest.mark.neo4j


def _email_flow(report: dict) -> tuple[list, list]:
    """Where stg_customers.email's values go (column, types of the hops, effect), and the masked columns."""
    (email,) = [c for c in report["pii"]["columns"] if c["column"]["label"] == "stg_customers.email"]
    flow = [(r["column"]["label"], r["types"], r["effect"]) for r in email["reaches"]]
    return flow, [c["label"] for c in report["pii"]["masked"]]


def test_report_of_an_older_build_answers_as_that_build(coffee_shop_builds, neo4j_env):
    ask = ["report", "--project", coffee_shop_builds.project, "-f", "json"]
    first = answer(neo4j_env, *ask, "--build", str(coffee_shop_builds.first))
    assert (first["project"], first["build"]["id"], first["build"]["status"]) == (coffee_shop_builds.project, coffee_shop_builds.first, "superseded")
    assert _email_flow(first) == (
        [
            ("customers.email", ["passthrough"], "copied"),
            ("customers_snapshot.email", ["passthrough"], "copied"),
            ("customer_segments.email", ["passthrough", "passthrough"], "copied"),
        ],
        [],
    )
    active = answer(neo4j_env, *ask)
    assert (active["build"]["id"], active["build"]["status"]) == (coffee_shop_builds.second, "active")
    assert _email_flow(active) == (
        [
            ("customers.email", ["derived"], "masked"),
            ("customers_snapshot.email", ["passthrough"], "copied"),
            ("customer_segments.email", ["derived", "passthrough"], "masked"),
        ],
        ["customers.email"],
    )
    md = run(neo4j_env, "report", "--project", coffee_shop_builds.project, "--build", str(coffee_shop_builds.first), "-f", "md")
    assert md.exit_code == 0, md.output
    assert md.stdout.splitlines()[0] == f"# Governance report: {coffee_shop_builds.project}, build {coffee_shop_builds.first}"


MOST_DEPENDED_ON = [  # (column, fan-out, reach, models reached, conditions)
    ("shop.payments.amount_cents", 1, 12, 7, 0),
    ("stg_payments.amount", 6, 11, 6, 0),
    ("shop.orders.ordered_at", 2, 11, 6, 0),
    ("shop.order_items.quantity", 1, 8, 4, 0),
    ("stg_order_items.quantity", 2, 7, 3, 0),
    ("stg_orders.ordered_at", 2, 7, 5, 0),
    ("shop.orders.id", 1, 6, 6, 0),
    ("shop.products.price_cents", 1, 6, 4, 0),
    ("orders.ordered_at", 3, 5, 3, 1),
    ("orders.amount_paid", 2, 5, 4, 1),
    ("stg_orders.order_id", 2, 5, 5, 2),
    ("stg_products.price", 2, 5, 3, 0),
]


def test_report_top_lists_that_many_most_depended_on_columns(coffee_shop_builds, neo4j_env):
    def most(*args: str) -> list[tuple]:
        doc = answer(neo4j_env, "report", "--project", coffee_shop_builds.project, "-f", "json", *args)
        return [(d["column"]["label"], d["fanout"], d["reach"], d["models_reached"], d["conditions"]) for d in doc["depended_on"]]

    assert most("--top", "3") == MOST_DEPENDED_ON[:3]
    assert most() == MOST_DEPENDED_ON[:10]  # the default
    assert most("--top", "12") == MOST_DEPENDED_ON

    md = run(neo4j_env, "report", "--project", coffee_shop_builds.project, "--top", "2", "-f", "md")
    assert md.exit_code == 0, md.output
    lines = md.stdout.splitlines()
    at = lines.index("## Most depended-on columns")
    assert lines[at + 4 : at + 8] == [
        "| column | fan-out | reach (columns) | models reached | conditions | PII | description |",
        "|---|---:|---:|---:|---:|---|---|",
        "| `shop.payments.amount_cents` | 1 | 12 | 7 | 0 |  |  |",
        "| `stg_payments.amount` | 6 | 11 | 6 | 0 |  | Amount paid in euros. |",
    ]
    assert not lines[at + 8].startswith("|")


def test_explore_of_an_older_build_is_the_page_of_its_artifacts(coffee_shop_builds, neo4j_env, tmp_path):
    pages = {}
    for build in (coffee_shop_builds.first, coffee_shop_builds.second):
        out = tmp_path / f"explore-{build}.html"
        done = run(neo4j_env, "explore", "--project", coffee_shop_builds.project, "--build", str(build), "-o", str(out))
        assert done.exit_code == 0, done.output
        pages[build] = _page_data(out.read_text(encoding="utf-8"))
        assert (pages[build]["project"], pages[build]["build"]) == (coffee_shop_builds.project, build)

    for build, target in ((coffee_shop_builds.first, coffee_shop_builds.first_target), (coffee_shop_builds.second, coffee_shop_builds.second_target)):
        project = load_project(target)
        from_artifacts = json.loads(json.dumps(explorer_data(export_input(project, analyze_project(project, jobs=1), consumers=True))))
        assert _without_identity(pages[build]) == _without_identity(from_artifacts)
    assert _without_identity(pages[coffee_shop_builds.first]) != _without_identity(pages[coffee_shop_builds.second])
