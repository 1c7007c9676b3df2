"""Analyze every model of a dbt project, upstream models first.

A model's ``select *`` over an upstream model needs that model's columns: catalog.json
gives them for built relations; for ephemeral models (never in catalog.json) and
relations missing from it, the upstream model's analyzed output is used instead.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import multiprocessing
import os
import traceback
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator, TypeVar

from catalog.analyze.model import SNAPSHOT_META_COLUMNS, ModelAnalyzer
from catalog.analyze.packed import Packed, RefCache, unpack
from catalog.analyze.records import ColumnKind, ModelLineage, ModelStatus
from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtNode, DbtProject, DeclaredLineage, declared_lineage
from catalog.memory import frozen_heap
from catalog.walks import levels, upstream_first

Progress = Callable[[int, int], None]


def topological_models(project: DbtProject, only: set[str] | None = None) -> list[DbtNode]:
    """Models and snapshots (of those, the ones in ``only``), every one after the models it
    depends on (stable order)."""
    models = {n.unique_id: n for n in project.models() if only is None or n.unique_id in only}
    return [models[uid] for uid in upstream_first(models, lambda uid: models[uid].depends_on)]


class ProjectColumns:
    """Column names per relation: catalog.json first, then analysis, then YAML.

    A relation's names are worked out the first time they are asked for: a rebuild that
    analyzes a few models only names the columns of the relations those models read."""

    def __init__(self, project: DbtProject):
        self.nodes = project.nodes
        self._dialect = project.dialect
        self._named: dict[str, tuple[list[str] | None, list[str] | None, set[str] | None]] = {}
        self._analyzed: dict[str, list[str]] = {}

    def _names(self, unique_id: str) -> tuple[list[str] | None, list[str] | None, set[str] | None]:
        """(catalog.json's names, YAML's names, all of them) of a relation; None where it has none."""
        named = self._named.get(unique_id)
        if named is None:
            node = self.nodes.get(unique_id)
            if node is None or not node.columns:
                named = (None, None, None)
            else:
                names = [c.key_name(self._dialect) for c in node.columns]
                in_catalog = [n for n, c in zip(names, node.columns) if c.in_catalog]
                declared = [n for n, c in zip(names, node.columns) if c.declared]
                named = (in_catalog or None, declared or None, set(names))
            self._named[unique_id] = named
        return named

    def in_catalog(self, unique_id: str) -> bool:
        """Whether catalog.json lists columns of this relation (without naming them)."""
        node = self.nodes.get(unique_id)
        return node is not None and any(c.in_catalog for c in node.columns)

    def add_analyzed(self, lineage: ModelLineage) -> None:
        if lineage.status.value in _USABLE and lineage.columns:
            self._analyzed[lineage.unique_id] = [c.name for c in lineage.columns]

    def add_packed(self, packed: Packed) -> None:
        uid, status, _, cols = packed[:4]
        if status in _USABLE and cols:
            self._analyzed[uid] = [c[0] for c in cols]

    def analyzed(self, unique_id: str) -> list[str] | None:
        return self._analyzed.get(unique_id)

    def update_analyzed(self, known: dict[str, list[str]]) -> None:
        self._analyzed.update(known)

    def all_known(self, unique_id: str) -> set[str] | None:
        """Every column catalog.json or YAML names for a relation, or None."""
        return self._names(unique_id)[2]

    def declared(self, unique_id: str) -> list[str] | None:
        return self._names(unique_id)[1]

    def catalog(self, unique_id: str) -> list[str] | None:
        return self._names(unique_id)[0]

    def __call__(self, unique_id: str) -> list[str] | None:
        in_catalog, declared, _ = self._names(unique_id)
        return in_catalog or self._analyzed.get(unique_id) or declared


def analyze_node(node: DbtNode, dialect: str, relations: RelationIndex, columns: ProjectColumns) -> ModelLineage:
    """Lineage of one model; never raises (a failure is a ``failed`` status with the error)."""
    return unpack(analyze_node_packed(node, dialect, relations, columns))


def analyze_node_packed(
    node: DbtNode, dialect: str, relations: RelationIndex, columns: ProjectColumns, definitions: bool = False
) -> Packed:
    """:func:`analyze_node` in the plain-tuple form of :mod:`catalog.analyze.packed`;
    ``definitions``: also the fingerprints of its SQL (:mod:`catalog.analyze.fingerprint`)."""
    real_names = columns.catalog(node.unique_id)
    if node.external_project is not None:
        return _without_sql(node, real_names or columns.declared(node.unique_id), external_reason(node), ModelStatus.EXTERNAL)
    if node.language != "sql":
        return _declared(node, real_names or columns.declared(node.unique_id), declared_lineage(node, columns.nodes, dialect))
    if not node.sql:
        return _without_sql(node, real_names, "no compiled or raw SQL in the manifest (run `dbt compile`)")
    try:
        own = real_names or columns.declared(node.unique_id)
        if own and node.resource_type == "snapshot":  # dbt adds these; the SQL does not select them
            own = [n for n in own if n not in SNAPSHOT_META_COLUMNS]
        table_columns = columns.all_known if definitions else None
        analyzer = ModelAnalyzer(
            node.unique_id, node.sql, dialect, relations, columns, real_names, own, table_columns, not node.is_ephemeral
        )
        packed = analyzer.run_packed()
    except Exception as e:  # noqa: BLE001 - recorded as the model's failure, with the error
        where = traceback.extract_tb(e.__traceback__)[-1]
        reason = f"analysis raised {type(e).__name__}: {e} (at {where.name}:{where.lineno})"
        return _without_sql(node, real_names, reason, ModelStatus.FAILED)
    uid, status, reason, cols, conds, found, problem = packed
    if node.resource_type == "snapshot":
        cols = _with_snapshot_meta(cols, real_names or [])
    if node.sql_origin == "raw" and status != ModelStatus.FAILED.value:
        reason = (reason or "") + " (analyzed raw SQL: no compiled SQL)"
    return (uid, status, reason, cols, conds, found, problem)


def analyze_project(
    project: DbtProject,
    progress: Progress | None = None,
    jobs: int | None = None,
    only: set[str] | None = None,
    known_columns: dict[str, list[str]] | None = None,
    fingerprints: set[str] | None = None,
) -> dict[str, ModelLineage]:
    """Lineage of every model and snapshot (or of those in ``only``), keyed and sorted by unique id.

    Models whose upstream columns all come from catalog.json are independent of each other
    and are analyzed in parallel (``jobs`` processes, default: one per CPU). Models reading
    an upstream model that catalog.json does not list (ephemeral models, unbuilt models)
    wait for that model's analysis, wave by wave. ``known_columns`` gives the analyzed
    columns of models not analyzed now (a stored build's), for ``select *`` over them.
    Models in ``fingerprints`` also get the definitions of their columns and rows, made from
    the same parse (``ModelLineage.definitions``).
    """
    return unpacked(analyze_project_packed(project, progress, jobs, only, known_columns, fingerprints))


def unpacked(lineages: Iterable[Packed]) -> dict[str, ModelLineage]:
    """The records of packed lineages, keyed and sorted by unique id. Made with the collector
    off (they hold no cycles): left on, it rescans them again and again as they are made, five
    times the time of making them (5 s against 1 s at 5,000 models)."""
    refs: RefCache = {}  # one ColumnRef per column, shared by all models
    with young_garbage_only():
        result = {packed[0]: unpack(packed, refs) for packed in lineages}
    return dict(sorted(result.items()))


def analyze_project_packed(
    project: DbtProject,
    progress: Progress | None = None,
    jobs: int | None = None,
    only: set[str] | None = None,
    known_columns: dict[str, list[str]] | None = None,
    fingerprints: set[str] | None = None,
) -> Iterator[Packed]:
    """:func:`analyze_project`'s lineages in the plain-tuple form of :mod:`catalog.analyze.packed`,
    each as soon as its model is analyzed (upstream models first, not sorted): a caller that
    writes each away never holds a whole project's lineage."""
    with frozen_heap():  # the project outlives the analysis: no collection needs to scan it
        yield from _analyzed(project, progress, jobs, only, known_columns, fingerprints or set())


def _analyzed(
    project: DbtProject, progress: Progress | None, jobs: int | None, only: set[str] | None,
    known_columns: dict[str, list[str]] | None, wanted: set[str],
) -> Iterator[Packed]:  # fmt: skip
    relations = RelationIndex.for_project(project)
    columns = ProjectColumns(project)
    if known_columns:
        columns.update_analyzed(known_columns)
    waves = _waves(project, columns, only)
    total = sum(len(w) for w in waves)
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    done = 0
    if jobs <= 1 or total < PARALLEL_MIN_MODELS or multiprocessing.get_start_method(allow_none=True) not in (None, "fork"):
        with young_garbage_only():
            for wave in waves:
                for node in wave:
                    packed = analyze_node_packed(node, project.dialect, relations, columns, node.unique_id in wanted)
                    gc.collect(1)
                    columns.add_packed(packed)
                    yield packed
                    done += 1
                    if progress:
                        progress(done, total)
        return

    global _WORKER_STATE
    _WORKER_STATE = (project, relations, columns, wanted)  # inherited by the forked workers
    ctx = multiprocessing.get_context("fork")
    try:
        # forked with the collector off: the workers collect young garbage themselves
        with young_garbage_only(), ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            for wave in waves:
                chunks = _chunks([n.unique_id for n in wave], max(jobs * 4, -(-len(wave) // CHUNK_MODELS)))
                # each chunk carries the analyzed columns of the upstream models its models read
                known = [_known_upstream(project, chunk, columns) for chunk in chunks]
                for packed_chunk in _in_order(pool, _analyze_chunk, zip(chunks, known), ahead=jobs * 2):
                    for packed in packed_chunk:
                        columns.add_packed(packed)
                        yield packed
                    done += len(packed_chunk)
                    if progress:
                        progress(done, total)
    finally:
        _WORKER_STATE = None


PARALLEL_MIN_MODELS = 200
CHUNK_MODELS = 50  # models a worker analyzes at a time, at most
T = TypeVar("T")
_USABLE = (ModelStatus.RESOLVED.value, ModelStatus.PARTIAL.value, ModelStatus.OPAQUE.value)
_WORKER_STATE: tuple[DbtProject, RelationIndex, ProjectColumns, set[str]] | None = None


def analyzed_columns(lineages: dict[str, ModelLineage]) -> dict[str, list[str]]:
    """The analyzed output columns of the models a later :func:`analyze_project` may read
    (its ``known_columns``): those of the models whose status makes them usable, as the
    analysis itself keeps them."""
    return {uid: [c.name for c in lin.columns] for uid, lin in lineages.items() if lin.status.value in _USABLE and lin.columns}


def _known_upstream(project: DbtProject, unique_ids: list[str], columns: ProjectColumns) -> dict[str, list[str]]:
    known: dict[str, list[str]] = {}
    for uid in unique_ids:
        for dep in project.nodes[uid].depends_on:
            names = columns.analyzed(dep)
            if names is not None:
                known[dep] = names
    return known


def _in_order(pool: ProcessPoolExecutor, fn: Callable[..., T], calls: Iterable[tuple[Any, ...]], ahead: int) -> Iterator[T]:
    """``pool.map(fn, ...)``'s results in order, with at most ``ahead`` calls given to the pool
    and not yet read: the results of a reader slower than the workers (a build writing each
    part to Neo4j) wait as work not done rather than as analyses held in memory."""
    pending: collections.deque[Future[T]] = collections.deque()
    for args in calls:
        pending.append(pool.submit(fn, *args))
        if len(pending) >= ahead:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def _analyze_chunk(unique_ids: list[str], known: dict[str, list[str]]) -> list[Packed]:
    assert _WORKER_STATE is not None
    project, relations, columns, wanted = _WORKER_STATE
    columns.update_analyzed(known)
    packed = []
    for uid in unique_ids:
        packed.append(analyze_node_packed(project.nodes[uid], project.dialect, relations, columns, uid in wanted))
        gc.collect(1)
    return packed


@contextlib.contextmanager
def young_garbage_only() -> Iterator[None]:
    """Turn off the automatic collector; the caller runs ``gc.collect(1)`` after each model.

    A model's syntax tree is garbage with reference cycles (parent links) once analyzed, and
    collecting the young generations then frees it. Left automatic, the collector also
    rescans the whole project again and again while hundreds of thousands of objects are
    made, which took about 40% of the analysis time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _chunks(items: list[str], parts: int) -> list[list[str]]:
    size = max(1, -(-len(items) // max(1, parts)))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _waves(project: DbtProject, columns: ProjectColumns, only: set[str] | None = None) -> list[list[DbtNode]]:
    """Group models (those in ``only``) so that each only needs columns of catalog.json or of
    earlier waves: a model not analyzed now has its columns already (``known_columns``), so
    only the order among the models analyzed matters."""
    order = topological_models(project, only)
    level = levels([n.unique_id for n in order], lambda uid: [d for d in project.nodes[uid].depends_on if not columns.in_catalog(d)])
    waves: list[list[DbtNode]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for node in order:
        waves[level[node.unique_id]].append(node)
    return waves


def external_reason(node: DbtNode) -> str:
    project = node.external_project
    if node.upstream_key is not None:
        return f"a node of the dbt project {project}: its columns and lineage are those of its build {node.upstream_build}"
    return (f"a node of the dbt project {project}, whose build has its SQL and lineage "
            f"(`catalog build` {project} into the same database to follow its columns)")  # fmt: skip


def _without_sql(
    node: DbtNode, names: list[str] | None, reason: str, status: ModelStatus = ModelStatus.UNRESOLVED
) -> Packed:
    cols = [(n, ColumnKind.UNKNOWN.value, False, "", (), reason) for n in (names or [])]
    return (node.unique_id, status.value, reason, cols, [], None, reason)


def _declared(node: DbtNode, names: list[str] | None, declared: DeclaredLineage | None) -> Packed:
    """A model without SQL (Python): ``opaque``, its columns' lineage as its YAML declares it."""
    what = f"{node.language} model: no SQL to analyze"
    if declared is None:
        reason = f"{what}; its lineage can be declared in YAML (meta.catalog_lineage)"
        return _without_sql(node, names, reason, ModelStatus.OPAQUE)
    reason = f"{what}; lineage as declared in YAML (meta.catalog_lineage)"
    undeclared = f"{what}; no lineage declared for this column"
    cols = [
        (n, ColumnKind.DECLARED.value, True, "declared in YAML", declared.columns[n], None)
        if n in declared.columns
        else (n, ColumnKind.UNKNOWN.value, False, "", (), undeclared)
        for n in [*(names or []), *(n for n in declared.columns if n not in (names or []))]
    ]
    return (node.unique_id, ModelStatus.OPAQUE.value, reason, cols, [], None, reason)


def _with_snapshot_meta(cols: list, real_names: list[str]) -> list:
    """dbt adds its snapshot columns (dbt_scd_id, dbt_valid_from, ...): source, no upstream."""
    have = {c[0] for c in cols}
    extra = [
        (n, ColumnKind.SOURCE.value, True, f"snapshot: {n}", (), None)
        for n in real_names
        if n in SNAPSHOT_META_COLUMNS and n not in have
    ]
    return cols + extra if extra else cols
