"""``CATALOG_DEBUG=1`` end to end, against a real Neo4j: a failure that is otherwise one ``Error:``
line shows its traceback on stderr instead, ending with the same message; the exit code stays 1."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.neo4j


def _catalog(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m catalog.cli.app ARGS`` in a process of its own, wide enough that no line wraps."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "CATALOG_DEBUG"))}
    return subprocess.run(
        [sys.executable, "-m", "catalog.cli.app", *args], env={**base, "COLUMNS": "300", **env},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_debug_shows_the_traceback_of_what_is_otherwise_one_error_line(coffee_shop_builds, neo4j_env):
    args = ["impact", "orders.nosuch", "--project", coffee_shop_builds.project]
    message = (
        f"no column 'orders.nosuch' in project {coffee_shop_builds.project!r} (build {coffee_shop_builds.second}); "
        "did you mean orders.status, stg_orders.status, raw_orders.status?"
    )
    plain = _catalog(args, neo4j_env)
    assert (plain.returncode, plain.stdout, plain.stderr.splitlines()) == (1, "", [f"Error: {message}"])

    debug = _catalog(args, {**neo4j_env, "CATALOG_DEBUG": "1"})
    assert (debug.returncode, debug.stdout) == (1, "")
    lines = debug.stderr.splitlines()
    assert "Traceback (most recent call last)" in lines[0]
    assert lines[-1] == f"NotFound: {message}"
    assert not any(line.startswith("Error:") for line in lines)
    frames = [line for line in lines if " in " in line and ".py:" in line]  # "│ /path/file.py:LINE in function │"
    assert any("catalog/lineage/names.py:" in f and " in resolve_column" in f for f in frames), frames
