"""Score analyzed column lineage against a golden file, and show where they differ.

Two golden shapes are read:

- ours (``examples/coffee_shop/expected_lineage.json``, ``tests/golden/*.lineage.json``)::

    {"models": {uid: {"columns": {col: {"type", "sources": [...]}}, "conditions": [{"column", "clause"}]}}}

- synth_dbt's ``expected_lineage.json``::

    {"nodes": {uid: {"columns": {col: {"type", "upstream": [...], "snapshot_meta"?}}, "conditions": [...]}}}

The ``catalog lineage --json`` document has our shape too, so it can be scored or diffed as
well. Everything is compared case-insensitively (column names, ``uid.column`` keys);
a ``snapshot_meta`` type counts as ``source``.

An edge is ``model.column <- upstream uid.column``; a condition is ``(model, upstream
column, clause)``. Precision and recall are over models the golden lists; models only
one side has are counted apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from catalog.analyze.records import ColumnKind, ConditionClause, ModelLineage
from catalog.errors import CatalogError
from catalog.idents import typed, typed_key


@dataclass(frozen=True)
class ColumnFacts:
    type: str
    sources: frozenset[str]


@dataclass(frozen=True)
class ModelFacts:
    columns: dict[str, ColumnFacts]
    conditions: frozenset[tuple[str, str]]  # (upstream column key, clause)


Lineage = dict[str, ModelFacts]  # unique id -> facts


def _type(raw: Mapping[str, Any]) -> str:
    kind = str(raw.get("type") or "unknown").lower()
    if kind == "snapshot_meta":  # synth_dbt's flag ``snapshot_meta: true`` alone keeps the type
        return "source"
    return kind


def _model_facts(raw: Mapping[str, Any]) -> ModelFacts:
    columns: dict[str, ColumnFacts] = {}
    for name, col in (raw.get("columns") or {}).items():
        ups = col.get("sources")
        if ups is None:
            ups = col.get("upstream") or []
        columns[typed(name)] = ColumnFacts(_type(col), frozenset(typed_key(u) for u in ups))
    conditions = frozenset(
        (typed_key(str(c["column"])), str(c["clause"]).lower()) for c in raw.get("conditions") or []
    )
    return ModelFacts(columns, conditions)


def from_document(doc: Mapping[str, Any]) -> Lineage:
    """Facts of a golden file or ``catalog lineage --json`` document (either shape), checked
    entry by entry: a CatalogError names the first entry that is not lineage."""
    if isinstance(doc.get("models"), Mapping):
        key = "models"
    elif isinstance(doc.get("nodes"), Mapping):
        key = "nodes"
    else:
        raise CatalogError("not a lineage document: expected a 'models' or 'nodes' object")
    models = doc[key]
    if not models:
        raise CatalogError(f"not a lineage document: {key!r} lists no model")
    for uid, m in models.items():
        _check_model(f"{key}.{uid}", m)
    return {uid: _model_facts(m) for uid, m in models.items()}


_TYPES = sorted({k.value for k in ColumnKind} | {"snapshot_meta"})
_CLAUSES = sorted(c.value for c in ConditionClause)


def _check_model(where: str, m: Any) -> None:
    def bad(at: str, what: str) -> CatalogError:
        return CatalogError(f"not a lineage document: {at}: {what}")

    if not isinstance(m, Mapping):
        raise bad(where, "expected an object with 'columns' and 'conditions'")
    columns = m.get("columns")
    columns = {} if columns is None else columns
    if not isinstance(columns, Mapping):
        raise bad(f"{where}.columns", "expected an object of column name -> {type, sources}")
    for name, col in columns.items():
        at = f"{where}.columns.{name}"
        if not isinstance(col, Mapping):
            raise bad(at, "expected an object with 'type' and 'sources' (or 'upstream')")
        if str(col.get("type")).lower() not in _TYPES:
            raise bad(f"{at}.type", f"{col.get('type')!r} is not one of {', '.join(_TYPES)}")
        ups = col["sources"] if "sources" in col else col.get("upstream")
        if not isinstance(ups, list) or not all(isinstance(u, str) for u in ups):
            raise bad(at, "expected 'sources' (or 'upstream'): a list of upstream column names")
    conditions = m.get("conditions")
    conditions = [] if conditions is None else conditions
    if not isinstance(conditions, list):
        raise bad(f"{where}.conditions", "expected a list of {column, clause}")
    for i, c in enumerate(conditions):
        if not isinstance(c, Mapping) or not isinstance(c.get("column"), str):
            raise bad(f"{where}.conditions[{i}]", "expected an object with 'column' and 'clause'")
        if str(c.get("clause")).lower() not in _CLAUSES:
            raise bad(f"{where}.conditions[{i}].clause", f"{c.get('clause')!r} is not one of {', '.join(_CLAUSES)}")


def load_golden(path: Path) -> Lineage:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise CatalogError(f"cannot read golden file {path}: {e}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CatalogError(f"{path} is not JSON: {e}") from e
    if not isinstance(doc, dict):
        raise CatalogError(f"{path}: not a lineage document: expected a JSON object with 'models' or 'nodes'")
    try:
        return from_document(doc)
    except CatalogError as e:
        raise CatalogError(f"{path}: {e}") from None


def from_lineages(lineages: Mapping[str, ModelLineage]) -> Lineage:
    """Facts of the analyzer's records."""
    facts: Lineage = {}
    for uid, m in lineages.items():
        columns = {
            typed(c.name): ColumnFacts(c.kind.value, frozenset(typed_key(s.key) for s in c.sources)) for c in m.columns
        }
        conditions = frozenset((typed_key(c.column.key), c.clause.value) for c in m.conditions)
        facts[uid] = ModelFacts(columns, conditions)
    return facts


