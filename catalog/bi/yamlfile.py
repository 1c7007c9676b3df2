"""YAML read with the line of every mapping, so that a BI field is stored with where it is
written. A file that does not parse is one :class:`~catalog.errors.ArtifactError` naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from catalog.errors import ArtifactError


class Lined(dict):
    """A YAML mapping that knows the (1-based) line it starts at, and that of each key."""

    line: int | None = None
    key_lines: dict[str, int] = {}


class _Loader(yaml.SafeLoader):
    pass


def _mapping(loader: _Loader, node: yaml.MappingNode) -> Lined:
    out = Lined(loader.construct_mapping(node, deep=True))
    out.line = node.start_mark.line + 1
    out.key_lines = {str(k.value): k.start_mark.line + 1 for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def read_yaml(path: Path) -> Any:
    """The YAML document of ``path``, its mappings :class:`Lined`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ArtifactError(f"{path}: cannot be read ({e})") from None
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ArtifactError(f"{path}:{where}: not valid YAML ({problem})") from None


def line_of(value: Any, key: str | None = None) -> int | None:
    """The line ``value`` (a mapping) starts at; with ``key``, the line of that key in it."""
    if not isinstance(value, Lined):
        return None
    return value.key_lines.get(key) if key is not None else value.line
