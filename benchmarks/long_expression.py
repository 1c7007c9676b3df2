"""Memory and time of one very long expression: a model whose one column's SQL is a CASE of
megabytes (generated code does this: a mapping of every code to its label), through
``catalog lineage --json``, ``catalog build`` and ``catalog trace`` (table and ``--json``).

The project is benchmarks/hub_project.py's smallest (a source, ``hub``, one fan model and one
model behind it) with ``hub.value`` rewritten as ``case value when 'c0' then 'label 0' ... end``
of ``--mb`` megabytes; ``fan_0_1.v_0`` reads it through ``fan_0.v_0``, so its trace shows that
expression. Each command runs in a fresh process; printed: wall time, CPU time and peak
resident memory (the largest process), and the bytes each command printed. The graph keeps the
expression whole (checked after the build); tables show it cut, with its length. The floor
beside them: one process that only parses the model's SQL with sqlglot.

    .venv/bin/python benchmarks/long_expression.py                  # 5.5 MB, the local Neo4j
    .venv/bin/python benchmarks/long_expression.py --mb 1 --no-store
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from hub_project import model_id, write_hub_project  # noqa: E402
from scale import CATALOG, run_measured  # noqa: E402


def long_case(megabytes: float) -> str:
    """``case value when 'c0' then 'label 0' ... else 'other' end`` of about ``megabytes`` MB."""
    whens, size, i = [], 0, 0
    while size < megabytes * 1_000_000:
        when = f"\n        when 'c{i}' then 'label {i}'"
        whens.append(when)
        size += len(when)
        i += 1
    return "case value" + "".join(whens) + "\n        else 'other'\n    end"


def write_project(out: Path, megabytes: float) -> tuple[Path, int]:
    """The project's target folder, and the length of hub.value's expression."""
    target = write_hub_project(out, fans=1, width=1, chain=1)
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    hub = manifest["nodes"][model_id("hub")]
    case = long_case(megabytes)
    hub["compiled_code"] = hub["compiled_code"].replace("    value\n", f"    {case} as value\n")
    path.write_text(json.dumps(manifest))
    return target, len(case)


def measured(label: str, cmd: list[str], out: Path | None = None) -> None:
    """Run ``cmd`` (its output to ``out`` when given) and print its time, memory and output size."""
    if out is not None:
        cmd = ["sh", "-c", '"$0" "$@" > ' + str(out), *cmd]
    wall, cpu, mb = run_measured(cmd)
    size = f"  output {out.stat().st_size:,} bytes" if out is not None else ""
    print(f"  {label:<28} {wall:7.2f} s (cpu {cpu:6.2f})  peak {mb:5d} MB{size}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=5.5, help="size of the expression in megabytes (default 5.5)")
    ap.add_argument("--no-store", action="store_true", help="skip catalog build and trace (no Neo4j)")
    ap.add_argument("--project", default="long_expression", help="the project name to build under (default long_expression)")
    ap.add_argument("--timeout", default="600", help="Neo4j's timeout per query, seconds (default 600: the machine may be shared)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        target, length = write_project(work / "project", args.mb)
        print(f"hub.value: an expression of {length:,} characters ({(target / 'manifest.json').stat().st_size:,} bytes of manifest)")
        catalog = str(CATALOG)
        sql = json.loads((target / "manifest.json").read_text())["nodes"][model_id("hub")]["compiled_code"]
        (work / "hub.sql").write_text(sql)
        floor = f"import sqlglot, pathlib; sqlglot.parse_one(pathlib.Path({str(work / 'hub.sql')!r}).read_text(), dialect='duckdb')"
        measured("floor: sqlglot parse alone", [sys.executable, "-c", floor])
        measured("catalog lineage --json", [catalog, "lineage", str(target), "--json"], work / "lineage.json")
        if args.no_store:
            return
        neo4j = ["--project", args.project, "--timeout", args.timeout]
        measured("catalog build", [catalog, "build", str(target), *neo4j])
        measured("catalog trace", [catalog, "trace", "fan_0_1.v_0", *neo4j], work / "trace.txt")
        measured("catalog trace --json", [catalog, "trace", "fan_0_1.v_0", *neo4j, "--json"], work / "trace.json")
        analyzed, kept = _longest_string(work / "lineage.json"), _longest_string(work / "trace.json")
        print(f"  the graph keeps it whole: {kept == analyzed} ({kept:,} characters in the trace's JSON, {analyzed:,} in the lineage's)")
        subprocess.run([catalog, "forget", args.project, "--yes", "--timeout", args.timeout], capture_output=True)


def _longest_string(path: Path) -> int:
    """The longest string in a JSON file: hub.value's expression, as the analysis wrote it
    (``catalog lineage``) or as the graph stores it (``catalog trace``)."""
    longest = 0

    def walk(value) -> None:
        nonlocal longest
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            longest = max(longest, len(value))

    walk(json.loads(path.read_text()))
    return longest


if __name__ == "__main__":
    main()
