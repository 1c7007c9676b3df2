"""``catalog explore`` from a build stored in Neo4j: the same page data as from the artifacts it
was built from; ``catalog report --explorer`` links every column it lists to that page."""

from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import unquote

import pytest
from browser import Browser, chromium_or_skip
from typer.testing import CliRunner

from catalog.analyze.project import analyze_project
from catalog.cli.app import app
from catalog.export.openlineage import export_input
from catalog.extract import load_project
from catalog.report.explorer import explorer_data, read_columns

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


class _Codes(HTMLParser):
    """Every ``<code>`` of a page: its text, and the href of the ``<a class="explore">`` around it (or None)."""

    def __init__(self) -> None:
        super().__init__()
        self.codes: list[tuple[str, str | None]] = []
        self._link: str | None = None
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and ("class", "explore") in attrs:
            self._link = dict(attrs)["href"]
        elif tag == "code":
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "code" and self._text is not None:
            self.codes.append(("".join(self._text), self._link))
            self._text = None
        elif tag == "a":
            self._link = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def _listed_columns(r: dict) -> list[tuple[str, str]]:
    """(key, label) of every column the report's tables, lists and picture captions show, as its
    JSON lists them: once per row or mention (a PII column once per column it reaches)."""
    cols = [u["column"] for u in r["coverage"]["unresolved_columns"]]
    for p in r["pii"]["columns"]:
        cols += [p["column"]] * max(1, len(p["reaches"])) + [x["column"] for x in p["reaches"]]
    cols += r["pii"]["untagged"] + r["pii"]["masked"]
    cols += [u["column"] for u in r["undocumented"]["columns"] + r["unused"] + r["depended_on"]]
    for i in r["inheritable"]:
        cols += [i["column"], *(c["column"] for c in i["candidates"])] if i["conflict"] else [i["column"], i["source"]]
    cols += [p["focus"] for p in r["pictures"]] + [u["column"] for u in r["tests"]["untested"]]
    return [(f"{c['unique_id']}.{c['name']}", c["label"]) for c in cols]


def _all_labels(value) -> set[str]:
    """The label of every column anywhere in a report's JSON (the pictures' nodes too)."""
    if isinstance(value, dict):
        own = {value["label"]} if {"unique_id", "name", "label"} <= value.keys() else set()
        return own.union(*map(_all_labels, value.values()))
    if isinstance(value, list):
        return set().union(*map(_all_labels, value))
    return set()


def test_report_links_every_column_to_the_explorer(build, project_name, example, neo4j_env, tmp_path):
    build(example, project_name)
    report, explore = tmp_path / "r.html", tmp_path / "pages" / "explore.html"
    explore.parent.mkdir()
    done = runner.invoke(
        app, ["report", "--project", project_name, "-o", str(report), "--explorer", str(explore)], env=neo4j_env
    )
    assert done.exit_code == 0, done.output
    done = runner.invoke(app, ["report", "--project", project_name, "-f", "json", "-o", str(tmp_path / "r.json")], env=neo4j_env)
    assert done.exit_code == 0, done.output
    as_json = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    data = _page_data(explore.read_text(encoding="utf-8"))
    keys = set(read_columns(data)["key"])

    page = _Codes()
    page.feed(report.read_text(encoding="utf-8"))
    links = [(href, text) for text, href in page.codes if href is not None]
    # every column the report shows is linked, under its label, to its column in the explorer:
    # the same columns as many times as the report's JSON lists them
    linked = Counter((unquote(href.partition("#col=")[2]), text) for href, text in links)
    assert linked == Counter(_listed_columns(as_json))
    assert {href.partition("#col=")[0] for href, _ in links} == {"pages/explore.html"}
    assert {key for key, _ in linked} <= keys
    # PII reaches, undocumented, unused (5: orders' columns are read by the exposure sales_dashboard),
    # depended-on, inheritable, pictures, untested
    assert len(links) == 240
    # and what stays plain code is a model, a consumer or a command, never a column
    plain = {text for text, href in page.codes if href is None}
    assert not plain & _all_labels(as_json)
    models = {m["name"] for m in as_json["coverage"]["models"] + as_json["tests"]["models"]}
    consumers = {c for u in as_json["tests"]["untested"] for c in u["consumers"]}
    assert plain == models | consumers | {"catalog report --format json"}

    refused = runner.invoke(app, ["report", "--project", project_name, "-f", "md", "--explorer", str(explore)], env=neo4j_env)
    assert refused.exit_code == 2 and "--explorer goes with the html report" in refused.output

    # following a link opens the explorer on that column
    href = links[0][0]
    with Browser(chromium_or_skip(), tmp_path / "profile") as b:
        b.open((tmp_path / href.split("#")[0]).as_uri() + "#" + href.split("#", 1)[1])
        focus = unquote(href.split("#col=", 1)[1])
        b.wait_for(f"(document.getElementById('lineage') || {{dataset: {{}}}}).dataset.focus === {json.dumps(focus)}")
        assert focus in b.eval("[...document.querySelectorAll('#lineage g.col')].map(g => g.dataset.key)")
        b.screenshot(tmp_path / "from-report.png")
