"""The store's physical reference, measured: Neo4j's offline bulk importer (`neo4j-admin database
import full`) writing the same graph a build wrote, on this machine.

    .venv/bin/python benchmarks/bulk_import.py PROJECT       # a project already built

`build_speed.py` runs it after each full build. The project's nodes and relationships are read
back from Neo4j (list_project_nodes, list_project_relationships), written as CSV with every
property, and imported by the local server's jars (`catalog neo4j start` installed them) into
a throwaway database directory. The importer writes store files directly: no transactions, no
Cypher, and no indexes (the importer of Community's record format cannot build them; our
constraints and indexes would be built when the database first starts). A build writes into a
live database, through Bolt, in transactions, with its indexes: it cannot reach this rate; the
line says how far it is.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from catalog import local_neo4j  # noqa: E402
from catalog.store.graph import Graph  # noqa: E402

ARRAY_DELIMITER = "\x1f"  # never in a column name, tag or SQL expression
# Line breaks (in SQL, descriptions) become spaces, of the same length: with fields that span
# lines (--multiline-fields) the importer reads its input on one thread, 2.6 times slower here.
_ONE_LINE = str.maketrans("\r\n", "  ")
_DONE = re.compile(r"IMPORT DONE in (?:(\d+)m )?(?:(\d+)s )?(\d+)ms")
_COUNT = re.compile(r"^\s*(\d+) (nodes|relationships|properties)$", re.MULTILINE)


@dataclass
class Imported:
    """What the importer reports having written, and how long it took."""

    nodes: int
    relationships: int
    properties: int
    seconds: float  # as the importer reports it (JVM start excluded)
    wall: float  # the whole command

    @property
    def rate(self) -> float:
        return self.relationships / self.seconds if self.seconds else 0.0


def _csv_type(values: list[Any]) -> str:
    """neo4j-admin's column type for a property's values (all of one Python type, or string)."""
    kinds = {type(v) for v in values if v is not None}
    if kinds == {bool}:
        return "boolean"
    if kinds == {int}:
        return "long"
    if kinds <= {int, float} and kinds:
        return "double"
    if kinds == {list}:
        inner = {type(x) for v in values if v for x in v}
        return "long[]" if inner == {int} else "string[]"
    return "string"


def _cell(value: Any) -> Any:
    if isinstance(value, str):
        return value.translate(_ONE_LINE)
    if isinstance(value, list):
        return ARRAY_DELIMITER.join(str(x) for x in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _write_group(path: Path, head: list[str], tail: str, rows: list[tuple[list[Any], dict[str, Any]]], kind: str) -> None:
    """One CSV of rows of one kind (a label set, a relationship type): ``head`` columns, the
    properties, then ``tail`` (``:LABEL`` or ``:TYPE``) holding ``kind``."""
    keys = sorted({k for _, props in rows for k in props})
    types = {k: _csv_type([props.get(k) for _, props in rows]) for k in keys}
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(head + [f"{k}:{types[k]}" for k in keys] + [tail])
        for first, props in rows:
            w.writerow(first + [_cell(props.get(k)) for k in keys] + [kind])


def export_csv(graph: Graph, project: str, out: Path) -> tuple[list[str], int]:
    """The project's graph as CSV files in ``out``: the importer's arguments, and how many
    nodes. Line breaks in values are written as spaces (see ``_ONE_LINE``)."""
    nodes = graph.read("read/list_project_nodes", project=project)
    by_labels: dict[str, list] = defaultdict(list)
    for n in nodes:
        by_labels[";".join(sorted(n["labels"]))].append(([n["id"]], n["props"]))
    by_type: dict[str, list] = defaultdict(list)
    for r in graph.read("read/list_project_relationships", project=project):
        by_type[r["type"]].append(([r["start"], r["end"]], r["props"]))
    args = []
    for option, head, tail, groups in (("nodes", [":ID"], ":LABEL", by_labels), ("relationships", [":START_ID", ":END_ID"], ":TYPE", by_type)):
        for i, (kind, rows) in enumerate(groups.items()):
            path = out / f"{option}_{i}.csv"
            _write_group(path, head, tail, rows, kind)
            args.append(f"--{option}={path}")
    return args, len(nodes)


def bulk_import(graph: Graph, project: str) -> Imported:
    """Import ``project``'s graph with neo4j-admin into a throwaway directory."""
    where = local_neo4j.layout()
    if not local_neo4j.is_installed(where):
        raise RuntimeError(f"no Neo4j jars in {where.lib_dir}: run `catalog neo4j start` once")
    work = Path(tempfile.mkdtemp(prefix="catalog-bulk-import-"))
    try:
        (work / "conf").mkdir()
        (work / "conf" / "neo4j.conf").write_text(
            f"server.directories.data={work / 'data'}\nserver.directories.logs={work / 'logs'}\n"
        )
        (work / "csv").mkdir()
        files, nodes = export_csv(graph, project, work / "csv")
        if not nodes:
            raise RuntimeError(f"no project {project!r} in this database")
        cmd = [
            local_neo4j.java_executable(), "-cp", str(where.lib_dir / "*"), "org.neo4j.cli.AdminTool",
            "database", "import", "full", *files,
            f"--array-delimiter={ARRAY_DELIMITER}", f"--report-file={work / 'import.report'}",
            "--overwrite-destination=true", "bench",
        ]  # fmt: skip
        env = {**os.environ, "NEO4J_CONF": str(work / "conf"), "NEO4J_HOME": str(work)}
        t = time.perf_counter()
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        done = _DONE.search(run.stdout)
        if run.returncode != 0 or done is None:
            tail = "\n".join(line for line in (run.stdout + run.stderr).strip().splitlines() if not line.startswith("\tat "))[-3000:]
            raise RuntimeError(f"neo4j-admin database import failed (exit {run.returncode}):\n{tail}")
        minutes, seconds, ms = (int(g or 0) for g in done.groups())
        counts = {kind: int(n) for n, kind in _COUNT.findall(run.stdout)}
        return Imported(counts.get("nodes", 0), counts.get("relationships", 0), counts.get("properties", 0), minutes * 60 + seconds + ms / 1000, wall)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def reference(graph: Graph, project: str) -> Imported | str:
    """The bulk import of ``project``, or why it could not be measured."""
    try:
        return bulk_import(graph, project)
    except (RuntimeError, OSError, local_neo4j.ServerError) as e:
        return str(e).strip().splitlines()[0]


def main() -> None:
    from catalog.settings import Neo4jSettings
    from catalog.store.connection import open_driver

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("project", help="a project already built into Neo4j (NEO4J_URI or the local server)")
    args = ap.parse_args()
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        got = reference(Graph(driver, settings.database), args.project)
    if isinstance(got, str):
        sys.exit(f"Error: {got}")
    print(
        f"neo4j-admin database import of {args.project}: {got.nodes:,} nodes, {got.relationships:,} relationships, "
        f"{got.properties:,} properties in {got.seconds:.2f}s ({got.wall:.1f}s with JVM start) = {got.rate:,.0f} relationships/s"
    )


if __name__ == "__main__":
    main()
