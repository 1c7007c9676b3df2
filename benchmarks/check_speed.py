"""Check speed: ``catalog check`` of a one-line edit, in Neo4j mode and with ``--state``, beside
its references, measured in the same run.

For each synthetic project (``synth_dbt.py --models N --seed S``, generated once into --cache)
and each of two edits of the issue that asked for it:

- leaf: ``coalesce(line_number, 0)`` -> ``coalesce(line_number, 1)`` in ``int_accounts__daily_v2``;
- hub: ``lower(trim(email)) as email`` -> ``lower(email) as email`` in ``stg_shop__customers``
  (151 direct children at 5,000 models);

prints the wall time and the peak resident memory (largest process, from a fresh interpreter)
of ``catalog check EDITED --json`` against the project's active build (Neo4j mode: the base
built once, under a fresh project name, forgotten at the end; or --project NAME, a build of the
unedited project made before) and of ``catalog check --state BASE EDITED --json``, each twice:
an empty cache (the base's lineage read from the build in Neo4j mode; with --state, only the
part of the base the change can reach analyzed), then the base's lineage read from the cache
(catalog.state_cache; with --state, filled first by ``catalog prune --state``, which analyzes
the base whole: check --state analyzes its region either way, and falls back on the cache only
when the region cannot stand for the project). Beside them, the
references: reading and parsing the edited target's manifest.json and catalog.json with orjson,
and ``catalog lineage BASE --json`` (wall time and peak), with the issue's targets.

    .venv/bin/python benchmarks/check_speed.py                         # synth 5,000 (seed 11)
    .venv/bin/python benchmarks/check_speed.py --sizes 20000:13 --cache /tmp/synth --edits hub
    .venv/bin/python benchmarks/check_speed.py --sizes 5000:11 --cache /tmp/synth --project NAME --no-state
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scale import CATALOG, parse_seconds, run_measured, synth  # noqa: E402

# edit -> (model, text, replacement)
EDITS = {
    "leaf": ("int_accounts__daily_v2", "coalesce(line_number, 0)", "coalesce(line_number, 1)"),
    "hub": ("stg_shop__customers", "lower(trim(email)) as email", "lower(email) as email"),
}
# models -> (Neo4j mode: x the orjson parse, peak MB; --state: x lineage --json, peak MB)
TARGETS = {5000: (2.0, 600, 1.0, 1024), 20000: (2.0, 2048, 1.0, 3072)}


def edit_model(target: Path, model: str, old: str, new: str) -> str:
    """Replace ``old`` (once in it) by ``new`` in a model's compiled SQL: in manifest.json and
    in its file under target/compiled, as ``dbt compile`` would write both."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_bytes())
    [uid] = [u for u, n in manifest["nodes"].items() if n["resource_type"] == "model" and n["name"] == model]
    node = manifest["nodes"][uid]
    if node["compiled_code"].count(old) != 1:
        raise SystemExit(f"{model}: {old!r} is not in its compiled SQL once")
    node["compiled_code"] = node["compiled_code"].replace(old, new)
    path.write_text(json.dumps(manifest))
    compiled = target / "compiled" / node["package_name"] / node["original_file_path"]
    if compiled.is_file():
        compiled.write_text(compiled.read_text().replace(old, new))
    return uid


def build_base(target: Path, name: str) -> None:
    from catalog.builds import Builder
    from catalog.settings import Neo4jSettings
    from catalog.store.graph import open_graph

    with open_graph(Neo4jSettings.from_env(), None) as graph:
        Builder(graph, target, project_name=name).run()


def forget(name: str) -> None:
    from catalog.history import forget_project
    from catalog.settings import Neo4jSettings
    from catalog.store.graph import open_graph

    with open_graph(Neo4jSettings.from_env(), None) as graph:
        forget_project(graph, name)


