"""``catalog unused``: the columns nothing reads in a stored build, by model, each with why
(:mod:`catalog.lineage.unused` decides; this reads its rows and names the models asked for).
The MCP tool ``unused`` and the report's unused section are this answer too."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from pydantic import BaseModel

from catalog.errors import Ambiguous, NotFound
from catalog.lineage.unused import ReadNode, UnusedModel, node_from_row, unused_columns
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


def read_nodes(reads: BuildReads) -> list[ReadNode]:
    """Every model, seed and snapshot of the build with what reads each of its columns."""
    with paused_gc():  # a tuple per column and per reader, no cycles
        return [node_from_row(row) for row in reads.column_readers()]


def find_unused(view: BuildView, models: list[str] | None = None, end_models: bool = False) -> UnusedAnswer:
    """The unused columns of build ``view.build_id``: of every model, or of ``models`` (names or
    unique ids, as ``catalog unused orders stg_payments`` takes them)."""
    from catalog.store.report_reads import BuildReads

    nodes = read_nodes(BuildReads(view.graph, view.project, view.build_id))
    found = unused_columns(nodes, end_models)
    asked = tuple(dict.fromkeys(_node(nodes, name, f"in project {view.project!r} (build {view.build_id})") for name in models or ()))
    if asked:
        found = [m for m in found if m.unique_id in asked]
    return UnusedAnswer(project=view.project, build=view.build_id, end_models=end_models, asked=asked, models=tuple(found))


def _node(nodes: list[ReadNode], text: str, where: str) -> str:
    """The unique id of the model, seed or snapshot ``text`` names (its name or unique id, any case)."""
    wanted = text.strip().lower()
    hits = sorted({n.unique_id for n in nodes if wanted in (n.name.lower(), n.unique_id.lower())})
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise Ambiguous(f"{text!r} is ambiguous; name one of: {', '.join(hits)}")
    close = difflib.get_close_matches(wanted, sorted({n.name.lower() for n in nodes}), n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise NotFound(f"no model, seed or snapshot {text!r} {where} (sources are not judged){hint}")
