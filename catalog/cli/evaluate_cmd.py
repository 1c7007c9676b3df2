"""``catalog evaluate PATH --golden FILE``: score the analyzed lineage against a golden file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from catalog.cli.common import DialectOpt, JobsOpt, JsonOpt, ProjectPath, emit, handle_errors, text_lines, warn_inputs

GoldenOpt = Annotated[
    Path,
    typer.Option(
        "--golden",
        help="Expected lineage: our golden shape ({'models': ...}) or synth_dbt's expected_lineage.json ({'nodes': ...}).",
        exists=True,
        dir_okay=False,
    ),
]
DiffOpt = Annotated[bool, typer.Option("--diff", help="Also list, per model, the edges, types and conditions that differ.")]


@handle_errors
def evaluate(
    path: ProjectPath,
    golden: GoldenOpt,
    as_json: JsonOpt = False,
    show_diff: DiffOpt = False,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
) -> None:
    """Analyze a dbt project and score its column lineage against a golden file.

    Prints edge precision and recall (edges are `column <- upstream column`), type accuracy
    over the columns both sides have, condition precision and recall, and the share of
    models and columns the analysis resolved. Column names
    compare case-insensitively; models only one side has are counted apart.
    """
    from catalog.analyze.project import analyze_project
    from catalog.evaluate import diff, format_diff, format_scores, from_lineages, load_golden, resolved_shares, score
    from catalog.extract import input_warnings, load_project

    expected = load_golden(golden)
    project = load_project(path, dialect=dialect)
    warnings = warn_inputs(input_warnings(project))
    lineages = analyze_project(project, jobs=jobs)
    actual = from_lineages(lineages)
    scores = resolved_shares(lineages, score(actual, expected))
    differences = diff(actual, expected, [uid for uid in expected if uid in actual]) if show_diff else []
    doc = {"project": project.name, "golden": str(golden), "warnings": warnings, **scores.as_dict()}
    if show_diff:
        doc["differences"] = {d.unique_id: d.lines for d in differences}
    text = [f"{project.name} against {golden}", format_scores(scores)]
    if show_diff:
        text.append(format_diff(differences, limit=len(differences)) or "no differences")
    emit("text", as_json, json=lambda: doc, text=lambda: text_lines(*text))
