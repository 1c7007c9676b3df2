"""``catalog check --state BASE`` analyzing only the part of the project a change can reach: the
region of :mod:`catalog.check_region`, with the base's lineage analyzed in memory instead of
read from a stored build; the report is the one the whole project gives.

The base is analyzed lazily (:class:`LazyBase`): a model's lineage needs the columns of the
relations it reads, which catalog.json lists, else their own analysis. So analyzing some models
analyzes with them their upstream models that catalog.json does not list, any depth up, and
nothing else; each model is analyzed once, as the whole project's analysis would analyze it.

The PII policy reads the base's lineage outside the region: whether the columns upstream of the
change are PII (the tags of what they copy into, one step further), and what the PII ones reach
through value lineage, anywhere downstream. Both walks go down one layer of columns at a time
(:func:`~catalog.check_region.pii_reach`): the models that may read a layer's columns are the ones whose
``depends_on`` names their models; those are analyzed when the walk first reaches them.

:func:`check_against_state` is :func:`~catalog.check_region.check_in_region` with this lazy
base, the one the check against a build runs with the build's lineage: it gives None (the
caller analyzes the whole project) in the same cases (another dialect or masking functions,
consumers that differ, BI definitions, a lineage upstream of the change that reads a node its
``depends_on`` does not name, a model read beside the region whose base analysis failed).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING

from catalog.analyze.records import ModelLineage, column_key
from catalog.check_region import Feed, check_in_region, depends_on_of, models_among, owner_of
from catalog.extract import DbtProject
from catalog.walks import reached_by_layer

if TYPE_CHECKING:
    from catalog.check import CheckReport


def check_against_state(old: DbtProject, new: DbtProject, base: str, jobs: int | None) -> CheckReport | None:
    """The check of ``new`` against the base target ``old`` (named ``base`` in the report) from
    the region alone; None when the region cannot stand for the whole project (see the module)."""
    return check_in_region(old, new, LazyBase(old, jobs), base, jobs)


class LazyBase:
    """The base's lineages, each model analyzed when first needed (see the module)."""

    def __init__(self, project: DbtProject, jobs: int | None):
        self.project = project
        self.jobs = jobs
        self.lineages: dict[str, ModelLineage] = {}
        self.readers: dict[str, set[str]] = defaultdict(set)  # node -> the models whose depends_on names it
        for node in project.models():
            for dep in node.depends_on:
                self.readers[dep].add(node.unique_id)

    def need(self, uids: Iterable[str]) -> None:
        """Analyze the models and snapshots among ``uids`` not analyzed yet, with the upstream
        models they read that catalog.json does not list (any depth up)."""
        from catalog.analyze.project import ProjectColumns, analyze_project, analyzed_columns

        columns = ProjectColumns(self.project)

        def unlisted_parents(layer: list[str]) -> list[str]:  # read, not in catalog.json, not analyzed yet
            parents = {d for uid in layer for d in depends_on_of(self.project, uid) if not columns.in_catalog(d)}
            return [uid for uid in models_among(self.project, parents) if uid not in self.lineages]

        todo = reached_by_layer([uid for uid in models_among(self.project, uids) if uid not in self.lineages], unlisted_parents)
        if todo:
            known = analyzed_columns(self.lineages)
            self.lineages |= analyze_project(self.project, jobs=self.jobs, only=todo, known_columns=known)

    def of(self, uids: Collection[str], columns: Collection[str] | None = None) -> dict[str, ModelLineage]:
        """The lineages of the models among ``uids`` (analyzed first when not yet), by unique id;
        with ``columns`` (column ids, a set), of those columns only."""
        self.need(uids)
        found = {uid: self.lineages[uid] for uid in sorted(uids) if uid in self.lineages}
        if columns is None:
            return found
        return {uid: lin.model_copy(update={"columns": tuple(c for c in lin.columns if column_key(uid, c.name) in columns)}) for uid, lin in found.items()}

    def feeds_out(self, keys: Collection[str]) -> Iterable[Feed]:
        """Each edge of the base's column lineage out of the columns ``keys``: the models whose
        ``depends_on`` names theirs, analyzed first."""
        wanted = set(keys)
        for uid, lineage in self._readers(keys):
            for col in lineage.columns:
                for src in col.sources:
                    if src.key in wanted:
                        yield src.key, column_key(uid, col.name), uid, col.kind.value

    def conditions_out(self, keys: Collection[str]) -> Iterable[tuple[str, str]]:
        """(column, model) for each model whose conditions read one of the columns ``keys`` in
        the base: of the models whose ``depends_on`` names theirs, analyzed first."""
        wanted = set(keys)
        for uid, lineage in self._readers(keys):
            for cond in lineage.conditions:
                if cond.column.key in wanted:
                    yield cond.column.key, uid

    def _readers(self, keys: Collection[str]) -> Iterator[tuple[str, ModelLineage]]:
        """The lineages of the models that may read the columns ``keys`` (their ``depends_on``
        names the columns' models), analyzed first."""
        owners = {owner_of(self.project, key) for key in keys}
        readers = sorted({r for uid in owners if uid is not None for r in self.readers.get(uid, ())})
        self.need(readers)
        for uid in readers:
            if (lineage := self.lineages.get(uid)) is not None:
                yield uid, lineage
