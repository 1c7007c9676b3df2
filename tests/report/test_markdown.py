"""Markdown for pull requests: names and SQL shown as written, cells never split or broken."""

from __future__ import annotations

from dataclasses import replace

import pytest

from catalog.history import BuildDiff, EdgeChange, StatusChange
from catalog.query import Answer, ColumnId, ConditionUse, Hop, Reached
from catalog.report import markdown as md
from catalog.report.answers import answer_markdown
from catalog.report.history import diff_markdown


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("order_id", "`order_id`"),
        ("a || b", "`a \\|\\| b`"),
        ("x `y` z", "``x `y` z``"),
        ("`", "`` ` ``"),
        ("case\n  when a then 1\nend", "`case when a then 1 end`"),
        ("<b>x</b> & y", "`<b>x</b> & y`"),
        ("[link=http://x]y[/link]", "`[link=http://x]y[/link]`"),
        ("", ""),
        (None, ""),
    ],
)
def test_code_spans_in_table_cells(value, cell):
    assert md.code(value) == cell


def test_code_span_outside_a_table_keeps_pipes():
    assert md.code("a || b", table=False) == "`a || b`"


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("Lower-case status; 'unknown' when empty.", "Lower-case status; 'unknown' when empty."),
        ("a | b", "a \\| b"),
        ("<b>bold</b> & more", "&lt;b&gt;bold&lt;/b&gt; &amp; more"),
        ("line one\nline two\r\nthree", "line one<br>line two<br>three"),
        ("*not* _emphasis_ but snake_case", "\\*not\\* \\_emphasis\\_ but snake_case"),
        ("[link](http://x) `code` \\", "\\[link\\](http://x) \\`code\\` \\\\"),
        (None, ""),
    ],
)
def test_text_cells(value, cell):
    assert md.text(value) == cell


def _column(uid: str, name: str, project: str = "p") -> ColumnId:
    return ColumnId(key=f"{project}/{uid}.{name}", unique_id=uid, model=uid.split(".")[-1], name=name)


def test_diff_markdown_keeps_sql_as_written():
    d = BuildDiff(
        project="shop|prod",
        from_build=1,
        to_build=2,
        edges=[
            EdgeChange(
                change="changed",
                kind="feeds",
                up="model.p.stg.first",
                down="model.p.people.full_name",
                before={"expr": "first || ' ' || last", "type": "derived"},
                after={"expr": "first ||\n<b>last</b>", "type": "derived"},
            )
        ],
        statuses=[StatusChange(unique_id="model.p.a|b", before="resolved", after="failed")],
    )
    lines = diff_markdown(d).splitlines()
    assert lines[0] == "### Column lineage changes: build 1 → 2 (`shop|prod`)"
    assert lines[4:6] == ["| change | edge | before | after |", "|---|---|---|---|"]
    assert lines[6] == (
        "| changed | `model.p.stg.first -> model.p.people.full_name` "
        "| `expr=first \\|\\| ' ' \\|\\| last, type=derived` | `expr=first \\|\\| <b>last</b>, type=derived` |"
    )
    assert lines[-1] == "| `model.p.a\\|b` | resolved | failed |"


def test_impact_and_trace_markdown_escape_names_and_expressions():
    up = _column("model.p.stg", "a|b")
    down = _column("model.p.out", "x\ny")
    hop = Hop(from_key=up.key, to_key=down.key, type="derived", expr="a || `b`", resolved=True)
    reached = Reached(column=down, depth=1, hops=(hop,), via=up.key, resource_type="model")
    cond = ConditionUse(column=up.key, model_key="p/model.p.f", unique_id="model.p.f", model="<f>", clause="where")
    answer = Answer(project="p", build_id=7, asked=(up,), columns=(reached,), conditions=(cond,))

    impact = answer_markdown(answer, "impact").splitlines()
    assert impact[0] == "### Impact of `stg.a|b`"
    assert impact[6] == "| `out` | `x y` | 1 | needs review | `stg.a\\|b -[derived]-> out.x y` |"
    assert impact[-1] == "| `<f>` | where | `stg.a\\|b` |"

    trace = answer_markdown(replace(answer, asked=(down,)), "trace").splitlines()
    assert trace[0] == "### Root cause of `out.x y`"
    assert trace[6] == "| `out` | `x y` | 1 | model | `` a \\|\\| `b` `` |"
