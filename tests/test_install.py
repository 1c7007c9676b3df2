"""What a user installs: the wheel and the sdist carry every query file and page asset, and the
wheel, installed without ``-e`` into a fresh virtualenv, runs the main commands from another
directory against the test server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import uuid
import zipfile
from pathlib import Path

import pytest

from catalog import __version__

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "coffee_shop"


def _repo_files(folder: str, pattern: str) -> set[str]:
    return {p.relative_to(REPO / folder).as_posix() for p in (REPO / folder).rglob(pattern) if p.is_file()}


QUERY_FILES = _repo_files("cypher", "*.cypher")
PAGE_ASSETS = {"explorer.js"} | {f"vendor/{name}" for name in _repo_files("catalog/report/vendor", "*")}
PACKAGE_DATA = {"catalog/mcp/graph_schema.md"}  # read by `catalog mcp`


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """A wheel and an sdist built from this checkout, as `pip wheel .` and a PEP 517 frontend do."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--quiet", "-w", str(out)], cwd=out)
    build_sdist = f"from setuptools import build_meta; build_meta.build_sdist({str(out)!r})"
    _run([sys.executable, "-c", build_sdist], cwd=REPO)
    return out


def test_wheel_carries_every_query_file_and_page_asset(dist: Path):
    (wheel,) = dist.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert len(QUERY_FILES) > 50
    missing = sorted(f for f in QUERY_FILES if f"catalog/queries/{f}" not in names)
    assert missing == []
    missing = sorted(f for f in PAGE_ASSETS if f"catalog/report/{f}" not in names)
    assert missing == []
    assert sorted(PACKAGE_DATA - names) == []


def test_sdist_carries_every_query_file_and_page_asset(dist: Path):
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = sorted(f for f in QUERY_FILES if f"cypher/{f}" not in names)
    assert missing == []
    missing = sorted(f for f in PAGE_ASSETS if f"catalog/report/{f}" not in names)
    assert missing == []
    assert sorted(PACKAGE_DATA - names) == []
    assert "pyproject.toml" in names and "README.md" in names


@pytest.mark.neo4j
def test_installed_wheel_runs_the_main_commands_from_another_folder(dist: Path, tmp_path: Path, neo4j_env):
    # nothing of this checkout on the path: pip would take it for the package, installed already
    env = {**os.environ, **neo4j_env}
    env.pop("PYTHONPATH", None)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path, env=env)
    (wheel,) = dist.glob("*.whl")
    _run([str(venv / "bin" / "pip"), "install", "--quiet", str(wheel)], cwd=tmp_path, env=env, timeout=900)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = f"test_wheel_{uuid.uuid4().hex[:10]}"
    try:
        _installed_commands(venv, elsewhere, env, project)
    finally:
        subprocess.run([str(venv / "bin" / "catalog"), "forget", project, "--yes"], cwd=elsewhere, env=env, capture_output=True, check=False)


def _installed_commands(venv: Path, elsewhere: Path, env: dict[str, str], project: str) -> None:
    catalog = str(venv / "bin" / "catalog")

    version = _run([catalog, "--version"], cwd=elsewhere, env=env)
    assert version.strip() == f"catalog {__version__}"

    # The installed package, not this checkout, answers.
    where = _run([str(venv / "bin" / "python"), "-c", "import catalog; print(catalog.__file__)"], cwd=elsewhere, env=env)
    assert Path(where.strip()).is_relative_to(venv)

    listing = _run([catalog, "query", "--list"], cwd=elsewhere, env={**env, "COLUMNS": "300"})
    assert "read/find_impact_downstream" in listing
    assert str(venv) in listing  # the packaged query files, not the repository's cypher/

    built = json.loads(_run([catalog, "build", str(EXAMPLE), "--project", project, "--json"], cwd=elsewhere, env=env))
    assert built["project"] == project

    impact = json.loads(_run([catalog, "impact", "stg_orders.order_id", "--project", project, "--json"], cwd=elsewhere, env=env))
    hit = {(c["model"], c["name"]) for c in impact["columns"]}
    assert ("orders", "order_id") in hit

    report = json.loads(_run([catalog, "report", "--project", project, "-f", "json"], cwd=elsewhere, env=env))
    assert report["project"] == project

    docs = json.loads(_run([catalog, "docs", str(EXAMPLE), "--json"], cwd=elsewhere, env=env))  # ruamel.yaml installed with it
    assert len(docs["changes"]) == 21 and len(docs["files"]) == 4

    page = elsewhere / "explorer.html"
    _run([catalog, "explore", "--project", project, "-o", str(page)], cwd=elsewhere, env=env)
    html = page.read_text(encoding="utf-8")
    assert "dagre" in html and "stg_orders" in html

    # `catalog mcp` with the SDK installed from PyPI as a dependency, driven over stdio by that SDK's client
    client = (
        "import anyio, os, sys\n"
        "from mcp import Client, StdioServerParameters\n"
        "async def ask():\n"
        "    params = StdioServerParameters(command=sys.argv[1], args=['mcp', '--project', sys.argv[2]], env=dict(os.environ))\n"
        "    async with Client(params) as client:\n"
        "        got = await client.call_tool('impact', {'columns': ['stg_orders.order_id'], 'limit': 1})\n"
        "        print(got.structured_content['total'], got.structured_content['truncated'])\n"
        "anyio.run(ask)\n"
    )
    total, truncated = _run([str(venv / "bin" / "python"), "-c", client, catalog, project], cwd=elsewhere, env=env).split()
    assert int(total) == len(impact["columns"]) + len(impact["consumers"]) and truncated == "True"
