"""What a build reads before it parses anything: the manifest's head (project name, adapter,
generation time, read without parsing the rest) and the compiled SQL files it depends on."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from catalog.builds.fingerprints import digest
from catalog.errors import ArtifactError
from catalog.extract import DbtProject, read_compiled_file

_METADATA_RE = re.compile(rb'^\s*\{\s*"metadata"\s*:\s*')


def quick_metadata(manifest: bytes) -> dict[str, Any]:
    """The manifest's top-level ``metadata`` object, read from the start of the file without
    parsing the rest (dbt writes it first); empty when it is not there."""
    m = _METADATA_RE.match(manifest)
    if not m:
        return {}
    decoder = json.JSONDecoder()
    for size in (8192, 65536):
        try:
            obj, _ = decoder.raw_decode(manifest[m.end() : m.end() + size].decode("utf-8", "replace"))
        except json.JSONDecodeError:
            continue
        return obj if isinstance(obj, dict) else {}
    return {}


def text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def compiled_inputs(project: DbtProject) -> tuple[list[str], str]:
    """The compiled SQL files the build reads (models without compiled SQL in the manifest,
    whether the file exists or not) and a digest of their contents as analyzed."""
    files = {n.compiled_path: n.sql if n.sql_origin == "compiled_file" else None for n in project.models() if n.compiled_path}
    paths = sorted(files)
    return paths, digest([(p, files[p]) for p in paths])


def compiled_digest(target: Path, paths: list[str]) -> str | None:
    """The digest of :func:`compiled_inputs` from the files as they are now; None when one is unreadable."""
    try:
        return digest([(p, read_compiled_file(target, p)) for p in paths])
    except ArtifactError:
        return None