# --------------------------------------------------------------------------- scores


@dataclass
class Ratio:
    hits: int = 0
    total: int = 0

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "hits": self.hits, "total": self.total}


@dataclass
class Scores:
    models: int = 0  # models in the golden that were analyzed
    models_missing: list[str] = field(default_factory=list)  # in the golden, not analyzed
    models_extra: list[str] = field(default_factory=list)  # analyzed, not in the golden
    columns_missing: int = 0
    columns_extra: int = 0
    edge_precision: Ratio = field(default_factory=Ratio)
    edge_recall: Ratio = field(default_factory=Ratio)
    type_accuracy: Ratio = field(default_factory=Ratio)
    condition_precision: Ratio = field(default_factory=Ratio)
    condition_recall: Ratio = field(default_factory=Ratio)
    # of the analysis alone: models whose status is resolved, columns whose origin is proved
    models_resolved: Ratio = field(default_factory=Ratio)
    columns_resolved: Ratio = field(default_factory=Ratio)

    def as_dict(self) -> dict[str, Any]:
        return {
            "models_resolved": self.models_resolved.as_dict(),
            "columns_resolved": self.columns_resolved.as_dict(),
            "models": self.models,
            "models_missing": sorted(self.models_missing),
            "models_extra": sorted(self.models_extra),
            "columns_missing": self.columns_missing,
            "columns_extra": self.columns_extra,
            "edge_precision": self.edge_precision.as_dict(),
            "edge_recall": self.edge_recall.as_dict(),
            "type_accuracy": self.type_accuracy.as_dict(),
            "condition_precision": self.condition_precision.as_dict(),
            "condition_recall": self.condition_recall.as_dict(),
        }


def score(actual: Lineage, golden: Lineage) -> Scores:
    s = Scores()
    s.models_extra = [uid for uid in actual if uid not in golden]
    for uid, want in golden.items():
        got = actual.get(uid)
        if got is None:
            s.models_missing.append(uid)
            got = ModelFacts({}, frozenset())
        else:
            s.models += 1
        for name in got.columns.keys() | want.columns.keys():
            g = got.columns.get(name)
            w = want.columns.get(name)
            got_edges = g.sources if g else frozenset()
            want_edges = w.sources if w else frozenset()
            common = len(got_edges & want_edges)
            s.edge_precision.hits += common
            s.edge_precision.total += len(got_edges)
            s.edge_recall.hits += common
            s.edge_recall.total += len(want_edges)
            if g is None:
                s.columns_missing += 1
            elif w is None:
                s.columns_extra += 1
            else:
                s.type_accuracy.total += 1
                s.type_accuracy.hits += g.type == w.type
        common = len(got.conditions & want.conditions)
        s.condition_precision.hits += common
        s.condition_precision.total += len(got.conditions)
        s.condition_recall.hits += common
        s.condition_recall.total += len(want.conditions)
    return s


