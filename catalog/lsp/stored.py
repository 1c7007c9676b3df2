"""A stored build asked per question: `catalog lsp`'s answers about a file read from Neo4j
when they are asked, instead of the whole build read into memory first.

The file's node is found by its path (``find_nodes_at_path``); what the editor is told about
the file (its columns and their properties, their upstream columns one hop away, the columns
that read them, the model's parents and children) comes from a small
:class:`~catalog.mcp.view.ProjectView` of that node, its parents and its children
(``list_model_neighbors``), read with their records and lineage as `catalog explore` reads a
whole build (:func:`~catalog.export.stored.stored_export_input`). The counts up- and
downstream are :class:`~catalog.query.BuildView`'s `trace` and `impact` of the column, one walk
of the graph each. So every answer is the one the whole build's view gives, after tens of
milliseconds instead of a read of the whole build.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from catalog.lsp.sources import FILE_KINDS, Answering
from catalog.store.keys import quote_column

if TYPE_CHECKING:
    from catalog.mcp.view import ProjectView
    from catalog.query import Answer, BuildView, ColumnId

KEPT = 64  # nodes whose small views are kept (the files the editor has asked about lately)


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
        self._at_path: dict[str, str | None] = {}
        self._views: OrderedDict[str, ProjectView] = OrderedDict()
        self._answers: dict[tuple[str, str], Answer] = {}
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
        """The unique id of the node written in ``rel``: the project's own package's first."""
        if rel not in self._at_path:
            c = self.catalog
            rows = [r for r in c.graph.read("read/find_nodes_at_path", project=c.project, build_id=c.build_id, path=rel)
                    if r["resource_type"] in FILE_KINDS]  # fmt: skip
            own = [r["unique_id"] for r in rows if r["unique_id"].split(".")[1] == self.package]
            self._at_path[rel] = (own or [r["unique_id"] for r in rows] or [None])[0]
        return self._at_path[rel]

    def view_of(self, uid: str) -> ProjectView:
        """The view of ``uid``, its parents and its children (kept for the :data:`KEPT` last asked)."""
        with self._lock:
            if uid in self._views:
                self._views.move_to_end(uid)
                return self._views[uid]
        from catalog.export.stored import stored_export_input
        from catalog.mcp.view import ProjectView

        c = self.catalog
        rows = c.graph.read("read/list_model_neighbors", project=c.project, build_id=c.build_id, unique_id=uid)
        near = [uid, *(rows[0]["parents"] if rows else ()), *(rows[0]["children"] if rows else ())]
        view = ProjectView(stored_export_input(c, consumers=True, unique_ids=sorted(set(near))))
        with self._lock:
            self._views[uid] = view
            while len(self._views) > KEPT:
                self._views.popitem(last=False)
        return view

    def yaml_named(self, node: str, column: str) -> ColumnId:
        return self.catalog.resolve(f"{node}.{quote_column(column)}")
