"""``catalog docs --project``: the lineage of a stored build gives the same changes as the
artifacts it was built from, and the report's PII section shows masked flows apart."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from test_docs import commented_copy, edit_manifest

from catalog.cli.app import app
from catalog.query import BuildView
from catalog.report.governance import collect_report

pytestmark = pytest.mark.neo4j
runner = CliRunner()


def _hash_customer_email(m):
    """customers.email becomes md5(email), untagged: a hash is not personal."""
    node = m["nodes"]["model.coffee_shop.customers"]
    node["compiled_code"] = node["compiled_code"].replace("    customers.email,\n", "    md5(customers.email) as email,\n")
    node["columns"]["email"].update(tags=[], meta={}, config={"tags": [], "meta": {}})


def test_stored_build_gives_the_changes_of_its_artifacts(build, graph, project_name, neo4j_env, tmp_path):
    shop = commented_copy(tmp_path / "coffee_shop")
    edit_manifest(shop, _hash_customer_email)
    build(shop, project_name)

    here = runner.invoke(app, ["docs", str(shop), "--pii", "--json"])
    stored = runner.invoke(app, ["docs", str(shop), "--pii", "--json", "--project", project_name], env=neo4j_env)
    assert here.exit_code == 0 and stored.exit_code == 0, (here.stderr, stored.stderr)
    mine, theirs = json.loads(here.stdout), json.loads(stored.stdout)
    assert mine.pop("build_id") is None and theirs.pop("build_id") == BuildView(graph, project_name).build_id
    assert mine == theirs
    assert len(mine["changes"]) == 21 and mine["conflicts"] == []
    assert stored.stdout != "" and runner.invoke(app, ["docs", str(shop), "--project", project_name], env=neo4j_env).stdout == \
        runner.invoke(app, ["docs", str(shop)]).stdout

    # the descriptions docs writes are the report's inheritable ones
    report = collect_report(BuildView(graph, project_name))
    proposed = {i.column.label: i.description for i in report.inheritable if not i.conflict}
    assert {c["column"]["label"]: c["description"] for c in mine["changes"] if c["description"]} == proposed

    # the report: customers.email holds a hash, so it and its copy in customer_segments are
    # reached masked; customer_segments.full_name (first || ' ' || last name, copied) is not
    pii = report.pii
    assert [c.label for c in pii.masked] == ["customer_segments.email", "customers.email"]
    assert [c.label for c in pii.untagged] == ["customer_segments.full_name"]
    effects = {(p.column.label, x.column.label): x.effect for p in pii.columns for x in p.reaches}
    assert effects[("stg_customers.email", "customers.email")] == "masked"
    assert effects[("stg_customers.email", "customer_segments.email")] == "masked"
    assert effects[("stg_customers.first_name", "customer_segments.full_name")] == "transformed"
    assert effects[("shop.customers.email", "stg_customers.email")] == "transformed"

    # customers.email and its copy, from stg_customers.email and the source's
    masked = {(p.column.label, x.column.label) for p in pii.columns for x in p.reaches if x.effect == "masked"}
    assert masked == {("stg_customers.email", "customers.email"), ("stg_customers.email", "customer_segments.email"),
                      ("shop.customers.email", "customers.email"), ("shop.customers.email", "customer_segments.email")}  # fmt: skip


def test_report_markdown_lists_masked_flows_apart(build, graph, project_name, neo4j_env, tmp_path):
    shop = commented_copy(tmp_path / "coffee_shop")
    edit_manifest(shop, _hash_customer_email)
    build(shop, project_name)
    md = runner.invoke(app, ["report", "--project", project_name, "-f", "md"], env=neo4j_env)
    assert md.exit_code == 0, md.stderr
    assert "Reached only through a hash or mask: `customer_segments.email`, `customers.email`" in md.stdout
    assert "| `stg_customers.email` | meta contains_pii, tag pii | `customers.email` | 1 | derived | masked | no |" in md.stdout


def test_the_projects_own_masking_function_masks_in_the_stored_build(build, graph, project_name, neo4j_env, tmp_path):
    # customers.email becomes mask_email(email): masked only because dbt_project.yml lists it
    shop = commented_copy(tmp_path / "coffee_shop")

    def mask_customer_email(m):
        node = m["nodes"]["model.coffee_shop.customers"]
        node["compiled_code"] = node["compiled_code"].replace("    customers.email,\n", "    mask_email(customers.email) as email,\n")
        node["columns"]["email"].update(tags=[], meta={}, config={"tags": [], "meta": {}})

    edit_manifest(shop, mask_customer_email)
    (shop / "dbt_project.yml").write_text((shop / "dbt_project.yml").read_text() + "vars:\n  catalog_masking_functions: [mask_email]\n")
    build(shop, project_name)
    pii = collect_report(BuildView(graph, project_name)).pii
    assert [c.label for c in pii.masked] == ["customer_segments.email", "customers.email"]
    assert [c.label for c in pii.untagged] == ["customer_segments.full_name"]
    md = runner.invoke(app, ["report", "--project", project_name, "-f", "md"], env=neo4j_env)
    assert "Reached only through a hash or mask: `customer_segments.email`, `customers.email`" in md.stdout
    stored = json.loads(runner.invoke(app, ["docs", str(shop), "--pii", "--no-docs", "--json", "--project", project_name], env=neo4j_env).stdout)
    assert [c["column"]["label"] for c in stored["changes"]] == ["customer_segments.full_name"]
