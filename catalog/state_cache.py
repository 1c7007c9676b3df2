"""The analyzed lineage of a base, kept on disk: ``catalog check`` and ``catalog prune --state``
against the same base (a target folder, or the records of a stored build) analyze it once.

An entry is named by the base's fingerprints: per model, what its lineage depends on (its SQL,
the columns and types of what it reads, the dialect, the sqlglot version:
:mod:`catalog.builds.fingerprints`), with the manifest's and catalog.json's SHA-256 and the
analyzer's own code. A base that differs in any of them is analyzed again; an entry is never
updated, only written whole (to a temporary file, then renamed) and read whole.

The folder is ``$CATALOG_CACHE_DIR``, else ``$XDG_CACHE_HOME/catalog/lineage``, else
``~/.cache/catalog/lineage``; it keeps the :data:`KEEP` entries used last. Deleting the folder
clears it; ``CATALOG_CACHE_DIR=off`` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import tempfile
from pathlib import Path

from catalog.analyze.packed import Packed, RefCache, pack, unpack
from catalog.analyze.records import ModelLineage
from catalog.builds.fingerprints import Fingerprint
from catalog.extract import DbtProject

KEEP = 4  # entries kept: the bases checked against last
ENV = "CATALOG_CACHE_DIR"
_SUFFIX = ".lineage"


def cache_dir() -> Path | None:
    """Where the entries are; None when the cache is off."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen.lower() == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "catalog" / "lineage"


def _analyzer_code() -> str:
    """A digest of the code that extracts and analyzes: a changed analyzer misses every entry."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted([*(here / "analyze").glob("*.py"), here / "extract.py", here / "idents.py", here / "builds" / "fingerprints.py"]):
        with contextlib.suppress(OSError):
            h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()


def cache_key(project: DbtProject, prints: dict[str, Fingerprint]) -> str:
    """The name of ``project``'s entry: its fingerprints (``prints``), its artifacts' digests
    and the analyzer's code."""
    hashes = sorted((uid, f.lineage_hash, f.sql_hash) for uid, f in prints.items())
    parts = (_analyzer_code(), project.dialect, project.manifest_sha256, project.catalog_sha256, project.masking_functions, hashes)
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def read_cached(key: str) -> dict[str, ModelLineage] | None:
    """The lineages kept under ``key``, or None (no entry, an unreadable one, the cache off)."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / f"{key}{_SUFFIX}"
    try:
        packed: list[Packed] = marshal.loads(path.read_bytes())
        os.utime(path)  # used last: kept longest
    except (OSError, ValueError, EOFError, TypeError):
        return None
    refs: RefCache = {}
    return {p[0]: unpack(p, refs) for p in packed}


def write_cached(key: str, lineages: dict[str, ModelLineage]) -> None:
    """Keep ``lineages`` under ``key`` (without the definitions a comparison made of some
    models: those depend on the other side); the oldest entries beyond :data:`KEEP` go. A
    folder that cannot be written leaves the cache empty, never the command failed."""
    folder = cache_dir()
    if folder is None:
        return
    data = marshal.dumps([(*pack(lin)[:5], None, None) for lin in lineages.values()])
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, suffix=".tmp", delete=False) as f:
            f.write(data)
        os.replace(f.name, folder / f"{key}{_SUFFIX}")
        entries = sorted(folder.glob(f"*{_SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        with contextlib.suppress(OSError, NameError):
            os.unlink(f.name)
