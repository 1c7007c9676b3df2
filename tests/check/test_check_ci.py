"""``catalog check --format github | sarif | gitlab``: where each finding points in a CI, on
real projects laid out as a repository holds them (the project's folder with dbt_project.yml,
its target/, its models and the packages `dbt deps` installed)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from edits import edit_sql

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"
STG_ORDERS = "model.coffee_shop.stg_orders"
OWNER = "model.hubspot.stg_hubspot__owner"
FULL_NAME = ("trim( first_name || ' ' || last_name ) as full_name", "trim( last_name || ', ' || first_name ) as full_name")


def run(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(app, ["check", *args])
    return done.exit_code, done.stdout


def hubspot_repo(shared_dir: Path, repo: Path, installed: bool) -> Path:
    """fivetran-hubspot as its repository holds it: integration_tests/ is the dbt project, whose
    models all come from the package hubspot; ``installed``: `dbt deps` has put the package's
    stg_hubspot__owner.sql under dbt_packages/hubspot/. The change edits full_name in it."""
    base = shared_dir / "corpus" / "fivetran-hubspot" / "target"
    project = repo / "integration_tests"
    shutil.copytree(base, project / "target")
    (project / "dbt_project.yml").write_text("name: hubspot_integration_tests\nversion: '1.0'\n")
    node = json.loads((base / "manifest.json").read_text())["nodes"][OWNER]
    if installed:
        file = project / "dbt_packages" / "hubspot" / node["original_file_path"]
        file.parent.mkdir(parents=True)
        file.write_text(node["raw_code"].replace(*FULL_NAME))
    edit_sql(project / "target", OWNER, *FULL_NAME)
    return base


@pytest.mark.corpus
def test_a_package_models_finding_points_at_its_file_under_dbt_packages(shared_dir, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    base = hubspot_repo(shared_dir, repo, installed=True)
    file = "integration_tests/dbt_packages/hubspot/models/staging/stg_hubspot__owner.sql"
    line = next(i for i, text in enumerate((repo / file).read_text().splitlines(), start=1) if "as full_name" in text)
    monkeypatch.chdir(repo)
    code, out = run("--state", str(base), "integration_tests", "-f", "github")
    assert code == 0
    assert out.splitlines()[0].startswith(f"::warning file={file},line={line},title=catalog check%3A partial::stg_hubspot__owner.full_name: expression")
    code, out = run("--state", str(base), "integration_tests", "-f", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": file}, "region": {"startLine": line}}}]
    code, out = run("--state", str(base), "integration_tests", "-f", "gitlab")
    (issue,) = json.loads(out)
    assert issue["location"] == {"path": file, "lines": {"begin": line}}


@pytest.mark.corpus
def test_a_finding_whose_file_is_not_there_has_no_file_location(shared_dir, tmp_path, monkeypatch):
    """The package not installed (no dbt_packages/): github and sarif give no file; GitLab,
    which requires a location, gets the project's dbt_project.yml."""
    repo = tmp_path / "repo"
    base = hubspot_repo(shared_dir, repo, installed=False)
    monkeypatch.chdir(repo)
    code, out = run("--state", str(base), "integration_tests", "-f", "github")
    assert out.splitlines()[0].startswith("::warning title=catalog check%3A partial::stg_hubspot__owner.full_name: expression")
    code, out = run("--state", str(base), "integration_tests", "-f", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert "locations" not in result
    code, out = run("--state", str(base), "integration_tests", "-f", "gitlab")
    (issue,) = json.loads(out)
    assert issue["location"] == {"path": "integration_tests/dbt_project.yml", "lines": {"begin": 1}}


def coffee_shop_repo(tmp_path: Path) -> Path:
    """The example project in a repository, with stg_orders' status removed and a WHERE added."""
    project = tmp_path / "repo" / "coffee_shop"
    shutil.copytree(EXAMPLE.parent, project)
    edit_sql(project / "target", STG_ORDERS, ",\n    coalesce(lower(trim(status)), 'unknown') as status", "")
    edit_sql(project / "target", STG_ORDERS, '"raw_orders"', '"raw_orders"\nwhere status is not null')
    return project


def test_gitlab_code_quality_has_one_issue_per_finding_with_a_stable_unique_fingerprint(tmp_path, monkeypatch):
    project = coffee_shop_repo(tmp_path)
    monkeypatch.chdir(project.parent)
    code, out = run("--state", str(EXAMPLE), "coffee_shop", "-f", "gitlab")
    assert code == 1  # a breaking finding: the job fails, as with every format
    issues = json.loads(out)
    _, github = run("--state", str(EXAMPLE), "coffee_shop", "-f", "github")
    assert [sorted(i) for i in issues] == [["check_name", "description", "fingerprint", "location", "severity"]] * 2
    assert [(i["check_name"], i["severity"]) for i in issues] == [("breaking", "blocker"), ("partial", "minor")]
    # each issue where the github annotation of the same finding is, with the same message
    annotations = [line for line in github.splitlines() if "title=catalog check%3A rebuild" not in line]
    for issue, annotation in zip(issues, annotations, strict=True):
        where = f"file={issue['location']['path']},line={issue['location']['lines']['begin']},"
        assert where in annotation and annotation.endswith("::" + issue["description"].replace("%", "%25"))
    assert issues[0]["location"]["path"] == "coffee_shop/models/staging/stg_orders.sql"
    fingerprints = [i["fingerprint"] for i in issues]
    assert len(set(fingerprints)) == 2
    # the same on another run, and when the findings' hits change (here: --fail-on never)
    _, again = run("--state", str(EXAMPLE), "coffee_shop", "-f", "gitlab", "--fail-on", "never")
    assert [i["fingerprint"] for i in json.loads(again)] == fingerprints
    assert [i["severity"] for i in json.loads(again)] == ["major", "minor"]


def test_a_condition_edited_on_the_same_columns_is_told_and_annotated_at_its_clause(tmp_path, monkeypatch):
    """customers' CTE valid_orders keeps `where status <> 'cancelled'` on the same column as
    `where status not in ('cancelled', 'returned')`: the finding says which condition changed,
    as written, and every CI format points at that WHERE's line in customers.sql."""
    project = tmp_path / "repo" / "coffee_shop"
    shutil.copytree(EXAMPLE.parent, project)
    old, new = "where status <> 'cancelled'", "where status not in ('cancelled', 'returned')"
    edit_sql(project / "target", "model.coffee_shop.customers", old, new)
    sql_file = project / "models" / "marts" / "customers.sql"
    sql_file.write_text(sql_file.read_text().replace(old, new))
    line = next(i for i, text in enumerate(sql_file.read_text().splitlines(), start=1) if new in text)
    assert line > 1
    monkeypatch.chdir(tmp_path / "repo")
    _, out = run("--state", str(EXAMPLE), "coffee_shop", "--json")
    (finding,) = json.loads(out)["findings"]
    detail = "WHERE in valid_orders: `status <> 'cancelled'` -> `NOT status IN ('cancelled', 'returned')`"
    assert (finding["column"], finding["changes"], finding["detail"]) == ("*", ["rows"], detail)
    assert finding["clauses"] == [
        {"clause": "WHERE", "scope": "valid_orders", "before": "status <> 'cancelled'", "after": "NOT status IN ('cancelled', 'returned')"}
    ]
    file = "coffee_shop/models/marts/customers.sql"
    _, out = run("--state", str(EXAMPLE), "coffee_shop", "-f", "github")
    assert out.splitlines()[0].startswith(f"::error file={file},line={line},title=catalog check%3A breaking::customers.*: rows: {detail}.")
    _, out = run("--state", str(EXAMPLE), "coffee_shop", "-f", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": line}
    _, out = run("--state", str(EXAMPLE), "coffee_shop", "-f", "gitlab")
    assert [i["location"] for i in json.loads(out)] == [{"path": file, "lines": {"begin": line}}]


@pytest.mark.corpus
def test_a_having_edited_on_tuva_is_told_as_written(shared_dir, tmp_path):
    """tuva (Snowflake): the HAVING of data_quality__claims_preprocessing_eligibility_plausibility's
    CTE multiple_genders_test goes from `> 1` to `> 2`, on the same column: told as written."""
    base = shared_dir / "corpus" / "tuva" / "target"
    target = tmp_path / "target"
    shutil.copytree(base, target)
    uid = "model.the_tuva_project.data_quality__claims_preprocessing_eligibility_plausibility"
    edit_sql(target, uid, "having count(distinct eligiblity.gender) > 1", "having count(distinct eligiblity.gender) > 2")
    code, out = run("--state", str(base), str(target), "--json")
    assert code == 0
    assert [(f["column"], f["changes"], f["severity"], f["detail"]) for f in json.loads(out)["findings"]] == [
        ("*", ["rows"], "partial", "HAVING in multiple_genders_test: `COUNT(DISTINCT eligiblity.gender) > 1` -> `COUNT(DISTINCT eligiblity.gender) > 2`"),
    ]
