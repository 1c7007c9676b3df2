"""The one place that puts user data into Markdown (pull-request comments, the governance report).

Names and SQL are shown as written, never read as Markdown or HTML. Names and
expressions go into code spans (:func:`code`); free text such as descriptions and
reasons into escaped text (:func:`text`). Both are safe inside a GitHub table cell:
a ``|`` never splits a cell and a newline never ends a row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_BACKTICKS = re.compile(r"`+")
_LINE_BREAK = re.compile(r"\r\n?|\n")
_WHITESPACE_RUN = re.compile(r"\s+")
# characters Markdown reads as syntax inside a line; ``_`` only where it can start or end emphasis
_SYNTAX = re.compile(r"[\\`*\[\]|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def code(value: Any, table: bool = True) -> str:
    """``value`` as an inline code span: backticks inside are fenced by a longer run, line
    breaks become spaces (a code span shows them so anyway), and in a table cell ``|`` is
    escaped (GitHub reads the escape before the code span). Empty for an empty value."""
    raw = "" if value is None else str(value)
    raw = _WHITESPACE_RUN.sub(" ", raw) if "\n" in raw or "\r" in raw else raw
    if not raw:
        return ""
    if table:
        raw = raw.replace("|", "\\|")
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(raw)), default=0) + 1)
    pad = " " if raw.startswith(("`", " ")) or raw.endswith(("`", " ")) else ""
    return f"{fence}{pad}{raw}{pad}{fence}"


def text(value: Any) -> str:
    """``value`` as plain text: Markdown syntax characters escaped, ``& < >`` as entities
    (so ``<b>`` is shown, not rendered), line breaks as ``<br>``."""
    raw = "" if value is None else str(value)
    escaped = _SYNTAX.sub(lambda m: "\\" + m.group(0), raw)
    escaped = "".join(_HTML.get(ch, ch) for ch in escaped)
    return "<br>".join(part.strip() for part in _LINE_BREAK.split(escaped.strip()))


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> list[str]:
    """A GitHub table: ``header`` and ``rows`` already escaped; ``align`` one ``l`` or ``r`` per column."""
    aligns = align or "l" * len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if a == "r" else "---" for a in aligns) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines
