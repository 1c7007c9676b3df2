"""Indented JSON text of answers and reports, the same document with or without orjson.

With orjson (the ``fast`` extra) a large answer or report is encoded about ten times faster;
without it, or for what orjson cannot hold (an integer beyond 64 bits), the json module
writes it. Either way values JSON has no type for are written as their ``str()``, and the
text ends with a newline. Only non-ASCII text differs: orjson writes it as UTF-8, the json
module escapes it.
"""

from __future__ import annotations

import json
from typing import Any


def json_text(data: Any) -> str:
    """``data`` as indented JSON text, ending with a newline."""
    try:
        import orjson
    except ImportError:
        orjson = None  # type: ignore[assignment]
    if orjson is not None:
        option = (
            orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS
            | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS  # as str(), like the json module
        )  # fmt: skip
        try:
            return orjson.dumps(data, default=str, option=option).decode("utf-8")
        except orjson.JSONEncodeError:
            pass
    return json.dumps(data, indent=2, default=str) + "\n"
