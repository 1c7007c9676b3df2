"""The one place node keys are formatted. Keys are unique across projects in one database."""

from __future__ import annotations


def model_node_key(project: str, unique_id: str) -> str:
    return f"{project}/{unique_id}"


def column_node_key(project: str, unique_id: str, column: str) -> str:
    return f"{project}/{unique_id}.{column.lower()}"


def short_label(key: str) -> str:
    """A column key as people write it: ``proj/model.pkg.orders.amount`` -> ``orders.amount``,
    ``source.pkg.shop.orders.id`` -> ``shop.orders.id``; the ``<project>/`` prefix is optional."""
    uid_col = key.split("/", 1)[-1]
    parts = uid_col.split(".")
    return ".".join(parts[2:]) if len(parts) >= 3 else uid_col
