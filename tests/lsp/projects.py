"""dbt project folders for the language server's tests, laid out from a corpus target: the
corpus keeps only ``target/``, and the manifest carries each file's raw Jinja SQL, so each
model, snapshot and analysis of the root package is written back to its
``original_file_path``, the sources' YAML from the manifest's sources (their columns from
catalog.json when the manifest declares none), and
``dbt_project.yml`` names the project."""

from __future__ import annotations

import json
import shutil
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from catalog.builds import Builder
from catalog.history import forget_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop"


def lay_out(target: Path, folder: Path, name: str | None = None) -> Path:
    """``folder`` as a dbt project of ``target`` (copied to ``folder/target``); ``name``: the
    project name written in dbt_project.yml (default: the manifest's)."""
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    package = manifest["metadata"]["project_name"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dbt_project.yml").write_text(yaml.safe_dump({"name": name or package, "version": "1.0.0"}), encoding="utf-8")
    shutil.copytree(target, folder / "target")
    for node in manifest["nodes"].values():
        code = node.get("raw_code", node.get("raw_sql"))
        if node["package_name"] != package or node["resource_type"] not in ("model", "snapshot", "analysis") or code is None:
            continue
        path = folder / node["original_file_path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code, encoding="utf-8")
    catalog_path = target / "catalog.json"
    warehouse = json.loads(catalog_path.read_text(encoding="utf-8")).get("sources", {}) if catalog_path.is_file() else {}
    by_file: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for src in manifest["sources"].values():
        if src["package_name"] == package:
            names = list(src.get("columns") or {}) or [c.lower() for c in warehouse.get(src["unique_id"], {}).get("columns", {})]
            columns = [{"name": c} for c in names]
            by_file[src["original_file_path"]][src["source_name"]].append({"name": src["name"], "columns": columns})
    for rel, sources in by_file.items():
        doc = {"version": 2, "sources": [{"name": s, "tables": tables} for s, tables in sorted(sources.items())]}
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return folder


@dataclass
class Opened:
    """A project folder and how `catalog lsp` is started on it."""

    root: Path
    args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    origin: str = ""  # the hover's last line: where the answers come from


def server_env(settings: Any) -> dict[str, str]:
    """The environment that points `catalog lsp` at the test server."""
    password = settings.password
    secret = password.get_secret_value() if hasattr(password, "get_secret_value") else (password or "")
    return {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user or "neo4j", "NEO4J_PASSWORD": secret}


def opened(corpus: Path, folder: Path, graph: Any = None, settings: Any = None) -> Iterator[Opened]:
    """``corpus``'s target laid out in ``folder``, answered in memory; with ``graph``, from a
    build of it stored under a project name of its own (forgotten afterwards)."""
    root = lay_out(corpus / "target", folder)
    if graph is None:
        yield Opened(root, ("--memory",), origin=f"_From {root / 'target' / 'manifest.json'} (in memory)._")
        return
    name = f"test_{uuid.uuid4().hex[:10]}"
    try:
        build_id = Builder(graph, root / "target", project_name=name, jobs=1).run().build_id
        yield Opened(root, ("--project", name), server_env(settings), f"_From build {build_id} of {name!r} in Neo4j._")
    finally:
        if graph.read("read/find_project", project=name):
            forget_project(graph, name)
