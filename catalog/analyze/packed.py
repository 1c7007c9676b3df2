"""A model's lineage as plain tuples: what the analyzer builds, and what crosses processes.

Pydantic records cost microseconds each and a large project has hundreds of thousands of
columns and edges, so the analyzer builds this form, worker processes send it as is (plain
tuples pickle several times faster than records), and :func:`unpack` makes the
:class:`~catalog.analyze.records.ModelLineage` once, sharing one ``ColumnRef`` per column.
"""

from __future__ import annotations

from typing import Callable

from catalog.analyze.records import (
    ColumnKind,
    ColumnLineage,
    ColumnRef,
    Condition,
    ConditionClause,
    Definitions,
    ModelLineage,
    ModelStatus,
)

# (name, kind, resolved, expr, ((unique_id, column), ...), reason)
PackedColumn = tuple[str, str, bool, str, tuple[tuple[str, str], ...], "str | None"]
# (unique_id, column, clause)
PackedCondition = tuple[str, str, str]
# (unique_id, status, reason, columns, conditions, definitions, why no definitions)
Packed = tuple[str, str, "str | None", list[PackedColumn], list[PackedCondition], Definitions | None, "str | None"]

RefCache = dict[tuple[str, str], ColumnRef]

_KINDS = {k.value: k for k in ColumnKind}
_STATUSES = {s.value: s for s in ModelStatus}
_CLAUSES = {c.value: c for c in ConditionClause}


def pack(m: ModelLineage) -> Packed:
    return (
        m.unique_id,
        m.status.value,
        m.reason,
        [
            (c.name, c.kind.value, c.resolved, c.expr, tuple((s.unique_id, s.column) for s in c.sources), c.reason)
            for c in m.columns
        ],
        [(c.column.unique_id, c.column.column, c.clause.value) for c in m.conditions],
        m.definitions,
        m.definitions_problem,
    )


def _maker(cls: type) -> Callable[..., object]:
    """A constructor for a record from trusted values, through pydantic's pickling protocol
    (``__setstate__``): what unpickling does, and about twice as fast as ``model_construct``.

    Every record made shares one set of the fields it was given (pydantic's
    ``__pydantic_fields_set__``: 472 bytes a column, most of a large lineage's memory, when each
    has its own): the records are frozen, so nothing adds to it, and a copy
    (``model_copy``) copies it before it changes it."""
    if not cls.model_config.get("frozen"):  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__}: the records made by _maker share a set, and must be frozen")
    fields = set(cls.model_fields)  # type: ignore[attr-defined]
    new = cls.__new__
    setstate = cls.__setstate__  # type: ignore[attr-defined]

    def make(**values: object) -> object:
        obj = new(cls)
        setstate(
            obj,
            {
                "__dict__": values,
                "__pydantic_fields_set__": fields,
                "__pydantic_extra__": None,
                "__pydantic_private__": None,
            },
        )
        return obj

    return make


_make_ref = _maker(ColumnRef)
_make_col = _maker(ColumnLineage)
_make_cond = _maker(Condition)


def unpack(t: Packed, refs: RefCache | None = None) -> ModelLineage:
    """The records of a packed lineage; ``refs`` shares ColumnRefs across calls."""
    uid, status, reason, cols, conds, definitions, definitions_problem = t
    cache: RefCache = {} if refs is None else refs
    make_ref = _make_ref

    def ref(key: tuple[str, str]) -> ColumnRef:
        r = cache.get(key)
        if r is None:
            r = cache[key] = make_ref(unique_id=key[0], column=key[1])  # type: ignore[assignment]
        return r

    make_col = _make_col
    make_cond = _make_cond
    extra = {}
    if definitions is not None or definitions_problem is not None:
        extra = {"definitions": definitions, "definitions_problem": definitions_problem}
    return ModelLineage.model_construct(
        **extra,
        unique_id=uid,
        status=_STATUSES[status],
        reason=reason,
        columns=tuple(
            make_col(name=n, kind=_KINDS[k], resolved=r, expr=e, sources=tuple(map(ref, s)), reason=why)
            for n, k, r, e, s, why in cols
        ),
        conditions=tuple(make_cond(column=ref((u, c)), clause=_CLAUSES[cl]) for u, c, cl in conds),
    )
