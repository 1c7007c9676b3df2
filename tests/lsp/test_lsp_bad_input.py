"""What `catalog lsp` does with input it cannot answer from: a file outside any dbt project,
a project never compiled or never built, Neo4j down. Each is one `window/showMessage` line,
the request gets no answer, and the server goes on answering (it is shut down cleanly)."""

from __future__ import annotations

import asyncio
import uuid

import yaml

from projects import server_env
from editor import editor


def _project(folder, name: str):
    folder.mkdir(parents=True)
    (folder / "dbt_project.yml").write_text(yaml.safe_dump({"name": name}), encoding="utf-8")
    (folder / "models").mkdir()
    (folder / "models" / "orders.sql").write_text("select 1 as id\n", encoding="utf-8")
    return folder


def test_a_file_outside_any_project_and_a_project_never_compiled(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "query.sql").write_text("select 1 as id\n", encoding="utf-8")
    root = _project(tmp_path / "shop", "shop")

    async def run():
        async with editor(tmp_path, "--memory") as ed:
            for folder in (loose, root):
                rel = (folder / ("query.sql" if folder is loose else "models/orders.sql")).relative_to(tmp_path).as_posix()
                ed.open(rel)
                assert await ed.hover(rel, ed.at(rel, "id")) is None
                assert await ed.definition(rel, ed.at(rel, "id")) == []
                assert await ed.lenses(rel) == []
            assert ed.messages() == [
                f"catalog lsp: {loose / 'query.sql'} is not inside a dbt project (no dbt_project.yml above it): no lineage for it",
                f"catalog lsp: {root / 'target' / 'manifest.json'} does not exist: run `dbt compile` (or `dbt build`) in {root} first",
            ]

    asyncio.run(run())


def test_a_project_never_built_and_neo4j_down(tmp_path, neo4j_settings):
    root = _project(tmp_path / "shop", "shop")
    never = f"test_never_{uuid.uuid4().hex[:8]}"
    rel = "models/orders.sql"

    async def run(args, env, expected):
        async with editor(root, *args, env=env) as ed:
            ed.open(rel)
            assert await ed.hover(rel, ed.at(rel, "id")) is None
            assert await ed.hover(rel, ed.at(rel, "id")) is None  # still answering
            assert ed.messages() == [expected]

    asyncio.run(run(("--project", never), server_env(neo4j_settings),
                    f"catalog lsp: project {never!r} has no active build: run `catalog build PATH`"))  # fmt: skip
    down = {**server_env(neo4j_settings), "NEO4J_URI": "bolt://127.0.0.1:9"}
    asyncio.run(run(("--project", never), down,
                    "catalog lsp: cannot reach Neo4j at bolt://127.0.0.1:9: connection refused (check NEO4J_URI / --uri, NEO4J_USER and NEO4J_PASSWORD)"))  # fmt: skip
