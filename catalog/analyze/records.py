"""What the analyzer produces: per model, per output column, its upstream columns and how.

These records are the contract between ``analyze`` and everything after it (store, the
``catalog lineage`` JSON, tests). Column names are written as :mod:`catalog.idents` says:
lower case, or in double quotes when their case matters (``"ID"`` in Postgres).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from pydantic import BaseModel, ConfigDict

from catalog.idents import typed


class ColumnKind(str, Enum):
    """How an output column relates to the model's inputs (Recce's five types)."""

    PASSTHROUGH = "passthrough"  # bare column, same name
    RENAMED = "renamed"  # bare column, new name (or a rename of a pass-through)
    DERIVED = "derived"  # any expression, aggregate or window function
    SOURCE = "source"  # no upstream column: literals, current_timestamp
    UNKNOWN = "unknown"  # origin could not be proved
    DECLARED = "declared"  # as the model's YAML declares it (a Python model: no SQL to read)


class ModelStatus(str, Enum):
    RESOLVED = "resolved"  # every column resolved
    PARTIAL = "partial"  # some columns unresolved
    UNRESOLVED = "unresolved"  # no column could be resolved, or no SQL to read
    FAILED = "failed"  # the analysis raised, or the warehouse refuses the SQL; see the reason
    EXTERNAL = "external"  # a node of another dbt project (dbt Mesh): that project's build has its lineage
    OPAQUE = "opaque"  # no SQL to read (a Python model): lineage only as its YAML declares it


class ConditionClause(str, Enum):
    """Where a column is used without its value flowing into an output column."""

    WHERE = "where"
    JOIN = "join"
    GROUP_BY = "group_by"
    HAVING = "having"
    QUALIFY = "qualify"
    WINDOW = "window"
    ORDER_BY = "order_by"


class ColumnRef(BaseModel, frozen=True):
    """One column of one dbt node: ``model.shop.orders`` + ``amount``."""

    unique_id: str
    column: str

    @property
    def key(self) -> str:
        return column_key(self.unique_id, self.column)


def column_key(unique_id: str, column: str) -> str:
    """The one way a column is named in keys, JSON and the graph."""
    return f"{unique_id}.{typed(column)}"


class ColumnLineage(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # lower case, or "ID" in double quotes when its case matters (catalog.idents)
    kind: ColumnKind
    resolved: bool
    expr: str  # the SQL expression that produces the column, as written (normalized)
    sources: tuple[ColumnRef, ...] = ()  # sorted
    reason: str | None = None  # why resolved is false


class Condition(BaseModel):
    model_config = ConfigDict(frozen=True)

    column: ColumnRef
    clause: ConditionClause


class Definitions(BaseModel, frozen=True):
    """What a model's SQL says, independent of formatting, comments, aliases and CTE names
    (see :mod:`catalog.analyze.fingerprint`): compared between two versions of a model."""

    rows: str  # hash of everything that decides which rows the model has
    columns: dict[str, str]  # per output column: hash of its value's definition, through CTEs
    # the conditions as written, per SELECT: (the CTE or subquery alias, "" for the model's own
    # SELECT; the clause: WHERE, HAVING, QUALIFY, GROUP BY, JOIN <relation> ON; its SQL)
    clauses: tuple[tuple[str, str, str], ...] = ()


class ModelLineage(BaseModel):
    model_config = ConfigDict(frozen=True)

    unique_id: str
    status: ModelStatus
    reason: str | None = None
    columns: tuple[ColumnLineage, ...] = ()
    conditions: tuple[Condition, ...] = ()  # sorted, unique
    # only when asked for (``analyze_project(fingerprints=...)``), from the analysis's own parse
    definitions: Definitions | None = None
    definitions_problem: str | None = None  # why they could not be made

    def column(self, name: str) -> ColumnLineage | None:
        wanted = typed(name)
        return next((c for c in self.columns if c.name == wanted), None)


def column_names(lineages: Mapping[str, ModelLineage]) -> dict[str, list[str]]:
    """The names of each analyzed model's columns, by unique id: what the analysis of a
    consumer or a test needs of the models it reads."""
    return {uid: [c.name for c in lin.columns] for uid, lin in lineages.items()}
