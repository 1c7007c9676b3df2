"""``catalog unused``: the columns nothing reads in a stored build, by model, each with why
(:mod:`catalog.lineage.unused` decides; this reads its rows and names the models asked for).
The MCP tool ``unused`` and the report's unused section are this answer too."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from pydantic import BaseModel

from catalog.errors import Ambiguous, NotFound
from catalog.lineage.unused import ReadNode, UnusedModel, nodes_from_rows, unused_columns
from catalog.memory import paused_gc

if TYPE_CHECKING:
    from catalog.query import BuildView
    from catalog.store.report_reads import BuildReads


class UnusedAnswer(BaseModel, frozen=True):
    project: str
    build: int
    end_models: bool  # whether the columns of end models count as unread
    asked: tuple[str, ...]  # the models asked for (their unique ids); empty: every model
    models: tuple[UnusedModel, ...]

    def counts(self) -> dict[str, int]:
        return {"models": len(self.models), "columns": sum(len(m.columns) for m in self.models)}

    def to_dict(self) -> dict[str, object]:
        return {**self.model_dump(exclude={"models"}), "counts": self.counts(), "models": [m.model_dump() for m in self.models]}


def read_nodes(reads: BuildReads, unique_ids: list[str] | None = None) -> list[ReadNode]:
    """Every model, seed and snapshot of the build (or those of ``unique_ids``) with what reads
    each of its columns."""
    with paused_gc():  # a tuple per column and per reader, no cycles
        return list(nodes_from_rows(reads.column_readers(unique_ids)))


def find_unused(view: BuildView, models: list[str] | None = None, end_models: bool = False) -> UnusedAnswer:
    """The unused columns of build ``view.build_id``: of every model, or of ``models`` (names or
    unique ids, as ``catalog unused orders stg_payments`` takes them). For ``models``, only
    they and what depends on them are read: what reads their columns is among those."""
    from catalog.store.report_reads import BuildReads

    reads = BuildReads(view.graph, view.project, view.build_id)
    where = f"in project {view.project!r} (build {view.build_id})"
    if models:
        rows = view.graph.read("read/list_build_nodes", project=view.project, build_id=view.build_id)
        judged = [(r["unique_id"], r["name"]) for r in rows if r["resource_type"] != "source" and r["status"] != "external"]
        asked = tuple(dict.fromkeys(_node(judged, name, where) for name in models))
        keys = [f"{view.project}/{uid}" for uid in asked]
        near = [r["unique_id"] for r in view.graph.read("read/find_model_descendants", project=view.project, keys=keys, build_id=view.build_id)]
        nodes = read_nodes(reads, near)
    else:
        asked, nodes = (), read_nodes(reads)
    found = unused_columns(nodes, end_models)
    if asked:
        found = [m for m in found if m.unique_id in asked]
    return UnusedAnswer(project=view.project, build=view.build_id, end_models=end_models, asked=asked, models=tuple(found))


def _node(nodes: list[tuple[str, str]], text: str, where: str) -> str:
    """The unique id of the model, seed or snapshot ``text`` names among ``nodes`` (unique id,
    name): its name or unique id, any case."""
    wanted = text.strip().lower()
    hits = sorted({uid for uid, name in nodes if wanted in (name.lower(), uid.lower())})
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise Ambiguous(f"{text!r} is ambiguous; name one of: {', '.join(hits)}")
    close = difflib.get_close_matches(wanted, sorted({name.lower() for _, name in nodes}), n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise NotFound(f"no model, seed or snapshot {text!r} {where} (sources are not judged){hint}")
