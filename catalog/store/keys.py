"""The one place node keys are formatted. Keys are unique across projects in one database."""

from __future__ import annotations


def model_node_key(project: str, unique_id: str) -> str:
    return f"{project}/{unique_id}"


def column_node_key(project: str, unique_id: str, column: str) -> str:
    return f"{project}/{unique_id}.{column.lower()}"
