"""A stored build asked per question gives the answers of the whole build read first
(`--whole-build`): the same hover, definition, references and code lenses at every name of
every model, snapshot and analysis file and at every column of the schema YAML, on jaffle-shop,
the bundled example and dbt-project-evaluator built into the test's Neo4j."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types

from editor import editor
from projects import EXAMPLE, opened

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
YAML_NAME = re.compile(r"^\s*-\s*name:\s*([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


@pytest.fixture(scope="module", params=["jaffle-shop", "example", "dbt-project-evaluator"])
def built(request: pytest.FixtureRequest, shared_dir: Path, graph, neo4j_settings, tmp_path_factory: pytest.TempPathFactory):
    corpus = EXAMPLE if request.param == "example" else shared_dir / "corpus" / request.param
    yield from opened(corpus, tmp_path_factory.mktemp("per-question") / "project", graph, neo4j_settings)


def asked_positions(root: Path) -> dict[str, list[types.Position]]:
    """Each file's positions asked: the first mention of each name in a SQL file (its aliases,
    the columns it reads, its CTEs and keywords too), each ``- name:`` entry of a YAML file."""
    out: dict[str, list[types.Position]] = {}
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".sql", ".yml") and "target" not in p.relative_to(root).parts):
        text = path.read_text(encoding="utf-8")
        found = (m.start(1) for m in YAML_NAME.finditer(text)) if path.suffix == ".yml" else (m.start() for m in _first_of_each(text))
        out[path.relative_to(root).as_posix()] = [types.Position(line=text.count("\n", 0, at), character=at - text.rfind("\n", 0, at) - 1) for at in found]
    return out


def _first_of_each(text: str) -> list[re.Match[str]]:
    seen: dict[str, re.Match[str]] = {}
    for m in WORD.finditer(text):
        seen.setdefault(m.group(0).lower(), m)
    return list(seen.values())


async def answers(root: Path, args: tuple[str, ...], env: dict[str, str], asked: dict[str, list[types.Position]]) -> dict[tuple, object]:
    got: dict[tuple, object] = {}
    async with editor(root, *args, env=env) as ed:
        for rel, positions in asked.items():
            ed.open(rel)
            got[(rel, "lenses")] = await ed.lenses(rel)
            for pos in positions:
                at = (rel, pos.line, pos.character)
                got[(*at, "hover")] = await ed.hover(rel, pos)
                got[(*at, "definition")] = await ed.definition(rel, pos)
                got[(*at, "references")] = await ed.references(rel, pos, declaration=True)
        assert ed.messages() == []
    return got


def test_answers_per_question_equal_the_whole_builds(built):
    asked = asked_positions(built.root)
    per_question = asyncio.run(answers(built.root, built.args, built.env, asked))
    whole = asyncio.run(answers(built.root, (*built.args, "--whole-build"), built.env, asked))
    assert per_question.keys() == whole.keys()
    differ = [k for k in whole if per_question[k] != whole[k]]
    assert differ == [], [(k, per_question[k], whole[k]) for k in differ[:3]]
    # the comparison is of real answers: a hover with lineage at every model's own columns
    hovers = [v for k, v in whole.items() if k[-1] == "hover" and isinstance(v, str) and "**Downstream**" in v]
    lensed = [k for k, v in whole.items() if k[-1] == "lenses" and v]
    assert hovers and lensed
    assert all(built.origin in h for h in hovers)
