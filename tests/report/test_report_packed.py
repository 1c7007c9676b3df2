"""The Markdown and HTML reports hold their long lists packed (``collect_report(packed=True)``:
each row's JSON text, made into its record when read) and format only the rows they show:
on real projects, the same text as the report whose records are all held."""

from __future__ import annotations

import pytest

from catalog.query import BuildView
from catalog.report.governance import collect_report
from catalog.report.governance_html import report_html
from catalog.report.governance_model import PackedRows
from catalog.report.governance_render import report_markdown

pytestmark = [pytest.mark.neo4j, pytest.mark.corpus]


@pytest.mark.parametrize("name", ["jaffle-shop", "dbt-project-evaluator", "tuva", "fivetran-hubspot"])
def test_packed_report_is_the_same_text_as_the_held_one(build, graph, project_name, shared_dir, name):
    build(shared_dir / "corpus" / name / "target", project_name)
    catalog = BuildView(graph, project_name)
    held, packed = collect_report(catalog), collect_report(catalog, packed=True)
    assert isinstance(packed.undocumented.columns, PackedRows) and isinstance(held.undocumented.columns, tuple)
    assert len(packed.undocumented.columns) == len(held.undocumented.columns) > 0
    assert tuple(packed.inheritable) == held.inheritable and tuple(packed.unused) == held.unused
    for rows in (500, 3, 0):
        assert report_markdown(packed, max_rows=rows) == report_markdown(held, max_rows=rows)
        assert report_markdown(packed, max_rows=rows, limit=0) == report_markdown(held, max_rows=rows, limit=0)
        assert report_html(packed, max_rows=rows) == report_html(held, max_rows=rows)
