"""``catalog report -f md`` stays under GitHub's limit for a pull request however large the
build (tuva: about 220,000 characters whole), and says what it cut."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.query import BuildView
from catalog.report.governance import collect_report
from catalog.report.governance_render import report_markdown
from test_prune import neo4j_env

pytestmark = [pytest.mark.neo4j, pytest.mark.corpus]


def test_tuva_markdown_report_is_cut_under_the_limit_and_says_what_was_cut(build, graph, project_name, shared_dir, neo4j_settings):
    build(shared_dir / "corpus" / "tuva" / "target", project_name)
    report = collect_report(BuildView(graph, project_name))
    whole = report_markdown(report, limit=0)
    assert len(whole) > 100_000
    md = report_markdown(report)
    assert len(md) <= 60_000
    lines = md.splitlines()
    assert lines[0] == whole.splitlines()[0]  # the title, then what was cut
    note = re.fullmatch(
        r"_Cut to stay under GitHub's limit \(60,000 characters; the whole report has ([\d,]+)\): tables show at most (\d+) rows each"
        r"(; left out: (.+))?\. `--format html` or `--format json` has everything; `--max-chars 0` gives the whole Markdown\._",
        lines[2],
    )
    assert note is not None, lines[2]
    assert int(note.group(1).replace(",", "")) == len(whole)
    rows = int(note.group(2))
    # every section kept is whole at that many rows, in the order of the whole report
    kept = [line[3:] for line in lines if line.startswith("## ")]
    sections = [line[3:] for line in whole.splitlines() if line.startswith("## ")]
    left_out = note.group(4).split(", ") if note.group(4) else []
    assert kept + left_out == sections and kept[:3] == ["Summary", "Lineage coverage", "PII propagation"]
    assert 5 <= rows < 500
    # without its note, the text is the report at that many rows (up to the sections left out)
    assert report_markdown(report, max_rows=rows, limit=0).startswith(md.replace(lines[2] + "\n\n", "", 1).rstrip("\n"))
    # the command: the same, and --max-chars 0 for the whole
    env = neo4j_env(neo4j_settings)
    done = CliRunner().invoke(app, ["report", "--project", project_name, "-f", "md"], env=env)
    assert done.exit_code == 0 and done.stdout == md
    done = CliRunner().invoke(app, ["report", "--project", project_name, "-f", "md", "--max-chars", "0"], env=env)
    assert done.stdout == whole
