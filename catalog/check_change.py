"""Reviewing a change, as one use case: the changed dbt target against its base (another
target, analyzed in memory, or the project's active build stored in Neo4j), compared column
by column (:func:`catalog.check.check_states`). ``catalog check`` and the MCP tool
``check_change`` both call :func:`check_change`; each prints or returns the report its way."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog.errors import NotFound

if TYPE_CHECKING:
    from catalog.analyze.records import ModelLineage
    from catalog.check import CheckReport
    from catalog.extract import InputWarning
    from catalog.store.graph import Graph


@dataclass(frozen=True)
class CheckedChange:
    """The report, and what was weaker in each side's inputs."""

    report: CheckReport
    current_warnings: tuple[InputWarning, ...]
    base_warnings: tuple[InputWarning, ...]


def check_change(
    path: Path,
    *,
    state: Path | str | None = None,
    project: str | None = None,
    dialect: str | None = None,
    jobs: int | None = None,
    graph: Callable[[], AbstractContextManager[Graph]] | None = None,
    warned: Callable[[Sequence[InputWarning]], Any] = lambda _: None,
    partial: bool = True,
) -> CheckedChange:
    """PATH's changes against ``state`` (a base target; it names the base in the report as
    given), or, without it, against the active build of ``project`` (default: PATH's project
    name) in the graph ``graph()`` opens: dbt Mesh's foreign nodes read as a build would read
    them now, and the hits in the consumer projects stored beside it. ``warned`` is told each
    side's input warnings as soon as that side is read. Only the part of the project the change
    can reach is read and compared (against a build: :mod:`catalog.check_region`; against a
    target: :mod:`catalog.check_state_region`), unless ``partial`` is False (the whole project,
    the base's lineage kept in the cache: the same report, slower)."""
    from catalog.bi.sources import with_bi
    from catalog.check import check_states
    from catalog.check_state_region import check_against_state
    from catalog.compare import analyze_states, sharing_nodes
    from catalog.extract import input_warnings, load_project
    from catalog.store.records import load_build_lineages, load_build_project

    current = with_bi(load_project(path, dialect=dialect), path)
    current_warnings = tuple(input_warnings(current))
    warned(current_warnings)
    if state is not None:
        old = sharing_nodes(with_bi(load_project(Path(state), dialect=dialect), Path(state)), current)
        base_warnings = tuple(input_warnings(old))
        warned(base_warnings)
        report = check_against_state(old, current, str(state), jobs) if partial else None
        if report is None:
            old_lineages, lineages = analyze_states(old, current, jobs=jobs, cache=True)
            report = check_states(old, old_lineages, current, lineages, base=str(state))
        return CheckedChange(report, current_warnings, base_warnings)
    if graph is None:
        raise ValueError("check_change: without a base target, a graph to compare with")

    from catalog.check_across import with_consumer_projects
    from catalog.check_region import check_against_build
    from catalog.memory import paused_gc
    from catalog.query import BuildView
    from catalog.store.upstream import foreign_projects, upstream_builds, with_upstream

    name = project or current.name
    with paused_gc(), graph() as opened:  # hundreds of thousands of records, no cycles: no collection scans them over and over
        active = opened.find_active_build(name)
        if active is None:
            raise NotFound(f"project {name!r} has no active build: run `catalog build`, pass --project, or compare with --state")
        old = load_build_project(opened, name, active, like=current)
        if not current.bi_sources:  # no BI folders beside the change: the build's BI definitions, as stored
            current = current.model_copy(update={"bi_fields": old.bi_fields, "charts": old.charts, "dashboards": old.dashboards})
        # dbt Mesh: its foreign nodes as a build would read them now, and the other projects it feeds
        current = with_upstream(opened, current, upstream_builds(opened, foreign_projects(current), {}))

        report = check_against_build(opened, name, active["id"], old, current, jobs) if partial and same_analyzer(active) else None
        if report is None:

            def stored() -> dict[str, ModelLineage] | None:  # the build's lineage, when the cache has none and this analyzer made it
                return load_build_lineages(opened, name, active["id"]) if same_analyzer(active) else None

            old_lineages, lineages = analyze_states(old, current, jobs=jobs, cache=True, stored=stored)
            report = check_states(old, old_lineages, current, lineages, base=f"build {active['id']}")
        report = with_consumer_projects(report, BuildView(opened, name, active["id"]))
    report = report.model_copy(update={"project": name})  # the project compared, as --project names it
    return CheckedChange(report, current_warnings, ())


def same_analyzer(build: dict[str, Any]) -> bool:
    """Whether a build's stored lineage is what this catalog's analysis makes of the records
    the build kept: the build was made by this catalog, analyzer and sqlglot."""
    import sqlglot

    from catalog import __version__
    from catalog.builds.fingerprints import ANALYZER_VERSION

    return (
        build.get("catalog_version") == __version__
        and build.get("analyzer_version") == ANALYZER_VERSION
        and build.get("sqlglot_version") == sqlglot.__version__
    )