def resolved_shares(lineages: Mapping[str, ModelLineage], scores: Scores) -> Scores:
    """Fill in the share of resolved models and columns of an analysis."""
    for lineage in lineages.values():
        scores.models_resolved.total += 1
        scores.models_resolved.hits += lineage.status.value == "resolved"
        for col in lineage.columns:
            scores.columns_resolved.total += 1
            scores.columns_resolved.hits += col.resolved
    return scores


# --------------------------------------------------------------------------- differences


@dataclass
class ModelDiff:
    unique_id: str
    lines: list[str]


def diff(actual: Lineage, golden: Lineage, models: Iterable[str] | None = None) -> list[ModelDiff]:
    """Per model, the readable differences: missing/extra columns, edges, types, conditions.

    ``-`` marks what the golden has and the analysis lacks, ``+`` what the analysis adds.
    """
    out: list[ModelDiff] = []
    uids = sorted(models) if models is not None else sorted(actual.keys() | golden.keys())
    for uid in uids:
        got = actual.get(uid)
        want = golden.get(uid)
        if got is None or want is None:
            out.append(ModelDiff(uid, ["model not analyzed" if got is None else "model not in the golden"]))
            continue
        lines: list[str] = []
        for name in sorted(got.columns.keys() | want.columns.keys()):
            g = got.columns.get(name)
            w = want.columns.get(name)
            if g is None:
                lines.append(f"- column {name} ({w.type} <- {', '.join(sorted(w.sources)) or 'nothing'})")  # type: ignore[union-attr]
                continue
            if w is None:
                lines.append(f"+ column {name} ({g.type} <- {', '.join(sorted(g.sources)) or 'nothing'})")
                continue
            if g.type != w.type:
                lines.append(f"  {name}: type {g.type}, golden {w.type}")
            for src in sorted(w.sources - g.sources):
                lines.append(f"- {name} <- {src}")
            for src in sorted(g.sources - w.sources):
                lines.append(f"+ {name} <- {src}")
        for col, clause in sorted(want.conditions - got.conditions):
            lines.append(f"- condition {clause}: {col}")
        for col, clause in sorted(got.conditions - want.conditions):
            lines.append(f"+ condition {clause}: {col}")
        if lines:
            out.append(ModelDiff(uid, lines))
    return out


def format_diff(diffs: list[ModelDiff], limit: int = 60) -> str:
    """The differences as text, at most ``limit`` models (the rest counted)."""
    parts: list[str] = []
    for d in diffs[:limit]:
        parts.append(d.unique_id)
        parts.extend(f"    {line}" for line in d.lines)
    if len(diffs) > limit:
        parts.append(f"... and {len(diffs) - limit} more models differ")
    return "\n".join(parts)


def format_scores(s: Scores) -> str:
    def pct(r: Ratio) -> str:
        return "n/a" if r.value is None else f"{100 * r.value:.2f}% ({r.hits}/{r.total})"

    lines = [
        f"models compared:      {s.models}"
        + (f" ({len(s.models_missing)} in the golden not analyzed)" if s.models_missing else "")
        + (f" ({len(s.models_extra)} analyzed, not in the golden)" if s.models_extra else ""),
        f"edge precision:       {pct(s.edge_precision)}",
        f"edge recall:          {pct(s.edge_recall)}",
        f"type accuracy:        {pct(s.type_accuracy)}",
        f"condition precision:  {pct(s.condition_precision)}",
        f"condition recall:     {pct(s.condition_recall)}",
    ]
    if s.models_resolved.total:
        lines.append(f"models resolved:      {pct(s.models_resolved)}")
        lines.append(f"columns resolved:     {pct(s.columns_resolved)}")
    if s.columns_missing or s.columns_extra:
        lines.append(f"columns missing/extra: {s.columns_missing}/{s.columns_extra}")
    return "\n".join(lines)
