"""Load the Cypher files of ``cypher/`` by name. No Cypher text lives in Python files.

An installed package (a wheel, ``pip install .``, pipx) carries them as the package resources
``catalog/queries/``; a source checkout (an editable install) reads the repository's ``cypher/``.

Each file starts with a comment block that lists its parameters (``// Parameters: $a, $b``)
and returned columns; :func:`describe` reads it for ``catalog query --list``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import LiteralString, cast

from catalog.errors import StoreError


def _query_dir() -> Path:
    installed = resources.files("catalog").joinpath("queries")
    if installed.is_dir():
        return Path(str(installed))
    return Path(__file__).resolve().parents[2] / "cypher"


CYPHER_DIR = _query_dir()
_PARAM_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class QueryFile:
    name: str  # e.g. "read/find_impact_downstream"
    summary: str
    parameters: tuple[str, ...]
    returns: str
    text: str


@functools.cache
def load(name: str) -> LiteralString:
    """The text of ``cypher/<name>.cypher``; fails fast when the file is missing."""
    path = CYPHER_DIR / f"{name}.cypher"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise StoreError(f"{path}: query file missing ({e.strerror})") from e
    return cast(LiteralString, text)


def statements(name: str) -> list[LiteralString]:
    """A file of several statements (schema set-up), split at semicolons ending a line."""
    parts = re.split(r";\s*\n", load(name))
    return [cast(LiteralString, p.strip()) for p in parts if _strip_comments(p).strip()]


def describe(name: str) -> QueryFile:
    text = load(name)
    comments = [line[2:].strip() for line in text.splitlines() if line.startswith("//")]
    summary = " ".join(c for c in comments if not c.startswith(("Parameters:", "Returns:")))
    params_line = next((c for c in comments if c.startswith("Parameters:")), "")
    returns = next((c[len("Returns:") :].strip() for c in comments if c.startswith("Returns:")), "")
    body = _strip_comments(text)
    params = tuple(dict.fromkeys(_PARAM_RE.findall(body) or _PARAM_RE.findall(params_line)))
    return QueryFile(name=name, summary=summary, parameters=params, returns=returns, text=text)


def names(prefix: str = "") -> list[str]:
    return sorted(
        str(p.relative_to(CYPHER_DIR).with_suffix("")) for p in CYPHER_DIR.rglob("*.cypher") if str(p.relative_to(CYPHER_DIR)).startswith(prefix)
    )


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
