"""Memory peaks: `catalog build`, `explore`, `report -f md / html / json` beside `catalog lineage --json`.

For each synthetic project (``synth_dbt.py --models N --seed S``, kept in --cache), measured in
the same run, each row with its wall time, CPU time and the peak resident memory of its largest
process (the command or one of its analysis workers, as ``scale.run_measured`` reads it):

- the reference: ``catalog lineage PATH --json > /dev/null`` (the analysis streamed, each
  model's JSON written away as it is analyzed);
- ``catalog build PATH --full --project mem_peaks_<models>_<seed>`` (the stored build is
  forgotten first and at the end);
- ``catalog explore --project ...``, ``catalog report --project ... -f md``, ``-f html`` and
  ``-f json``, of that build.

Each row says its peak as a multiple of the reference's. ``--catalog`` measures another
installation's command (a checkout of main, to compare before and after in one run).

    .venv/bin/python benchmarks/memory_peaks.py --sizes 5000:11 --cache /tmp/synth
    .venv/bin/python benchmarks/memory_peaks.py --sizes 5000:11 --catalog ../main/.venv/bin/catalog
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scale import CATALOG, run_measured, synth  # noqa: E402

PAGES = (
    ("explore --project", ["explore", "-o", "{out}/explorer.html"]),
    ("report -f md", ["report", "-f", "md", "-o", "{out}/report.md"]),
    ("report -f html", ["report", "-f", "html", "-o", "{out}/report.html"]),
    ("report -f json", ["report", "-f", "json", "-o", "{out}/report.json"]),
)


def row(label: str, measured: tuple[float, float, int], reference_mb: int | None) -> None:
    wall, cpu, mb = measured
    ratio = f"  {mb / reference_mb:5.2f} x lineage --json's peak" if reference_mb else ""
    print(f"  catalog {label:<22} {wall:7.2f} s (cpu {cpu:6.2f})  peak {mb:6,} MB{ratio}", flush=True)


def peaks(catalog: str, project_dir: Path, name: str, build: bool = True) -> None:
    """The rows of one project: the reference first, then the build and the pages of it."""
    lineage = run_measured([catalog, "lineage", str(project_dir), "--json"])
    row("lineage --json", lineage, None)
    if not build:
        return
    if _stored(catalog, name):  # left by an earlier run
        run_measured([catalog, "forget", name, "--yes", "--json"])
    row("build --full", run_measured([catalog, "build", str(project_dir), "--full", "--project", name, "--json"]), lineage[2])
    with tempfile.TemporaryDirectory(prefix="memory_peaks_") as out:
        for label, args in PAGES:
            cmd = [catalog, *(a.format(out=out) for a in args), "--project", name]
            row(label, run_measured(cmd), lineage[2])
    run_measured([catalog, "forget", name, "--yes", "--json"])


def _stored(catalog: str, name: str) -> bool:
    """Whether the project ``name`` has builds (left by an earlier run)."""
    import subprocess

    done = subprocess.run([catalog, "builds", "--project", name, "--json"], capture_output=True, text=True)
    return done.returncode == 0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["5000:11", "20000:13"], help="MODELS:SEED of each synthetic project")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/catalog-scale"), help="where generated projects are kept")
    ap.add_argument("--catalog", default=str(CATALOG), help="the catalog command to measure (default: this checkout's)")
    ap.add_argument("--no-store", action="store_true", help="only the reference (no Neo4j)")
    args = ap.parse_args(argv)
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {args.catalog}")
    for spec in args.sizes:
        models, _, seed = spec.partition(":")
        project_dir = synth(int(models), int(seed or 1), args.cache)
        print(f"\n== memory peaks, synth {models} (seed {seed or 1}): {project_dir}")
        peaks(args.catalog, project_dir, f"mem_peaks_{models}_{seed or 1}", not args.no_store)
    print(f"\nload average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
