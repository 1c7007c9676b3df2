"""Columns nothing reads: the one answer of ``catalog unused``, its MCP tool, the report's
unused section and ``catalog check`` (an added column nobody reads).

A column of a model, seed or snapshot is **read** when something in the catalog reads it:

- a column it feeds (``FEEDS``: passed through, renamed, computed from), or any other node it
  feeds (a BI field);
- a model whose WHERE, JOIN, GROUP BY, HAVING, QUALIFY, window or ORDER BY uses it
  (``CONDITIONS``);
- a semantic model, metric, exposure or saved query (``INPUT_OF``); an exposure that lists no
  ``meta.referenced_columns`` reads every column of the models it depends on (which ones its
  dashboard shows is unknown, so none of them can be dropped);
- a dbt test (``TESTS``).

A column is **unused** when no reader is left once the unused columns themselves are taken
away: either nothing reads it (``no reader``), or only columns that are unused themselves read
it (``read only by unused columns``: dropping those first frees it). The walk is
:func:`catalog.walks.reached`, up the column edges from every column something else
reads.

An **end model** is one no node depends on and none of whose columns a consumer (semantic
model, metric, exposure, BI field) or another dbt project reads: its columns are the project's output, read, if at
all, by what the catalog does not know (a dashboard not declared, ad-hoc queries). By default
they count as read; with ``end_models`` they count as unread too (``no reader in the catalog
(end model)``), and so does what only they read. Sources are never judged (their columns are
the raw data's), nor the nodes of other dbt projects.

The rows come from a stored build (``cypher/read/list_column_readers``) or from a project
analyzed in memory (:func:`readers_in_memory`), in the same shape.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel

from catalog.walks import reached
from catalog.memory import paused_gc

if TYPE_CHECKING:
    from catalog.analyze.records import ColumnRef
    from catalog.extract import DbtProject
    from catalog.lineage.records import LineageGraph

NO_READER = "no reader"
ONLY_UNUSED = "read only by unused columns"
END_MODEL = "no reader in the catalog (end model)"


class Reader(NamedTuple):
    kind: str  # column, condition, semantic_model, metric, exposure, saved_query, test, or a BI node's label
    key: str
    name: str


class ReadColumn(NamedTuple):
    key: str
    name: str
    data_type: str | None
    readers: tuple[Reader, ...]


class ReadNode(NamedTuple):
    """A model, seed or snapshot with its columns and what reads each."""

    unique_id: str
    name: str
    resource_type: str
    dependents: tuple[tuple[str, str | None], ...]  # (name, analysis status) of the nodes that depend on it
    columns: tuple[ReadColumn, ...]


class UnusedColumn(BaseModel, frozen=True):
    column: str
    data_type: str | None
    reason: str  # NO_READER, ONLY_UNUSED or END_MODEL
    read_by: tuple[str, ...] = ()  # ONLY_UNUSED: the unused columns that read it, to drop first


class UnusedModel(BaseModel, frozen=True):
    """A model (seed, snapshot) that could drop ``columns``."""

    unique_id: str
    model: str
    resource_type: str
    end_model: bool
    dependents: tuple[str, ...]
    # dependents whose lineage is not fully resolved: they may read a column unseen
    incomplete_dependents: tuple[str, ...]
    columns: tuple[UnusedColumn, ...]


def nodes_from_rows(rows: Iterable[Sequence[Any]]) -> Iterator[ReadNode]:
    """A :class:`ReadNode` of each ``list_column_readers`` row (unique_id, model, resource_type,
    dependents, columns), as they come, what the rows repeat held once: a reader is read once
    per column it reads, and its key again as its own column's key, so the rows of a large
    build hold each several times over (about 300 MB of 5,000 models' rows)."""
    once = {}.setdefault
    for unique_id, name, resource_type, dependents, columns in rows:
        yield ReadNode(
            unique_id, name, once(resource_type, resource_type), tuple((d[0], once(d[1], d[1])) for d in dependents),
            tuple(
                ReadColumn(once(key, key), once(column, column), once(data_type, data_type),
                           tuple(once(r, r) for r in (Reader(once(k, k), once(rk, rk), rn) for k, rk, rn in readers)))
                for key, column, data_type, readers in columns
            ),
        )  # fmt: skip


def is_end_model(node: ReadNode, judged: set[str]) -> bool:
    """No node depends on it and nothing but its own project's columns (``judged``), tests and
    conditions reads its columns: no consumer, BI field or other dbt project."""
    return not node.dependents and not any(
        r.kind not in ("condition", "test") and (r.kind != "column" or r.key not in judged) for c in node.columns for r in c.readers
    )


def unused_columns(nodes: Iterable[ReadNode], end_models: bool = False) -> list[UnusedModel]:
    """The columns of ``nodes`` nothing reads, by model (ordered by name, then unique id), each
    with its reason; with ``end_models``, the columns of end models count as unread too."""
    with paused_gc():  # hundreds of thousands of small tuples, no cycles
        return _unused_columns(list(nodes), end_models)


def _unused_columns(nodes: list[ReadNode], end_models: bool) -> list[UnusedModel]:
    judged = {c.key for n in nodes for c in n.columns}
    ends = {n.unique_id for n in nodes if is_end_model(n, judged)}
    feeders: dict[str, list[str]] = defaultdict(list)  # column -> the judged columns it reads
    anchored: list[str] = []  # the columns read by something other than a judged column
    for n in nodes:
        output = n.unique_id in ends and not end_models
        for c in n.columns:
            anchor = output
            for r in c.readers:
                if r.kind == "column" and r.key in judged:
                    feeders[r.key].append(c.key)
                else:
                    anchor = True
            if anchor:
                anchored.append(c.key)
    live = set(anchored) | reached(anchored, lambda key: feeders.get(key, ()))
    out = []
    for n in sorted(nodes, key=lambda n: (n.name, n.unique_id)):
        columns = tuple(_unused(c, n.unique_id in ends) for c in sorted(n.columns, key=lambda c: c.name) if c.key not in live)
        if columns:
            out.append(UnusedModel(
                unique_id=n.unique_id, model=n.name, resource_type=n.resource_type, end_model=n.unique_id in ends,
                dependents=tuple(sorted(d for d, _ in n.dependents)),
                incomplete_dependents=tuple(sorted(d for d, status in n.dependents if status != "resolved")),
                columns=columns,
            ))  # fmt: skip
    return out


def why_unused(c: UnusedColumn) -> str:
    """``no reader``, ``read only by unused columns: orders.a, orders.b`` or ``no reader in the
    catalog (end model)``."""
    return f"{c.reason}: {', '.join(c.read_by)}" if c.read_by else c.reason


def _unused(c: ReadColumn, end: bool) -> UnusedColumn:
    if c.readers:
        return UnusedColumn(column=c.name, data_type=c.data_type, reason=ONLY_UNUSED, read_by=tuple(sorted({r.name for r in c.readers})))
    return UnusedColumn(column=c.name, data_type=c.data_type, reason=END_MODEL if end else NO_READER)


def readers_in_memory(graph: LineageGraph, tested: dict[str, tuple[ColumnRef, ...]]) -> list[ReadNode]:
    """The rows of ``list_column_readers`` for a project analyzed in memory: ``graph`` made with
    its consumers (:func:`catalog.check.lineage_graph`), ``tested``: each test's columns
    (:func:`catalog.analyze.dbt_tests.columns_tested`)."""
    project: DbtProject = graph.project
    tests: dict[str, list[Reader]] = defaultdict(list)
    for uid, refs in tested.items():
        for ref in refs:
            tests[ref.key].append(Reader("test", uid, project.tests[uid].name))
    dependents: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for node in project.nodes.values():
        lineage = graph.lineages.get(node.unique_id)
        for parent in dict.fromkeys(node.depends_on):
            dependents[parent].append((node.name, lineage.status.value if lineage is not None else None))
    out = []
    for uid, node in project.nodes.items():
        if node.resource_type == "source" or node.external_project:
            continue
        columns = []
        for key in graph.model_columns.get(uid, ()):
            name = graph.column_name[key]
            readers = [_reader(graph, down) for down, _, _ in graph.feeds.get(key, ())]
            readers += [Reader("condition", model, f"{project.nodes[model].name} ({clause})") for model, clause in graph.conditions.get(key, ())]
            found = node.column(name, project.dialect)
            columns.append(ReadColumn(key, name, found.data_type if found else None, tuple(readers + tests.get(key, []))))
        out.append(ReadNode(uid, node.name, node.resource_type, tuple(sorted(dependents.get(uid, ()))), tuple(columns)))
    return out


def _reader(graph: LineageGraph, key: str) -> Reader:
    """What reads a column in memory: a model's column, a semantic model's element, or a
    metric, exposure or saved query (a node keyed by its unique id)."""
    owner = graph.column_model[key]
    node = graph.project.nodes.get(owner)
    if node is not None:
        return Reader("column", key, f"{node.name}.{graph.column_name[key]}")
    kind = owner.split(".", 1)[0]
    name = owner.rsplit(".", 1)[-1]
    return Reader(kind, key, name if key == owner else f"{name}.{graph.column_name[key]}")
