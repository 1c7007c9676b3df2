"""A stored build asked per question: `catalog lsp`'s answers about a file read from Neo4j
when they are asked, instead of the whole build read into memory first.

The file's node is found by its path (``find_nodes_at_path``); what the editor is told about
the file (its columns and their properties, their upstream columns one hop away, the columns
that read them, the model's parents and children) comes from a small
:class:`~catalog.mcp.view.ProjectView` of that node, its parents and its children
(``find_model_neighbours``), read with their records and lineage as `catalog explore` reads a
whole build (:func:`~catalog.export.stored.stored_export_input`). The counts up- and
downstream are :class:`~catalog.query.BuildView`'s `trace` and `impact` of the column, one walk
of the graph each. So every answer is the one the whole build's view gives, after tens of
milliseconds instead of a read of the whole build.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from catalog.errors import CatalogError
from catalog.store.keys import quote_column

if TYPE_CHECKING:
    from catalog.mcp.view import ProjectView
    from catalog.query import Answer, BuildView, ColumnId

T = TypeVar("T")
FILE_KINDS = ("model", "snapshot", "seed", "analysis", "source")  # the nodes written in a file of their own
KEPT = 64  # nodes whose small views are kept (the files the editor has asked about lately)


class Answering:
    """What the whole view in use (:class:`~catalog.lsp.sources.Loaded`) and a stored build asked per question
    (:class:`~catalog.lsp.stored.StoredBuild`) share: the `impact` and `trace` of a column."""

    asker: Any  # the ProjectView or BuildView asked
    _answers: dict[tuple[str, str], Answer]

    def answer(self, kind: str, label: str) -> Answer:
        """``impact`` or ``trace`` of one column (by its label), kept while it is in use."""
        key = (kind, label)
        if key not in self._answers:
            self._answers[key] = self.asker.impact([label]) if kind == "impact" else self.asker.trace([label])
        return self._answers[key]

    def yaml_column(self, node: str, column: str) -> tuple[ProjectView, str] | None:
        """The view and key of the column a schema YAML names (``node``: a model's name, a
        source's ``source.table``); None when there is no such column."""
        try:
            found = self.yaml_named(node, column)
        except CatalogError:
            return None
        view = self.view_of(found.unique_id)
        return (view, found.key) if found.key in view.columns else None

    def yaml_named(self, node: str, column: str) -> ColumnId:
        raise NotImplementedError

    def view_of(self, uid: str) -> ProjectView:
        """The view that answers about the node ``uid``."""
        raise NotImplementedError


class StoredBuild(Answering):
    """The answers of one stored build, read per question (the :class:`~catalog.lsp.sources.Loaded`
    of a stored build)."""

    def __init__(self, catalog: BuildView, origin: str, package: str | None):
        """``package``: the dbt project's own package, whose file is meant when two packages
        name the same path."""
        self.catalog = catalog
        self.signature = catalog.build_id
        self.origin = origin
        self.package = package or catalog.project
        self.size = "asked per question"
        self._asked_paths: dict[str, str | None] = {}  # a file (relative to its package's folder) -> its node
        self._views: OrderedDict[str, Future[ProjectView]] = OrderedDict()
        self._answers: dict[tuple[str, str], Future[Answer]] = {}  # type: ignore[assignment]
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="catalog-lsp-ask")
        self._paths = self._pool.submit(self._read_paths, None)  # every file's node
        self._build: dict[str, Any] | None = None  # the Build node's properties
        self._lock = threading.Lock()

    @property
    def asker(self) -> BuildView:
        """What `impact` and `trace` of the code lenses' commands ask."""
        return self.catalog

    def around(self, rel: str) -> tuple[ProjectView | None, str | None]:
        """The view of the node written in the file ``rel`` (relative to the project folder)
        and its unique id; (None, None) when the build has no node there."""
        uid = self.node_at(rel)
        return (self.view_of(uid), uid) if uid is not None else (None, None)

    def node_at(self, rel: str) -> str | None:
        """The unique id of the node written in ``rel``: the project's own package's first.
        Every file's node is read once in the background (1-2 s at 20,000 models); until then
        each file's is asked alone (10-100 ms)."""
        every = self._paths
        if every.done() and every.exception() is None:
            return every.result().get(rel)
        if rel not in self._asked_paths:
            self._asked_paths[rel] = self._read_paths(rel).get(rel)
        return self._asked_paths[rel]

    def _read_paths(self, path: str | None) -> dict[str, str]:
        """File -> node, of the file ``path`` or (None) of every file."""
        c = self.catalog
        at: dict[str, list[str]] = {}
        for r in c.graph.read("read/find_nodes_at_path", project=c.project, build_id=c.build_id, path=path):
            if r["resource_type"] in FILE_KINDS:
                at.setdefault(r["path"], []).append(r["unique_id"])
        return {path: next((u for u in uids if u.split(".")[1] == self.package), uids[0]) for path, uids in at.items()}

    def view_of(self, uid: str) -> ProjectView:
        """The view of ``uid``, its parents and its children (kept for the :data:`KEPT` last
        asked; read once however many ask at once: a file's diagnostics when it opens, a hover)."""
        with self._lock:
            future = self._views.get(uid)
            if future is None:
                future = self._views[uid] = self._pool.submit(self._read_view, uid)
                while len(self._views) > KEPT:
                    self._views.popitem(last=False)
            self._views.move_to_end(uid)
        return self._result(self._views, uid, future)

    def _read_view(self, uid: str) -> ProjectView:
        from catalog.export.stored import stored_export_input
        from catalog.mcp.view import ProjectView

        c = self.catalog
        rows = c.graph.read("read/find_model_neighbours", project=c.project, keys=[f"{c.project}/{uid}"], build_id=c.build_id)
        near = [uid, *(r["unique_id"] for r in rows)]
        if self._build is None:
            self._build = c.graph.read("read/find_build", project=c.project, build_id=c.build_id)[0]["build"]
        return ProjectView(stored_export_input(c, consumers=True, unique_ids=sorted(set(near)), build=self._build))

    def answer(self, kind: str, label: str) -> Answer:
        """``impact`` or ``trace`` of one column (by its label), kept for the build's life; the
        other one asked at the same time (a hover and the code lenses show both)."""
        with self._lock:
            for other in ("impact", "trace"):
                if (other, label) not in self._answers:
                    self._answers[(other, label)] = self._pool.submit(self._ask, other, label)
            future = self._answers[(kind, label)]
        return self._result(self._answers, (kind, label), future)

    def _ask(self, kind: str, label: str) -> Answer:
        return self.catalog.impact([label]) if kind == "impact" else self.catalog.trace([label])

    def _result(self, kept: dict[Any, Future[Any]], key: Any, future: Future[T]) -> T:
        """``future``'s result; a failure (Neo4j down) is not kept: asked again next time."""
        try:
            return future.result()
        except BaseException:
            with self._lock:
                if kept.get(key) is future:
                    del kept[key]
            raise

    def yaml_named(self, node: str, column: str) -> ColumnId:
        return self.catalog.resolve(f"{node}.{quote_column(column)}")
