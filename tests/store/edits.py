"""Edits to a copy of a dbt target folder, as a developer's change would make them."""

from __future__ import annotations

import json
from pathlib import Path


def edit_sql(target: Path, uid: str, old: str, new: str) -> None:
    """Replace text in a node's compiled SQL inside manifest.json."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    sql = manifest["nodes"][uid]["compiled_code"]
    assert old in sql, f"{old!r} not in {uid}"
    manifest["nodes"][uid]["compiled_code"] = sql.replace(old, new)
    path.write_text(json.dumps(manifest))
