"""The references in a BI tool's SQL snippet: ``${TABLE}.col``, ``${field}``, ``${view.field}``
placeholders and the bare column names around them, found by parsing the snippet with sqlglot
once each placeholder is replaced by a name it can parse."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp, parse_one
from sqlglot.errors import SqlglotError

PLACEHOLDER = re.compile(r"\$\{\s*([^}]*?)\s*\}")
_TABLE = "__bi_table__"


@dataclass(frozen=True)
class SqlRefs:
    fields: tuple[str, ...]  # the placeholders other than ${TABLE}, as written inside ${}: amount, customers.first_name
    table_columns: tuple[str, ...]  # ${TABLE}.col
    bare_columns: tuple[str, ...]  # col, written without a table
    error: str = ""  # the snippet did not parse: why


def sql_refs(sql: str, dialect: str | None, table_word: str = "TABLE") -> SqlRefs:
    """The references of ``sql``; ``table_word``: what names the field's own table (Lightdash
    and LookML: ``TABLE``)."""
    fields: list[str] = []

    def swap(m: re.Match[str]) -> str:
        inner = m.group(1)
        if inner == table_word:
            return _TABLE
        fields.append(inner)
        return f"__bi_ref_{len(fields) - 1}__"

    text = PLACEHOLDER.sub(swap, sql)
    try:
        tree = parse_one(text, read=dialect or None)
    except (SqlglotError, ValueError) as e:
        return SqlRefs(tuple(fields), (), (), f"SQL not parsed: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
    table_columns: list[str] = []
    bare: list[str] = []
    for col in tree.find_all(exp.Column):
        name, table = col.name, col.table
        if table == _TABLE:
            table_columns.append(name.lower() if not col.this.quoted else name)
        elif not table and name == _TABLE:
            continue
        elif not table and not name.startswith("__bi_ref_"):
            bare.append(name.lower() if not col.this.quoted else name)
    return SqlRefs(tuple(fields), tuple(dict.fromkeys(table_columns)), tuple(dict.fromkeys(bare)))
