"""The lineage as plain data: the ``catalog lineage --json`` document.

Shape (sorted keys and lists, for stable diffs)::

    {"project": ..., "dialect": ..., "warnings": [{"code", "message", "models"}, ...],
     "models": {"<unique_id>": {"status": ..., "reason": ...,
        "columns": {"<column>": {"type": ..., "resolved": true, "expr": "...",
                                 "sources": ["<upstream unique_id>.<column>", ...]}},
        "conditions": [{"column": "<upstream unique_id>.<column>", "clause": "where"}]}}}
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TextIO

from catalog.analyze.records import ModelLineage


def model_to_dict(m: ModelLineage) -> dict[str, Any]:
    columns: dict[str, Any] = {}
    for c in m.columns:
        entry: dict[str, Any] = {
            "type": c.kind.value,
            "resolved": c.resolved,
            "expr": c.expr,
            "sources": sorted(s.key for s in c.sources),
        }
        if c.reason:
            entry["reason"] = c.reason
        columns[c.name] = entry
    conditions = sorted(
        ({"column": c.column.key, "clause": c.clause.value} for c in m.conditions),
        key=lambda d: (d["column"], d["clause"]),
    )
    return {
        "status": m.status.value,
        "reason": m.reason,
        "columns": dict(sorted(columns.items())),
        "conditions": conditions,
    }


def lineage_document(
    project: str, dialect: str, lineages: dict[str, ModelLineage], warnings: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "project": project,
        "dialect": dialect,
        "warnings": warnings or [],
        "models": {uid: model_to_dict(m) for uid, m in sorted(lineages.items())},
    }


def write_lineage_json(
    out: TextIO,
    project: str,
    dialect: str,
    lineages: dict[str, ModelLineage],
    warnings: list[dict[str, Any]] | None = None,
    fast: bool | None = None,
) -> None:
    """:func:`lineage_document` as indented JSON text on ``out``, ending with a newline.

    With orjson (the ``fast`` extra; ``fast=None``: when it is installed) each model is made
    and encoded on its own and written at once: a whole project's lineage is never one
    document in memory, and 19 MB of it are encoded in hundredths of a second instead of half
    a second. The text is byte for byte the json module's (``fast=False``, what runs without
    orjson): the same indentation, and every character outside printable ASCII escaped.
    """
    encode = _orjson_encoder() if fast is not False else None
    if encode is None:
        if fast:
            raise RuntimeError("fast=True needs orjson (the 'fast' extra)")
        json.dump(lineage_document(project, dialect, lineages, warnings), out, indent=2, default=str)
        out.write("\n")
        return
    out.write(
        f'{{\n  "project": {encode(project, 1)},\n  "dialect": {encode(dialect, 1)},\n'
        f'  "warnings": {encode(warnings or [], 1)},\n  "models": '
    )
    if not lineages:
        out.write("{}\n}\n")
        return
    separator = "{\n    "
    for uid, m in sorted(lineages.items()):
        out.write(f"{separator}{encode(uid, 2)}: {encode(model_to_dict(m), 2)}")
        separator = ",\n    "
    out.write("\n  }\n}\n")


Encoder = Callable[[Any, int], str]
_BEYOND_ASCII = re.compile(r"[^\x00-\x7e]")  # what the json module escapes besides quote, backslash, controls


def _orjson_encoder() -> Encoder | None:
    """A function of (value, nesting depth) to the json module's indented text of the value,
    through orjson; None without orjson."""
    try:
        import orjson
    except ImportError:
        return None
    option = orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS

    def encode(value: Any, depth: int) -> str:
        try:
            data = orjson.dumps(value, default=str, option=option)
        except orjson.JSONEncodeError:  # a lone surrogate, an integer beyond 64 bits, a key not a string
            text = json.dumps(value, indent=2, default=str)
        else:
            text = data.decode("utf-8")
            if not data.isascii() or b"\x7f" in data:
                text = _BEYOND_ASCII.sub(_escaped, text)
        # a newline only ever separates structure (one in a string is written \n): indent each
        return text.replace("\n", "\n" + "  " * depth) if depth else text

    return encode


def _escaped(match: re.Match[str]) -> str:
    """A character as the json module escapes it: \\uXXXX, a surrogate pair beyond the BMP."""
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"
