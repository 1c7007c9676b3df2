"""What every part of one model's analysis shares: the model, its dialect's rules, and the
conditions found so far.

The parts of the walk (name resolution, stars, set operations, conditions) are handed one
``ModelContext`` and never the analyzer itself, so each reads as a piece of its own."""

from __future__ import annotations

from catalog.analyze.kinds import ColumnNamer, Lin, Ref, column_namer
from catalog.analyze.records import ConditionClause

# Dialects whose SELECT may use an alias it defined earlier, in its later items and in WHERE,
# GROUP BY, HAVING and QUALIFY: ``select a * 2 as d, d + 1 as e`` (see catalog.analyze.names).
LATERAL_ALIAS_DIALECTS = frozenset({"duckdb", "snowflake", "redshift", "databricks", "spark", "spark2", "clickhouse"})
# ... where such an alias wins over a relation's column of that name (ClickHouse, with its
# default ``prefer_column_name_to_alias = 0``); in the others the column wins.
ALIAS_FIRST_DIALECTS = frozenset({"clickhouse"})
# How a warehouse names the columns of a table or view whose SELECT gives one name twice:
DEDUPING_DIALECTS = frozenset({"duckdb"})  # the later ones become name_1, name_2, ...
# ... or it refuses to create it ("column specified more than once", "duplicate column name")
REFUSING_DIALECTS = frozenset(
    {"postgres", "snowflake", "bigquery", "redshift", "databricks", "spark", "spark2", "trino", "presto", "athena", "mysql", "tsql", "oracle", "clickhouse"}
)
# Dialects where ``col -> 'key'`` extracts a JSON field: sqlglot reads it as a lambda when it is
# a function's argument (``coalesce(col -> 'key', ...)``); the analyzer reads it back as the
# JSON operator it is (see catalog.analyze.model).
JSON_ARROW_DIALECTS = frozenset({"postgres", "duckdb", "mysql", "sqlite", "materialize", "risingwave", "starrocks"})
# Dialects where a FROM item of a set-returning function of one column, ``generate_series(a, b)
# AS x``, names that column ``x``
FUNCTION_ALIAS_DIALECTS = frozenset({"postgres", "duckdb", "materialize", "risingwave"})
# ... where a column of a joined relation is named ``relation.column`` when its name is ambiguous
# (ClickHouse; see SelectScope.qualified_names), and two identical names are refused
QUALIFYING_DIALECTS = frozenset({"clickhouse"})


class ModelContext:
    """One model's analysis: its unique id, its dialect's rules and the conditions found."""

    __slots__ = (
        "unique_id", "dialect", "col", "positional_params", "lateral_aliases", "aliases_first",
        "dedupes", "qualifies", "refuses_duplicates", "names_function_column", "conditions",
    )  # fmt: skip

    def __init__(self, unique_id: str, dialect: str):
        self.unique_id = unique_id
        self.dialect = dialect
        self.col: ColumnNamer = column_namer(dialect)  # the column name an identifier means here
        self.positional_params = dialect == "snowflake"  # $1 is the first column, not a bind parameter
        self.lateral_aliases = dialect in LATERAL_ALIAS_DIALECTS
        self.aliases_first = dialect in ALIAS_FIRST_DIALECTS
        self.dedupes = dialect in DEDUPING_DIALECTS  # names a duplicate output name name_1, ...
        self.qualifies = dialect in QUALIFYING_DIALECTS  # names an ambiguous joined column relation.column
        self.refuses_duplicates = dialect in REFUSING_DIALECTS
        self.names_function_column = dialect in FUNCTION_ALIAS_DIALECTS  # generate_series(...) AS x: column x
        self.conditions: set[tuple[Ref, ConditionClause]] = set()

    def add_conditions(self, lin: Lin, clause: ConditionClause) -> None:
        """The columns ``lin`` depends on filter, join, group or order the model's rows."""
        for ref in lin.influences:
            self.conditions.add((ref, clause))
