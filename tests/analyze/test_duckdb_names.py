"""Every DuckDB case of ``tests/analyze/cases/`` run in a real DuckDB: the output columns the
analysis names are the ones DuckDB creates (``CREATE TABLE ... AS`` the case's SQL), so the
name rules (lateral aliases, ``name_1`` for a name given twice, star expansion, ...) are the
engine's, not ours.

Each relation of the case's schema becomes an empty view of its columns, all of one type:
untyped NULL first (DuckDB casts it to what a function wants), else INTEGER, VARCHAR,
TIMESTAMP, a list or JSON, the first DuckDB binds the SQL with. Cases DuckDB cannot run are
those ``not_runnable`` names (a relation of unknown columns, a file read) and those whose
expected lineage has an unresolved column, which DuckDB may refuse (an ambiguous or missing
name); any other refusal fails the test.
"""

from __future__ import annotations

import duckdb  # the test extra
import pytest
import sqlglot
from sqlcases import Case, all_cases, run_case
from sqlglot import exp

from catalog.analyze.relations import EPHEMERAL_PREFIX, split_relation

DUCKDB_CASES = [c for c in all_cases() if c.dialect == "duckdb"]
COLUMN_TYPES = ("NULL", "INTEGER", "VARCHAR", "TIMESTAMP", "INTEGER[]", "JSON")
MODEL_TABLE = "catalog_case_model"


def not_runnable(case: Case) -> str | None:
    """Why DuckDB cannot create the case's relations, or None."""
    relations = relations_of(case)
    if any(cols is None for cols in relations.values()):
        return "a relation of unknown columns"
    if any(rel.startswith("'") or "(" in rel for rel in relations):
        return "reads a file"
    if case.status in ("failed", "unresolved") and not case.columns:
        return "the analysis gives no columns"
    return None


def relations_of(case: Case) -> dict[str, list[str] | None]:
    relations: dict[str, list[str] | None] = dict(case.schema)
    for spec in case.nodes.values():
        if spec.get("relation"):
            relations[spec["relation"]] = spec.get("columns")
    if case.this:
        relations[case.this] = case.output
    for name, columns in case.ephemeral.items():  # read by name where the SQL does not inline it
        relations.setdefault(EPHEMERAL_PREFIX + name, columns)
    return relations


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def create_relations(con: "duckdb.DuckDBPyConnection", case: Case, column_type: str) -> None:
    relations = {split_relation(r): (r, cols) for r, cols in relations_of(case).items()}
    for database in sorted({parts[0] for parts in relations if len(parts) == 3}):
        con.execute(f"ATTACH ':memory:' AS {_ident(database)}")
        con.execute(f"USE {_ident(database)}")  # two-part names resolve in it, as dbt's target does
    for parts, (relation, columns) in relations.items():
        if len(parts) >= 2:
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {'.'.join(map(_ident, parts[:-1]))}")
        cols = ", ".join(f"{_null_of(case.types.get(f'{relation}.{c}', column_type))} AS {_ident(c)}" for c in columns or [])
        con.execute(f"CREATE VIEW {'.'.join(map(_ident, parts))} AS SELECT {cols} WHERE false")


def _null_of(column_type: str) -> str:
    return "NULL" if column_type == "NULL" else f"CAST(NULL AS {column_type})"


def created_table(sql: str) -> tuple[str, str]:
    """The statement that creates the model's table of the case's SQL, and the table's name."""
    statement = sqlglot.parse(sql, read="duckdb")[-1]
    if isinstance(statement, exp.Create):  # compiled SQL that creates its own table
        table = statement.this
        schema = ".".join(_ident(p.name) for p in table.parts[:-1])
        return (f"CREATE SCHEMA IF NOT EXISTS {schema}; " if schema else "") + sql, table.sql(dialect="duckdb")
    return f"CREATE TABLE {MODEL_TABLE} AS {sql.rstrip().rstrip(';')}", MODEL_TABLE


def duckdb_columns(case: Case) -> list[str] | None:
    """The columns DuckDB gives the table it creates of the case's SQL; None when DuckDB
    refuses the SQL and the case expects an unresolved column."""
    create, table = created_table(case.sql)
    errors: list[str] = []
    for column_type in COLUMN_TYPES:
        con = duckdb.connect()
        con.execute("SET lambda_syntax = 'ENABLE_SINGLE_ARROW'")  # x -> x + 1, as DuckDB before 1.3 wrote it
        try:
            create_relations(con, case, column_type)
            con.execute(create)
            return [row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()]
        except duckdb.Error as e:
            errors.append(f"{column_type} columns: {str(e).splitlines()[0]}")
        finally:
            con.close()
    if any(not c.resolved for c in case.columns):
        return None
    raise AssertionError(f"{case.id}: DuckDB refuses the SQL:\n  " + "\n  ".join(errors))


RUNNABLE = [c for c in DUCKDB_CASES if not_runnable(c) is None]


def test_most_duckdb_cases_run_in_duckdb() -> None:
    assert len(DUCKDB_CASES) >= 150
    assert len(RUNNABLE) >= 0.8 * len(DUCKDB_CASES), sorted({not_runnable(c) for c in DUCKDB_CASES} - {None})


@pytest.mark.parametrize("case", RUNNABLE, ids=[c.id for c in RUNNABLE])
def test_duckdb_names_the_columns_as_the_analysis_does(case: Case) -> None:
    created = duckdb_columns(case)
    if created is None:  # DuckDB refuses what the analysis cannot resolve either
        return
    ours = [c.name for c in run_case(case).columns]
    theirs = [name.lower() for name in created]
    assert ours == theirs, f"{case.id}: the analysis names {ours}, DuckDB creates {theirs}"
