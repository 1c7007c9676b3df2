"""Where ``catalog docs`` writes a column of a versioned model (dbt 1.5+ ``versions:``).

A version's columns are, as dbt resolves them, the entries of its own ``columns:`` list and
the model's top-level ``columns:`` it includes (``include: all`` when it says nothing, else
``include``'s names, minus ``exclude``); an entry of its own replaces the top-level entry of
the same name whole. So a description or PII tag that one version's column inherits goes:

- into the version's own entry when the version declares the column itself or does not
  include it from the top level;
- into the top-level entry (added when missing) when every version that would read that
  entry gets the same text (the same tag), all of them being written in this run;
- else into the version's own list, as a copy of the top-level entry (its tests, type and
  tags kept) with the addition, so that no other version's docs change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from catalog.errors import CatalogError
from catalog.idents import column_name

ALL = ("all", "*")


class VersionColumns(BaseModel, frozen=True):
    """One version's ``columns:``: the names it declares and its include/exclude rule."""

    own: frozenset[str] = frozenset()
    include: frozenset[str] | None = None  # None: every top-level column
    exclude: frozenset[str] = frozenset()

    def reads_top(self, column: str) -> bool:
        """Whether this version's ``column`` is the model's top-level entry of that name."""
        return column not in self.own and (self.include is None or column in self.include) and column not in self.exclude


class VersionLayout(BaseModel, frozen=True):
    """A versioned model's YAML entry: its top-level column names and each version's columns."""

    top: frozenset[str] = frozenset()
    versions: dict[str, VersionColumns] = {}


class Placed(BaseModel, frozen=True):
    """Where one version's addition goes: the model's top-level ``columns:`` (version None)
    or that version's own list (``copy_top``: starting from a copy of the top-level entry)."""

    version: str | None
    copy_top: bool = False


def version_key(v: Any) -> str:
    """A ``v:`` as the manifest's ``version`` and the YAML give it, compared as text."""
    return str(v)


def read_layout(path: Path, model: str, dialect: str) -> VersionLayout:
    """The layout of ``model``'s entry in the YAML file at ``path``."""
    from ruamel.yaml import YAML, YAMLError

    try:
        doc = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError) as e:
        raise CatalogError(f"{path}: cannot read it ({getattr(e, 'strerror', None) or str(e).strip().splitlines()[0]})") from e
    entry = next((m for m in (doc or {}).get("models") or [] if isinstance(m, dict) and m.get("name") == model), None)
    if entry is None:
        raise CatalogError(f"{path}: the manifest says model {model} is documented here, but it is not (run dbt parse again)")
    versions = {}
    for v in entry.get("versions") or []:
        if isinstance(v, dict) and "v" in v:
            versions[version_key(v["v"])] = _version_columns(v.get("columns") or [], dialect)
    return VersionLayout(top=frozenset(_names(entry.get("columns") or [], dialect)), versions=versions)


def _names(columns: list[Any], dialect: str) -> list[str]:
    return [column_name(c["name"], dialect, quoted=bool(c.get("quote"))) for c in columns if isinstance(c, dict) and isinstance(c.get("name"), str)]


def _version_columns(columns: list[Any], dialect: str) -> VersionColumns:
    include: frozenset[str] | None = None
    exclude: frozenset[str] = frozenset()
    for c in columns:
        if isinstance(c, dict) and "include" in c:
            rule = c.get("include")
            include = None if rule in ALL or rule is None else frozenset(column_name(str(n), dialect) for n in rule)
            exclude = frozenset(column_name(str(n), dialect) for n in c.get("exclude") or [])
    return VersionColumns(own=frozenset(_names(columns, dialect)), include=include, exclude=exclude)


def place(
    layout: VersionLayout,
    model: str,
    version: str,
    column: str,
    value: Any,
    value_in: Callable[[str], Any],
) -> Placed:
    """Where version ``version``'s ``value`` (a description, or True for the PII tag) of
    ``column`` goes; ``value_in(w)`` is what version ``w`` of the model gets written for that
    column in this run (None: nothing, or the version is not selected)."""
    own = layout.versions.get(version)
    if own is None:
        raise CatalogError(f"model {model}: the YAML has no version v: {version} (run dbt parse again)")
    if not own.reads_top(column):
        return Placed(version=version)
    readers = [w for w, cols in layout.versions.items() if cols.reads_top(column)]
    if all(value_in(w) == value for w in readers):
        return Placed(version=None)
    return Placed(version=version, copy_top=column in layout.top)


def versions_by_model(versions: dict[str, str], names: dict[str, str]) -> dict[tuple[str, str], str]:
    """(model name, version) -> unique id, for the versioned models among ``names`` (uid -> name)."""
    out: dict[tuple[str, str], str] = {}
    for uid, v in versions.items():
        if uid in names:
            out[(names[uid], v)] = uid
    return out

