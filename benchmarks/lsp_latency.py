"""`catalog lsp` latency as an editor sees it: the time from starting the server to the answer
of its first hover, then hover and go-to-definition p50 / p95 over columns of many model files,
over stdio (pytest-lsp's client, the server a real process). The first hover answers after at
most --hover-wait seconds (1.5 by default), with the lineage or, while it is first read, with
what is being read; "first lineage s" is when the same position answers with its lineage.

    .venv/bin/python benchmarks/lsp_latency.py                       # synth 5,000 models, in memory
    .venv/bin/python benchmarks/lsp_latency.py --models 5000 20000   # several sizes, side by side
    .venv/bin/python benchmarks/lsp_latency.py --stored              # from a build stored in Neo4j
    .venv/bin/python benchmarks/lsp_latency.py --stored --whole-build  # and read whole first, side by side
    .venv/bin/python benchmarks/lsp_latency.py --stored --target /tmp/synth/synth_5000_11/target \
        --project shared_synth_5000_11                               # a target and its build made before

The synth target (shared/tools/synth_dbt.py, or --target) is laid out as a project folder (each
model's raw SQL written to its file, as tests/lsp/projects.py does). Stored: the server asks
Neo4j per question (NEO4J_URI or the local server); with --whole-build, also as it did before,
reading the whole active build first (`catalog lsp --whole-build`). The build is --project's
(read, never changed), else `bench_lsp_<models>`'s, built when it has none yet.
The positions asked are the aliases (`as name`) of ``--files`` model files drawn with a fixed
seed; each request is timed once (the server keeps a view's answers, so a repeated position
would time the cache).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests" / "lsp"))

from lsprotocol import types  # noqa: E402

from editor import editor  # noqa: E402
from mcp_latency import synth_target  # noqa: E402
from projects import lay_out  # noqa: E402
from query_latency import pct  # noqa: E402


FIRST_MAX = 3600.0  # seconds to wait for the first answer (a large target is analyzed first)
HOVER_WAIT = 1.5  # catalog lsp's default --hover-wait: then a hover says the lineage is loading
LOADING = "_catalog lsp is "  # how that hover starts


def project_folder(target: Path) -> Path:
    """``target`` laid out as a project folder (once; outside ``target``, which may be read-only)."""
    root = Path(tempfile.gettempdir()) / f"catalog-bench-lsp-{target.resolve().parent.name}" / "project"
    if not (root / "dbt_project.yml").exists():
        lay_out(target, root)
    return root


def positions(root: Path, files: int, seed: int) -> list[tuple[str, types.Position]]:
    """Each alias of ``files`` model files drawn at random, as (file, position)."""
    models = sorted(p.relative_to(root).as_posix() for p in (root / "models").rglob("*.sql"))
    out = []
    for rel in random.Random(seed).sample(models, min(files, len(models))):
        text = (root / rel).read_text(encoding="utf-8")
        for m in re.finditer(r"\bas\s+(\w+)", text):
            if text[m.end():].lstrip().startswith("("):  # a CTE's name
                continue
            line = text.count("\n", 0, m.start(1))
            out.append((rel, types.Position(line=line, character=m.start(1) - text.rfind("\n", 0, m.start(1)) - 1)))
    return out


def stored_args(root: Path, models: int, project: str | None) -> tuple[str, ...]:
    from catalog.builds import Builder
    from catalog.settings import Neo4jSettings
    from catalog.store.connection import open_driver
    from catalog.store.graph import Graph

    name = project or f"bench_lsp_{models}"
    settings = Neo4jSettings.from_env()
    with open_driver(settings) as driver:
        graph = Graph(driver, settings.database)
        if graph.find_active_build(name) is None:
            if project is not None:
                raise SystemExit(f"project {project!r} has no active build in {settings.uri}")
            t = time.perf_counter()
            summary = Builder(graph, root / "target", project_name=name).run()
            print(f"build {summary.build_id}: {summary.models.total} models, {time.perf_counter() - t:.1f}s")
    return ("--project", name)


async def measure(root: Path, args: tuple[str, ...], asked: list[tuple[str, types.Position]]) -> dict[str, float]:
    start = time.perf_counter()
    async with editor(root, "--hover-wait", str(HOVER_WAIT), *args) as ed:
        rel, pos = asked[0]
        ed.open(rel)
        first = await ed.hover(rel, pos)  # the lineage, or after HOVER_WAIT seconds what is being read
        first_s = time.perf_counter() - start
        print(f"first hover after {first_s:.2f} s: {first[:160] if first is not None else None!r}", flush=True)
        # the first answer with lineage: the same position while it says it is loading, the
        # next one when it is answered without (an alias inside a CTE is no output column)
        lineage, got, at = None, first, 0
        while lineage is None and time.perf_counter() - start < FIRST_MAX and not ed.messages():
            if got is not None and got.startswith(LOADING):
                await asyncio.sleep(0.2)
            elif got is not None:
                lineage = got
                break
            else:
                at += 1
                if at == len(asked):
                    break
                rel, pos = asked[at]
            got = await ed.hover(rel, pos)
        lineage_s = time.perf_counter() - start
        if lineage is None:
            print(f"no hover at {rel}:{pos.line}:{pos.character} after {lineage_s:.0f} s: {ed.messages()}", flush=True)
            return {"first hover s": first_s, "first lineage s": lineage_s}
        times: dict[str, list[float]] = {"hover": [], "definition": []}
        answered = {"hover": 0, "definition": 0}
        for rel, pos in asked[1:]:
            for kind in times:
                t = time.perf_counter()
                got = await (ed.hover(rel, pos) if kind == "hover" else ed.definition(rel, pos))
                times[kind].append((time.perf_counter() - t) * 1000)
                answered[kind] += bool(got)
    out = {"first hover s": first_s, "first lineage s": lineage_s, "hovers answered": answered["hover"], "definitions found": answered["definition"]}
    for kind, values in times.items():
        out |= {f"{kind} p50 ms": pct(values, 50), f"{kind} p95 ms": pct(values, 95), f"{kind} max ms": max(values)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, nargs="+", default=[5000])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=40, help="model files whose aliases are asked")
    ap.add_argument("--stored", action="store_true", help="answer from a build stored in Neo4j instead of in memory")
    ap.add_argument("--whole-build", action="store_true", help="stored: also measure the server reading the whole build first")
    ap.add_argument("--target", type=Path, help="a synth target to use (of --models' one size) instead of generating one")
    ap.add_argument("--project", help="stored: the project already built from --target (read only)")
    a = ap.parse_args()
    if a.target is not None and len(a.models) != 1:
        ap.error("--target is of one size: give --models once")
    rows: dict[str, dict[str, float]] = {}
    for models in a.models:
        root = project_folder(a.target or synth_target(models, a.seed))
        asked = positions(root, a.files, a.seed)
        ways = {"in memory": ("--memory",)}
        if a.stored:
            args = stored_args(root, models, a.project)
            ways = {"per question": args} | ({"whole build": (*args, "--whole-build")} if a.whole_build else {})
        for way, args in ways.items():
            column = f"{models:,} {way}"
            rows[column] = asyncio.run(measure(root, args, asked))
            print(f"{column}: {len(asked)} positions, {rows[column]}", flush=True)
    keys = list(max(rows.values(), key=len))
    width = max(18, *(len(c) + 2 for c in rows))
    print(f"\n{'stored' if a.stored else 'in memory'} ({os.cpu_count()} cores)")
    print(f"{'':<18}" + "".join(f"{c:>{width}}" for c in rows))
    for k in keys:
        print(f"{k:<18}" + "".join(f"{rows[c][k]:>{width}.{2 if k.endswith(' s') else 1 if k.endswith('ms') else 0}f}" if k in rows[c] else f"{'-':>{width}}" for c in rows))


if __name__ == "__main__":
    main()
