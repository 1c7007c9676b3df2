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
