"""The columns each dbt test reads.

A generic test with a column and a unit test name theirs in the manifest (extraction keeps
them). A singular test, or a generic test without a plain column (``expression_is_true``, a
column given as an expression, ``unique_combination_of_columns``), is read from its compiled
SQL by the model analyzer, as if it were a model: it reads the columns that decide whether it
returns rows, those in its conditions (WHERE, JOIN, GROUP BY, HAVING, QUALIFY, window) and
those its computed output columns read. A column it only passes to its output
(``select *``, ``select order_id``) shows the failing rows and decides nothing, so it is not
counted, unless the SQL compares rows with EXCEPT / INTERSECT (MINUS): then every column of its
output decides whether a row is left, and all of them count. A test without compiled SQL (a
manifest from ``dbt parse``) reads no known column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from catalog.analyze.project import ProjectColumns, analyze_node
from catalog.analyze.records import ColumnKind, ColumnRef, ModelLineage
from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtNode, DbtProject, DbtTest

_COPIES = (ColumnKind.PASSTHROUGH, ColumnKind.RENAMED)


def columns_tested(project: DbtProject, analyzed: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[ColumnRef, ...]]:
    """Every test's columns, by the test's unique id, sorted. ``analyzed``: the column names of
    the models analyzed (:func:`~catalog.analyze.records.column_names`), for the columns of
    ephemeral models a test's SQL reads."""
    out: dict[str, tuple[ColumnRef, ...]] = {}
    relations: RelationIndex | None = None
    columns: ProjectColumns | None = None
    for uid, test in sorted(project.tests.items()):
        if test.sql is None:
            refs = {ColumnRef(unique_id=u, column=c) for u, c in test.columns}
        else:
            if relations is None or columns is None:
                relations, columns = RelationIndex.for_project(project), ProjectColumns(project)
                columns.update_analyzed({u: list(names) for u, names in (analyzed or {}).items()})
            analysis = analyze_node(_as_node(test), project.dialect, relations, columns)
            refs = set(decisive_columns(analysis, compares_rows(test.sql, project.dialect)))
        out[uid] = tuple(sorted(refs, key=lambda r: r.key))
    return out


def decisive_columns(lineage: ModelLineage, compares: bool = False) -> list[ColumnRef]:
    """The columns that decide a test's result, from the analysis of its SQL; ``compares``:
    the SQL compares rows (EXCEPT, INTERSECT), so the columns it copies decide too."""
    found = [c.column for c in lineage.conditions]
    found += [src for c in lineage.columns if compares or c.kind not in _COPIES for src in c.sources]
    return found


def compares_rows(sql: str, dialect: str) -> bool:
    """Whether ``sql`` has an EXCEPT / INTERSECT (MINUS) set operation (not BigQuery's
    ``select * except (...)``, which only leaves columns out)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, RecursionError, ValueError):
        return False
    return tree is not None and tree.find(exp.Except, exp.Intersect) is not None


def with_columns(test: DbtTest, refs: tuple[ColumnRef, ...]) -> DbtTest:
    """The test with its columns read (its SQL dropped): the record a build stores."""
    return test.model_copy(update={"columns": tuple((r.unique_id, r.column) for r in refs), "sql": None})


def _as_node(test: DbtTest) -> DbtNode:
    return DbtNode(
        unique_id=test.unique_id,
        resource_type="test",
        package_name=test.unique_id.split(".")[1],
        name=test.name,
        sql=test.sql,
        sql_origin="compiled",
        depends_on=test.depends_on,
    )
