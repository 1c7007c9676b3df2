"""The models to rebuild after a change, as one use case: the changed columns named in a
stored build, named in a dbt target analyzed in memory, or found by comparing two targets
(:mod:`catalog.prune`). ``catalog prune`` calls :func:`prune_change` and prints the plan."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog.analyze.project import analyze_project
from catalog.bi.sources import with_bi
from catalog.compare import analyze_states
from catalog.extract import input_warnings, load_project
from catalog.prune import PrunePlan, prune_artifacts, prune_graph, prune_state
from catalog.query import BuildView

if TYPE_CHECKING:
    from catalog.extract import InputWarning
    from catalog.history import BuildAt
    from catalog.store.graph import Graph


def prune_change(
    names: list[str],
    *,
    path: Path | None = None,
    state: Path | None = None,
    project: str | None = None,
    build: str | BuildAt | None = None,
    dialect: str | None = None,
    jobs: int | None = None,
    graph: Callable[[], AbstractContextManager[Graph]] | None = None,
    warned: Callable[[Sequence[InputWarning]], Any] = lambda _: None,
) -> PrunePlan:
    """The plan for the changed columns ``names``: with ``path`` and ``state``, ``path``
    compared with the old target ``state`` (``names`` changed as well); with ``path`` alone,
    from its artifacts; without ``path``, from the build (``project``, ``build``) in the graph
    ``graph()`` opens. ``warned`` is told each target's input warnings as soon as it is read."""
    if path is None:
        if graph is None:
            raise ValueError("prune_change: without a target, a graph to read the build from")
        with graph() as opened:
            return prune_graph(BuildView(opened, project, build), names)
    current = with_bi(load_project(path, dialect=dialect), path)
    warned(input_warnings(current))
    if state is None:
        return prune_artifacts(current, analyze_project(current, jobs=jobs), names)
    old = load_project(state, dialect=dialect)
    warned(input_warnings(old))
    old_lineages, lineages = analyze_states(old, current, jobs=jobs, cache=True)
    return prune_state(old, old_lineages, current, lineages, also_changed=names)
