"""``catalog explore`` from a build stored in Neo4j: the same page data as from the artifacts it
was built from; ``catalog report --explorer`` links every column it lists to that page."""

from __future__ import annotations

import json
import re
from html import unescape
from urllib.parse import unquote

import pytest
from browser import Browser, chromium_or_skip
from typer.testing import CliRunner

from catalog.analyze.project import analyze_project
from catalog.cli.app import app
from catalog.export.openlineage import export_input
from catalog.extract import load_project
from catalog.report.explorer import explorer_data

pytestmark = pytest.mark.neo4j
runner = CliRunner()


def _page_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="catalog-data">(.*?)</script>', html, re.S)
    assert found
    return json.loads(found.group(1))


def _without_identity(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in ("project", "build")}


def test_stored_build_gives_the_page_of_its_artifacts(build, project_name, example, neo4j_env, tmp_path):
    build_id = build(example, project_name).build_id
    out = tmp_path / "explore.html"
    done = runner.invoke(app, ["explore", "--project", project_name, "-o", str(out)], env=neo4j_env)
    assert done.exit_code == 0, done.output
    stored = _page_data(out.read_text(encoding="utf-8"))
    assert (stored["project"], stored["build"]) == (project_name, build_id)

    project = load_project(example)
    from_artifacts = json.loads(json.dumps(explorer_data(export_input(project, analyze_project(project, jobs=1), consumers=True))))
    assert _without_identity(stored) == _without_identity(from_artifacts)
    kinds = {n[0] for n in stored["nodes"]}
    assert {"semantic_model", "metric", "exposure"} <= kinds and stored["uses"] and stored["node_uses"]


def test_report_writes_the_explorer_that_explore_writes(build, project_name, example, neo4j_env, tmp_path):
    build_id = build(example, project_name).build_id
    build(example, project_name)  # a later build (a no-op): both commands are asked for the first
    picked = ["--project", project_name, "--build", str(build_id)]
    explored, reported = tmp_path / "explore.html", tmp_path / "from-report.html"
    done = runner.invoke(app, ["explore", *picked, "-o", str(explored)], env=neo4j_env)
    assert done.exit_code == 0, done.output
    done = runner.invoke(app, ["report", *picked, "-o", str(tmp_path / "r.html"), "--explorer", str(reported)], env=neo4j_env)
    assert done.exit_code == 0, done.output

    assert reported.read_bytes() == explored.read_bytes()
    data = _page_data(reported.read_text(encoding="utf-8"))
    assert data["build"] == build_id
    names = {(n[0], n[1]) for n in data["nodes"]}
    assert {("semantic_model", "orders"), ("metric", "revenue"), ("exposure", "sales_dashboard")} <= names
    assert data["uses"] and data["node_uses"]


def test_report_links_every_column_to_the_explorer(build, project_name, example, neo4j_env, tmp_path):
    build(example, project_name)
    report, explore = tmp_path / "r.html", tmp_path / "pages" / "explore.html"
    explore.parent.mkdir()
    done = runner.invoke(
        app, ["report", "--project", project_name, "-o", str(report), "--explorer", str(explore)], env=neo4j_env
    )
    assert done.exit_code == 0, done.output
    html = report.read_text(encoding="utf-8")
    data = _page_data(explore.read_text(encoding="utf-8"))
    keys = {f"{data['nodes'][n][2]}.{name}" for n, name in zip(data["cols"]["node"], data["cols"]["name"])}

    links = re.findall(r'<a class="explore" href="([^"]+)"[^>]*><code>([^<]*)</code></a>', html)
    unlinked = re.findall(r"(?<!>)<code>([^<]*)</code>(?!</a>)", html)
    assert len(links) > 50
    for href, label in links:
        page, _, fragment = unescape(href).partition("#col=")
        assert page == "pages/explore.html" and unquote(fragment) in keys, href
        assert unquote(fragment).endswith("." + unescape(label).rsplit(".", 1)[1])
    # columns are all linked: what stays plain code is a model name or an expression, never MODEL.COLUMN of a column
    plain_columns = {u for u in map(unescape, unlinked) if any(k.endswith("." + u.split(".")[-1]) for k in keys) and u.count(".") == 1}
    labels = {unescape(label) for _, label in links}
    assert not (plain_columns & labels)

    refused = runner.invoke(app, ["report", "--project", project_name, "-f", "md", "--explorer", str(explore)], env=neo4j_env)
    assert refused.exit_code == 2 and "--explorer goes with the html report" in refused.output

    # following a link opens the explorer on that column
    href = unescape(links[0][0])
    with Browser(chromium_or_skip(), tmp_path / "profile") as b:
        b.open((tmp_path / href.split("#")[0]).as_uri() + "#" + href.split("#", 1)[1])
        focus = unquote(href.split("#col=", 1)[1])
        b.wait_for(f"(document.getElementById('lineage') || {{dataset: {{}}}}).dataset.focus === {json.dumps(focus)}")
        assert focus in b.eval("[...document.querySelectorAll('#lineage g.col')].map(g => g.dataset.key)")
        b.screenshot(tmp_path / "from-report.png")
