"""The one place node keys are formatted. Keys are unique across projects in one database."""

from __future__ import annotations

import re

from catalog.idents import is_exact, split_quoted_column, typed

__all__ = ["split_quoted_column"]

_PLAIN_COLUMN = re.compile(r"[a-z_][a-z0-9_$]*")


def model_node_key(project: str, unique_id: str) -> str:
    return f"{project}/{unique_id}"


def column_node_key(project: str, unique_id: str, column: str) -> str:
    return f"{project}/{unique_id}.{typed(column)}"


def unscoped_key(key: str, project: str) -> str:
    """A node key without its ``<project>/`` prefix: ``<unique_id>`` or ``<unique_id>.<column>``.
    The project is named, not guessed from the first ``/``: a project name may hold one."""
    prefix = f"{project}/"
    return key[len(prefix) :] if key.startswith(prefix) else key


def scoped_key(key: str, project: str) -> str:
    """A key ``<unique_id>`` or ``<unique_id>.<column>`` as the graph keys it: with ``<project>/``."""
    return f"{project}/{key}"


_FOREIGN_KEY = re.compile(r"(.+)/((?:model|seed|snapshot|source|semantic_model|metric|exposure|saved_query)\..+)")


def short_label(key: str, project: str | None = None) -> str:
    """A column key as people write it: ``model.pkg.orders.amount`` -> ``orders.amount``,
    ``source.pkg.shop.orders.id`` -> ``shop.orders.id``; with ``project``, the key may
    carry that project's ``<project>/`` prefix, and another project's key is named with its
    project: ``finance:customer_revenue.email`` (dbt Mesh)."""
    uid_col = unscoped_key(key, project) if project is not None else key
    foreign = _FOREIGN_KEY.fullmatch(uid_col) if project is not None and uid_col is key else None
    if foreign is not None:
        return f"{foreign.group(1)}:{short_label(foreign.group(2))}"
    parts = uid_col.split(".")
    return ".".join(parts[2:]) if len(parts) >= 3 else uid_col


def quote_column(name: str) -> str:
    """A column name as users type it after ``MODEL.``: bare when it is a plain lower-case
    name, else in double quotes (``"a.b"``), with ``"`` doubled inside. A name whose case
    matters is already written so (``"ID"``, see :mod:`catalog.idents`)."""
    if _PLAIN_COLUMN.fullmatch(name) or is_exact(name):
        return name
    return '"' + name.replace('"', '""') + '"'
