"""``catalog check``: review a change before it merges."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from catalog.cli.common import DialectOpt, FormatJsonOpt, JobsOpt, emit, handle_gate_errors, say, warn_inputs
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options

EXIT_FINDINGS = 1  # findings at or above --fail-on; 2: could not run (handle_gate_errors)

if TYPE_CHECKING:
    from rich.console import Group

    from catalog.check import CheckReport


class Format(str, Enum):
    table = "table"
    json = "json"
    md = "md"
    github = "github"
    sarif = "sarif"
    gitlab = "gitlab"


class FailOn(str, Enum):
    breaking = "breaking"
    partial = "partial"
    never = "never"


@handle_gate_errors
@neo4j_options(whole_build=True)  # against a build: its records, and its lineage when the cache has none
def check(
    path: Annotated[Path, typer.Argument(help="The changed dbt target folder (or project folder holding target/).")],
    state: Annotated[
        Path | None,
        typer.Option("--state", help="The base dbt target folder (production's manifest.json, best with catalog.json); without it, the active build in Neo4j."),
    ] = None,
    fail_on: Annotated[FailOn, typer.Option("--fail-on", help="Exit 1 when a finding is at or above: breaking (and policy), partial, or never.")] = FailOn.breaking,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help="table; json; md (a pull-request comment, under GitHub's size limit, marked <!-- catalog-check --> to update in place); "
            "github (workflow annotations on the changed model's file and line); sarif (SARIF 2.1.0, for code scanning); "
            "gitlab (a GitLab Code Quality report, for the merge request's widget and diff).",
        ),
    ] = Format.table,
    as_json: FormatJsonOpt = False,
    project: Annotated[str | None, typer.Option("--project", help="Without --state: the project in the graph (default: the manifest's project name).")] = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Every changed column of PATH against its base, what it hits downstream (models,
    columns, semantic models, metrics, exposures, saved queries; value and condition lineage
    apart, one path each) and its class: breaking, policy, partial or safe.

    --state BASE_TARGET PATH compares two dbt targets in memory (no Neo4j: for CI), as with
    dbt's own --state: BASE_TARGET is production's target folder (manifest.json, best with
    catalog.json). Without --state, PATH is compared with the project's active build in Neo4j
    (--project, default the manifest's project name), from the records that build kept of what
    it read: the same answers as --state with the target folder that build was made from.

    breaking: a removed, renamed or retyped column something downstream reads, a column (or a
    model's unchanged WHERE, JOIN, ...) that now reads a removed one (reads_removed), or any
    change but documentation to a column of a model with access: public. A model whose base
    enforces its contract breaks as dbt says: a declared column removed, a data_type changed,
    a constraint removed, the materialization changed, the contract no longer enforced; its
    other findings stay below breaking.
    policy: a PII column newly flows (value lineage) into a column not tagged PII, a public or
    contracted model, or an exposure. partial: values or rows change downstream. safe: added
    columns, documentation, columns nothing reads.

    Every format also gives the rebuild selector: the models to rebuild, as `prune --state`
    selects them, then the dbt tests that read a changed column, by name, ready for
    `dbt build -s`.

    Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 could not run
    (usage, bad input, Neo4j unreachable).
    """
    if state is not None and project is not None:
        raise typer.BadParameter("--project names a project in the graph; with --state the base is BASE_TARGET")
    from catalog.check_change import check_change
    from catalog.report.check_ci import github_annotations, gitlab_code_quality, sarif_log
    from catalog.report.check_md import check_markdown

    checked = check_change(path, state=state, project=project, dialect=dialect, jobs=jobs, graph=neo4j.graph, warned=warn_inputs)
    report, level = checked.report, fail_on.value
    warnings = [w.model_dump(mode="json") for w in (*checked.current_warnings, *checked.base_warnings)]
    emit(
        fmt,
        as_json,
        json=lambda: {**report.to_dict(), "fail_on": level, "warnings": warnings},
        md=lambda: check_markdown(report, level),
        github=lambda: github_annotations(report, level, project_root(path), Path.cwd()),
        sarif=lambda: sarif_log(report, level, project_root(path), Path.cwd()),
        gitlab=lambda: gitlab_code_quality(report, level, project_root(path), Path.cwd()),
        table=lambda: check_table(report),
    )
    failing = report.failing(level)  # type: ignore[arg-type]
    say(", ".join(f"{n} {k}" for k, n in report.counts().items()) + f" finding(s); --fail-on {level}: " + ("fails" if failing else "passes"))
    if failing:
        raise typer.Exit(EXIT_FINDINGS)


def project_root(path: Path) -> Path | None:
    """The dbt project folder (with dbt_project.yml) of PATH, where the models' files are."""
    from catalog.artifacts import find_target_dir

    for folder in (Path(path), find_target_dir(path).parent):
        if (folder / "dbt_project.yml").is_file():
            return folder
    return None


def check_table(report: CheckReport) -> Group:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from catalog.report.check_md import hit_summary

    t = Table(title=f"Changes in {report.project} against {report.base}", title_justify="left")
    for col in ("class", "model", "column", "change", "hits downstream", "why"):
        t.add_column(col)
    styles = {"breaking": "bold red", "policy": "bold magenta", "partial": "yellow", "safe": "green"}
    for f in report.findings:
        change = ", ".join(f.changes) + (f" -> {f.renamed_to}" if f.renamed_to else "")
        t.add_row(
            Text(f.severity, style=styles[f.severity]),
            Text(f.model),
            Text(f.column),
            Text(change + (f" ({f.detail})" if f.detail else "")),
            Text(hit_summary(f)),
            Text(f.why),
        )
    parts: list = [t]
    if not report.findings:
        parts.append(Text("no column changed", style="dim"))
    if report.new_models:
        parts.append(Text("New: " + ", ".join(report.new_models)))
    if report.removed_models:
        parts.append(Text("Removed: " + ", ".join(report.removed_models)))
    if report.tests:
        parts.append(Text("Tests that read a changed column: " + ", ".join(t.name for t in report.tests)))
    if report.selector:
        parts.append(Text("Rebuild: dbt build -s " + report.selector))
    return Group(*parts)
