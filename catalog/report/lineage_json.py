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
import tempfile
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from catalog.analyze.packed import Packed, pack
from catalog.analyze.records import ModelLineage, column_key


def model_to_dict(m: ModelLineage) -> dict[str, Any]:
    return packed_to_dict(pack(m))


def packed_to_dict(m: Packed) -> dict[str, Any]:
    """A model's entry of the document, from its lineage in the form of :mod:`catalog.analyze.packed`."""
    _, status, reason, cols, conds = m[:5]
    columns: dict[str, Any] = {}
    for name, kind, resolved, expr, sources, why in cols:
        entry: dict[str, Any] = {
            "type": kind,
            "resolved": resolved,
            "expr": expr,
            "sources": sorted(column_key(u, c) for u, c in sources),
        }
        if why:
            entry["reason"] = why
        columns[name] = entry
    conditions = sorted(
        ({"column": column_key(u, c), "clause": clause} for u, c, clause in conds),
        key=lambda d: (d["column"], d["clause"]),
    )
    return {
        "status": status,
        "reason": reason,
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
    lineages: dict[str, ModelLineage] | Iterable[Packed],
    warnings: list[dict[str, Any]] | None = None,
    fast: bool | None = None,
) -> int:
    """:func:`lineage_document` as indented JSON text on ``out``, ending with a newline; returns
    the number of models written.

    ``lineages``: the records by unique id, or the packed lineages in any order as the analysis
    yields them (:func:`catalog.analyze.project.analyze_project_packed`). Each model is encoded
    as it comes and its text kept in a temporary file (in memory while it is small), then the
    texts are written on ``out`` sorted by unique id: a whole project's lineage is never in
    memory, and nothing is written until every model has come (a failure before leaves
    ``out`` untouched). With orjson (the ``fast`` extra; ``fast=None``: when it is installed)
    19 MB of it are encoded in hundredths of a second instead of half a second. The text is
    byte for byte the json module's (``fast=False``, what runs without orjson): the same
    indentation, and every character outside printable ASCII escaped.
    """
    encode = _orjson_encoder() if fast is not False else None
    if encode is None:
        if fast:
            raise RuntimeError("fast=True needs orjson (the 'fast' extra)")
        encode = _json_encode
    packed = (pack(m) for m in lineages.values()) if isinstance(lineages, dict) else lineages
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as pieces:
        where: dict[str, tuple[int, int]] = {}  # unique id -> offset and length of its text
        offset = 0
        for m in packed:
            text = f"{encode(m[0], 2)}: {encode(packed_to_dict(m), 2)}".encode()
            where[m[0]] = (offset, len(text))
            offset += pieces.write(text)
        out.write(
            f'{{\n  "project": {encode(project, 1)},\n  "dialect": {encode(dialect, 1)},\n'
            f'  "warnings": {encode(warnings or [], 1)},\n  "models": '
        )
        if not where:
            out.write("{}\n}\n")
            return 0
        separator = "{\n    "
        for uid in sorted(where):
            start, length = where[uid]
            pieces.seek(start)
            out.write(separator + pieces.read(length).decode())
            separator = ",\n    "
    out.write("\n  }\n}\n")
    return len(where)


SPOOL_BYTES = 32 * 1024 * 1024  # models' texts kept in memory up to this size, then in a file


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
            return _json_encode(value, depth)
        else:
            text = data.decode("utf-8")
            if not data.isascii() or b"\x7f" in data:
                text = _BEYOND_ASCII.sub(_escaped, text)
        # a newline only ever separates structure (one in a string is written \n): indent each
        return text.replace("\n", "\n" + "  " * depth) if depth else text

    return encode


def _json_encode(value: Any, depth: int) -> str:
    """The json module's indented text of a value at a nesting depth."""
    text = json.dumps(value, indent=2, default=str)
    return text.replace("\n", "\n" + "  " * depth) if depth else text


def _escaped(match: re.Match[str]) -> str:
    """A character as the json module escapes it: \\uXXXX, a surrogate pair beyond the BMP."""
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"