def measure(project_dir: Path, models: int, project: str | None, neo4j: bool = True, edits: list[str] | None = None, with_state: bool = True) -> None:
    base = project_dir / "target"
    x_parse, neo_mb, x_lineage, state_mb = TARGETS.get(models, TARGETS[20000 if models > 5000 else 5000])
    l_wall = 0.0
    if with_state:
        l_wall, l_cpu, l_mb = run_measured([str(CATALOG), "lineage", str(base), "--json"])
        print(f"  reference: catalog lineage BASE --json   {l_wall:7.2f} s (cpu {l_cpu:6.2f})  peak {l_mb} MB")
    name = project or f"bench_check_{models}_{uuid.uuid4().hex[:6]}"
    if project is None and neo4j:
        build_base(base, name)
        print(f"  base built as {name}")
    work = Path(tempfile.mkdtemp(prefix="check_speed_"))
    cache = work / "cache"
    before = os.environ.get("CATALOG_CACHE_DIR")
    os.environ["CATALOG_CACHE_DIR"] = str(cache)  # this run's own, for the commands it starts
    try:
        for label, (model, old, new) in EDITS.items():
            if edits and label not in edits:
                continue
            edited = work / label / "target"
            shutil.copytree(base, edited)
            edit_model(edited, model, old, new)
            parse = parse_seconds(edited)
            print(f"  {label}: {model}, {old!r} -> {new!r}")
            print(f"    reference: orjson parse of the edited target's manifest.json + catalog.json  {parse:.2f} s")
            neo = [str(CATALOG), "check", str(edited), "--project", name, "--json", "--fail-on", "never"]
            state = [str(CATALOG), "check", "--state", str(base), str(edited), "--json", "--fail-on", "never"]
            against_parse = f"{{:5.2f}} x the parse (target <= {x_parse:g} x), peak target <= {neo_mb} MB"
            against_lineage = f"{{:5.2f}} x lineage --json (target <= {x_lineage:g} x), peak target <= {state_mb} MB"
            # the whole base analyzed and kept (check --state analyzes only the change's region, and keeps nothing)
            fill = [str(CATALOG), "prune", "--state", str(base), str(edited)]
            rows = [  # (what, command, the cache before it: empty, as left, filled; against, reference seconds)
                ("check (Neo4j mode), base stored", neo, "empty", against_parse, parse),
                ("check (Neo4j mode), base cached", neo, "left", against_parse, parse),
                ("check --state, no cache", state, "empty", against_lineage, l_wall),
                ("check --state, base cached", state, "filled", against_lineage, l_wall),
            ]
            for what, cmd, before_run, against, ref in (rows[:2] if neo4j else []) + (rows[2:] if with_state else []):
                if before_run != "left":
                    shutil.rmtree(cache, ignore_errors=True)
                if before_run == "filled":
                    subprocess.run(fill, check=True, capture_output=True)
                wall, cpu, mb = run_measured(cmd)
                print(f"    {what:35} {wall:7.2f} s (cpu {cpu:6.2f})  peak {mb:5} MB  " + against.format(wall / ref))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if before is None:
            os.environ.pop("CATALOG_CACHE_DIR", None)
        else:
            os.environ["CATALOG_CACHE_DIR"] = before
        if project is None and neo4j:
            with contextlib.suppress(Exception):
                forget(name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["5000:11"], help="MODELS:SEED of each synthetic project")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/catalog-scale"), help="where generated projects are kept")
    ap.add_argument("--project", help="Neo4j mode against this project's active build (of the unedited project) instead of building one")
    ap.add_argument("--no-neo4j", action="store_true", help="only the --state rows (no build of the base)")
    ap.add_argument("--no-state", action="store_true", help="only the Neo4j mode rows (no --state check, no lineage --json)")
    ap.add_argument("--edits", nargs="+", choices=sorted(EDITS), help="only these edits (default: both)")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for spec in args.sizes:
        models, _, seed = spec.partition(":")
        project_dir = synth(int(models), int(seed or 1), args.cache)
        print(f"\n== check of a one-line edit, synth {models} (seed {seed or 1}): {project_dir}")
        measure(project_dir, int(models), args.project, not args.no_neo4j, args.edits, not args.no_state)
    print(f"\nload average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
