"""Column names as the database tells them apart: the one rule every stage names columns by.

A column has one name in keys, records, answers and goldens. Two columns the database tells
apart get two names; two spellings the database reads as one column get one name:

- an unquoted identifier folds as the dialect folds it (lower case in Postgres, upper case in
  Snowflake and Oracle); a quoted one keeps its case; in a case-insensitive dialect (DuckDB,
  BigQuery, Redshift, Databricks, ...) case never tells two columns apart, quoted or not;
- a name equal to its fold is written lower case (``id``, as before: Snowflake's ``ID`` too);
- a name that differs from its fold (Postgres's ``"ID"``, Snowflake's ``"id"``) is written
  in double quotes, exactly, ``"`` doubled inside: ``"ID"``. So the name itself says whether
  its case matters, and two different columns never share a name.

catalog.json reports names as the database stores them, so they are read as quoted names;
YAML names as unquoted ones (dbt's ``quote: true`` aside).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

# how a dialect compares column names
LOWER = "lower"  # unquoted fold to lower case, quoted keep case (Postgres)
UPPER = "upper"  # unquoted fold to upper case, quoted keep case (Snowflake, Oracle)
SENSITIVE = "sensitive"  # no folding: case always matters (ClickHouse)
INSENSITIVE = "insensitive"  # case never matters, quoted or not (DuckDB, BigQuery, Redshift, ...)

# sqlglot's strategy is about every identifier; column names of these are compared without case
_COLUMNS_INSENSITIVE = frozenset({"mysql"})

# case_rule() of every dialect of the pinned sqlglot, so that commands that only name columns
# (impact, trace, ...) do not import sqlglot for it; tests/test_idents.py checks it against sqlglot
KNOWN_RULES = {
    "athena": INSENSITIVE, "bigquery": INSENSITIVE, "clickhouse": SENSITIVE, "databricks": INSENSITIVE,
    "dax": LOWER, "doris": SENSITIVE, "dremio": LOWER, "drill": LOWER, "druid": LOWER, "duckdb": INSENSITIVE,
    "dune": INSENSITIVE, "exasol": UPPER, "fabric": SENSITIVE, "hive": INSENSITIVE, "materialize": LOWER,
    "mysql": INSENSITIVE, "oracle": UPPER, "postgres": LOWER, "presto": INSENSITIVE, "prql": LOWER,
    "redshift": INSENSITIVE, "risingwave": LOWER, "snowflake": UPPER, "solr": INSENSITIVE, "spark": INSENSITIVE,
    "spark2": INSENSITIVE, "sqlite": INSENSITIVE, "starrocks": SENSITIVE, "tableau": LOWER, "teradata": LOWER,
    "trino": INSENSITIVE, "tsql": INSENSITIVE,
}  # fmt: skip


@lru_cache(maxsize=None)
def case_rule(dialect: str | None) -> str:
    """How ``dialect`` compares column names (sqlglot's normalization strategy)."""
    if not dialect or dialect in _COLUMNS_INSENSITIVE:
        return INSENSITIVE
    if dialect in KNOWN_RULES:
        return KNOWN_RULES[dialect]
    return sqlglot_case_rule(dialect)


def sqlglot_case_rule(dialect: str) -> str:
    """:func:`case_rule` as sqlglot's normalization strategy for ``dialect`` says it."""
    if dialect in _COLUMNS_INSENSITIVE:
        return INSENSITIVE
    from sqlglot.dialects.dialect import Dialect, NormalizationStrategy

    try:
        strategy = Dialect.get_or_raise(dialect).normalization_strategy
    except ValueError:
        return INSENSITIVE
    if strategy == NormalizationStrategy.LOWERCASE:
        return LOWER
    if strategy == NormalizationStrategy.UPPERCASE:
        return UPPER
    if strategy == NormalizationStrategy.CASE_SENSITIVE:
        return SENSITIVE
    return INSENSITIVE


def exact(name: str) -> str:
    """A name whose case matters, as it is written: ``"ID"``."""
    return '"' + name.replace('"', '""') + '"'


def is_exact(name: str) -> bool:
    """Whether a column name (as :func:`column_name` makes it) is one whose case matters."""
    return len(name) >= 2 and name[0] == '"' and name[-1] == '"'


def unquoted(name: str) -> str:
    """The name as the database stores it, without the quotes of :func:`exact`."""
    return name[1:-1].replace('""', '"') if is_exact(name) else name


def column_name(name: str, dialect: str | None, quoted: bool = False) -> str:
    """The one name of a column written ``name`` (``quoted``: in double quotes) in ``dialect``."""
    return namer(dialect)(name, quoted)


def stored_name(name: str, dialect: str | None) -> str:
    """The name of a column the database reports as ``name`` (catalog.json): taken as it is."""
    return namer(dialect)(name, True)


@lru_cache(maxsize=None)
def namer(dialect: str | None) -> Callable[[str, bool], str]:
    """:func:`column_name` for one dialect, made once (the analyzer names every reference)."""
    rule = case_rule(dialect)
    if rule == INSENSITIVE:
        return lambda name, quoted: name.lower()
    fold = str.upper if rule == UPPER else str.lower

    def name_of(name: str, quoted: bool) -> str:
        if not quoted and rule != SENSITIVE:
            return name.lower()
        if name == fold(name):
            return name.lower()
        return exact(name)

    return name_of


def typed(text: str) -> str:
    """A column name as a user, a golden file or an earlier stage wrote it: a name in double
    quotes is kept exactly (its case matters), any other is compared lower case."""
    return text if is_exact(text) else text.lower()


def typed_key(key: str) -> str:
    """A column key ``<unique_id>.<column>`` as :func:`typed` compares names: the unique id
    lower case, the column kept exactly when it is in double quotes."""
    split = split_quoted_column(key)
    return f"{split[0].lower()}.{exact(split[1])}" if split is not None else key.lower()


def split_quoted_column(text: str) -> tuple[str, str] | None:
    """``MODEL."col"`` -> (``MODEL``, ``col``): a last part in double quotes, taken exactly.
    None when the text does not end in a quoted part."""
    if len(text) < 3 or not text.endswith('"'):
        return None
    i = len(text) - 2
    while i >= 0:  # back to the opening quote, stepping over doubled ones
        if text[i] == '"':
            if i > 0 and text[i - 1] == '"':
                i -= 2
                continue
            break
        i -= 1
    if i < 1 or text[i - 1] != ".":
        return None
    return text[: i - 1], text[i + 1 : -1].replace('""', '"')
