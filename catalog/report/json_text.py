"""Indented JSON text of answers and reports, the same document with or without orjson.

With orjson (the ``fast`` extra) a large answer or report is encoded about ten times faster;
without it, or for what orjson cannot hold (an integer beyond 64 bits), the json module
writes it. Either way values JSON has no type for are written as their ``str()``, and the
text ends with a newline. Only non-ASCII text differs: orjson writes it as UTF-8, the json
module escapes it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any, TextIO


def json_text(data: Any) -> str:
    """``data`` as indented JSON text, ending with a newline."""
    return _encoder(newline=True)(data, 0)


def write_json(out: TextIO, data: Any) -> None:
    """:func:`json_text` of ``data`` written on ``out`` as it is made: where ``data`` (or a
    dict in it, at any depth) holds an iterator, its items are written as a JSON list as it
    yields them, a few hundred at a time, so a report of millions of rows is never one text in
    memory. The text is :func:`json_text`'s of the same data with each iterator a list (an
    iterator's items are plain data: an iterator in them is not read)."""
    _write(out, data, 0, _encoder(newline=False))
    out.write("\n")


Encoder = Callable[[Any, int], str]  # (value, nesting depth) -> its indented text
BATCH = 500  # items of an iterator encoded at once


def _streams(value: Any) -> bool:
    return isinstance(value, Iterator) or (isinstance(value, dict) and any(_streams(v) for v in value.values()))


def _write(out: TextIO, value: Any, depth: int, encode: Encoder) -> None:
    if isinstance(value, Iterator):
        # each batch encoded as a list at this depth, written without its brackets
        indent = "  " * depth
        opening = "["
        while batch := list(itertools.islice(value, BATCH)):
            out.write(opening + encode(batch, depth)[1 : -len(indent) - 2])
            opening = ","
        out.write("[]" if opening == "[" else f"\n{indent}]")
    elif isinstance(value, dict) and _streams(value):
        inner = "\n" + "  " * (depth + 1)
        separator = "{" + inner
        for key, item in value.items():
            out.write(f"{separator}{encode(key, 0)}: ")
            _write(out, item, depth + 1, encode)
            separator = "," + inner
        out.write("\n" + "  " * depth + "}")
    else:
        out.write(encode(value, depth))


def _encoder(newline: bool) -> Encoder:
    """A function of (value, nesting depth) to the value's indented JSON text, its lines after
    the first indented for that depth; ending with a newline if ``newline``."""
    try:
        import orjson
    except ImportError:
        orjson = None  # type: ignore[assignment]
    option = 0
    if orjson is not None:
        option = (
            orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
            | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS  # as str(), like the json module
            | (orjson.OPT_APPEND_NEWLINE if newline else 0)
        )  # fmt: skip

    def encode(value: Any, depth: int) -> str:
        text = None
        if orjson is not None:
            try:
                text = orjson.dumps(value, default=str, option=option).decode("utf-8")
            except orjson.JSONEncodeError:
                pass
        if text is None:
            text = json.dumps(value, indent=2, default=str) + ("\n" if newline else "")
        # a newline only ever separates structure (one in a string is written \n): indent each
        return text.replace("\n", "\n" + "  " * depth) if depth else text

    return encode
