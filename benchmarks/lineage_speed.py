"""How fast is the lineage analysis, next to the least any sqlglot-based analysis must do?

On one dbt project (by default a synthetic one: ``synth_dbt.py --models 1300 --seed 7``,
generated into a temporary folder), prints:

(a) the floor: sqlglot parses every model's compiled SQL once and runs
    ``sqlglot.optimizer.qualify.qualify`` on it with catalog.json as the schema, one process;
(b) ``analyze_project`` in this process, with ``jobs=1`` and with one process per CPU, with the
    speed-up and the efficiency (speed-up per process; artifacts already loaded, loading timed apart);
(c) end to end: ``catalog lineage PATH --json > /dev/null`` as a subprocess, from process
    start to exit;

and the ratios to the floor. Wall-clock times are the best of ``--repeat`` runs; CPU times
(user + system, children included) are shown too, because a shared machine's wall clock is noisy.

    .venv/bin/python benchmarks/lineage_speed.py [--project DIR] [--models 1300 --seed 7] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import sqlglot
from sqlglot.optimizer.qualify import qualify
from sqlglot.schema import MappingSchema

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
TARGET_SECONDS = 8.0  # end to end, 1300 synthetic models, 2 cores


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """Best wall time and the CPU time of that run."""
    best = (float("inf"), 0.0, None)
    for _ in range(repeat):
        c0, t0 = cpu_seconds(), time.perf_counter()
        result = fn()
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        if wall < best[0]:
            best = (wall, cpu, result)
    return best


def make_synth(models: int, seed: int, into: Path) -> Path:
    tool = SHARED / "tools" / "synth_dbt.py"
    if not tool.is_file():
        sys.exit(f"{tool} not found: pass --project DIR")
    out = into / f"synth_{models}_{seed}"
    cmd = [sys.executable, str(tool), "--models", str(models), "--seed", str(seed), "--out", str(out), "--quiet"]
    subprocess.run(cmd, check=True)
    return out


def floor(target: Path, dialect: str, sample: int | None = None) -> tuple[int, int]:
    """Parse + qualify every model once with the catalog as schema; returns (models, qualify failures).
    ``sample``: only about that many models, evenly spread (for very large projects)."""
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    catalog = json.loads((target / "catalog.json").read_text(encoding="utf-8"))
    schema: dict = {}
    for table in [*catalog.get("nodes", {}).values(), *catalog.get("sources", {}).values()]:
        meta = table["metadata"]
        cols = {name: col.get("type") or "UNKNOWN" for name, col in table["columns"].items()}
        schema.setdefault(meta.get("database") or "", {}).setdefault(meta["schema"], {})[meta["name"]] = cols
    mapping = MappingSchema(schema, dialect=dialect)  # built once, as any analysis would
    nodes = [n for n in manifest["nodes"].values() if n["resource_type"] in ("model", "snapshot") and n.get("compiled_code")]
    if sample is not None and sample < len(nodes):
        nodes = nodes[:: -(-len(nodes) // sample)]
    del manifest
    count = failures = 0
    for node in nodes:
        count += 1
        try:
            qualify(sqlglot.parse_one(node["compiled_code"], read=dialect), schema=mapping, dialect=dialect)
        except sqlglot.errors.SqlglotError:
            failures += 1
    return count, failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", type=Path, help="a dbt project or target folder (default: a synthetic one)")
    ap.add_argument("--models", type=int, default=1300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the best is shown")
    args = ap.parse_args()

    sys.path.insert(0, str(REPO))
    from catalog.analyze.project import analyze_project
    from catalog.artifacts import find_target_dir
    from catalog.extract import load_project

    with tempfile.TemporaryDirectory(prefix="lineage_speed_") as tmp:
        project_dir = args.project or make_synth(args.models, args.seed, Path(tmp))
        target = find_target_dir(project_dir)
        load_wall, load_cpu, project = timed(lambda: load_project(project_dir), 1)
        n_models = len(project.models())
        print(f"project: {project_dir} ({n_models} models and snapshots, dialect {project.dialect}, {os.cpu_count()} CPUs)")
        print(f"sqlglot {sqlglot.__version__}, compiled: {'yes' if sqlglot.parser.__file__.endswith('.so') else 'no'}")

        a_wall, a_cpu, (count, failures) = timed(lambda: floor(target, project.dialect), args.repeat)
        print(f"(a) floor, parse + qualify, 1 process:    {a_wall:7.2f} s  (cpu {a_cpu:6.2f} s; {count} models, {failures} qualify errors)")
        print(f"    load_project (manifest, catalog, SQL): {load_wall:7.2f} s  (cpu {load_cpu:6.2f} s)")
        b1_wall, b1_cpu, _ = timed(lambda: analyze_project(project, jobs=1), args.repeat)
        print(f"(b) analyze_project, jobs=1:              {b1_wall:7.2f} s  (cpu {b1_cpu:6.2f} s)  {b1_wall / a_wall:5.2f} x floor")
        jobs = os.cpu_count() or 1
        bn_wall, bn_cpu, _ = timed(lambda: analyze_project(project, jobs=jobs), args.repeat)
        # efficiency: the speed-up over one process, per process (1.0: every process fully used)
        print(f"    analyze_project, jobs={jobs} (processes): {bn_wall:7.2f} s  (cpu {bn_cpu:6.2f} s)  {bn_wall / a_wall:5.2f} x floor"
              f"  (speed-up {b1_wall / bn_wall:4.2f} x, efficiency {b1_wall / bn_wall / jobs:4.2f})")  # fmt: skip

        cli = [str(Path(sys.executable).parent / "catalog"), "lineage", str(project_dir), "--json"]

        def end_to_end() -> int:
            with open(os.devnull, "w") as sink:
                return subprocess.run(cli, stdout=sink, stderr=subprocess.DEVNULL, check=True).returncode

        c_wall, c_cpu, _ = timed(end_to_end, args.repeat)
        verdict = "within" if c_wall < TARGET_SECONDS else "OVER"
        print(
            f"(c) catalog lineage --json > /dev/null:   {c_wall:7.2f} s  (cpu {c_cpu:6.2f} s)  {c_wall / a_wall:5.2f} x floor"
            f"  [{verdict} the {TARGET_SECONDS:.0f} s target]"
        )


if __name__ == "__main__":
    main()
