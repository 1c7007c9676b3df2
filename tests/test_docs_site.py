"""The documentation: the site builds with ``mkdocs build --strict`` (a broken link, a missing
anchor or a page left out of the navigation fails it), its command pages are the CLI's own
``--help``, and every shell example marked runnable runs, against the test server and the
bundled example, and prints the output shown under it.

A runnable example is a ```` ```bash ```` block right after the line ``<!-- runnable -->``, in
README.md or a page of docs/. It runs with ``bash -euo pipefail`` in a temporary folder that
holds a copy of ``examples/`` and a terminal 120 columns wide; ``--project coffee_shop`` in it
names a project of the test's own (the bundled example, built once for the module). When a
```` ```text ```` block follows it, that is what it must print on stdout (build ids aside).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from catalog.history import forget_project

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
MARKER = "<!-- runnable -->"
PROJECT = "--project coffee_shop"
WIDTH = "120"


@dataclass(frozen=True)
class Example:
    where: str  # README.md:57
    script: str
    output: str | None  # the text block shown under it


def _fenced(lines: list[str], start: int, lang: str) -> tuple[str, int] | None:
    """The fenced block of ``lang`` opening at the first non-blank line from ``start``, and the
    line after it."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or lines[i].strip() != f"```{lang}":
        return None
    end = lines.index("```", i + 1)
    return "\n".join(lines[i + 1 : end]) + "\n", end + 1


def runnable_examples() -> list[Example]:
    examples = []
    for page in PAGES:
        lines = page.read_text().splitlines()
        for n, line in enumerate(lines):
            if line.strip() != MARKER:
                continue
            where = f"{page.relative_to(REPO)}:{n + 1}"
            block = _fenced(lines, n + 1, "bash")
            assert block is not None, f"{where}: {MARKER} is not followed by a ```bash block"
            script, after = block
            shown = _fenced(lines, after, "text")
            examples.append(Example(where, script, shown[0] if shown else None))
    return examples


EXAMPLES = runnable_examples()


def test_the_docs_mark_examples_runnable():
    assert len(EXAMPLES) >= 8
    assert any(e.where.startswith("README.md") for e in EXAMPLES)
    assert any(e.where.startswith("docs/") for e in EXAMPLES)


def _needs_the_docs_extra() -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("mkdocs and mkdocs-material are not installed (the docs extra)")
        pytest.skip("the docs extra is not installed: pip install -e '.[docs]'")


def test_site_builds_strictly(tmp_path: Path):
    _needs_the_docs_extra()
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    # one page per command, and the nested ones, written from the CLI
    for name in ("build", "impact", "check", "mcp", "neo4j", "neo4j-start"):
        assert (site / "commands" / name / "index.html").is_file(), name
    page = (site / "commands" / "impact" / "index.html").read_text()
    for option in ("--with-conditions", "--max-rows", "--at", "--timeout"):
        assert f"<code>{option}" in page or f", {option}" in page, option


def test_command_pages_hold_every_option_of_the_cli():
    _needs_the_docs_extra()
    spec = importlib.util.spec_from_file_location("docs_hook_commands", REPO / "docs" / "hooks" / "commands.py")
    hook = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # a dataclass looks its module up
    spec.loader.exec_module(hook)
    import typer

    from catalog.cli.app import COMMANDS, make_app

    pages = {page.path: page for page in hook.command_pages()}
    assert {path[0] for path in pages} == set(COMMANDS)
    assert ("neo4j", "status") in pages
    root = typer.main.get_command(make_app())
    for name, command in root.commands.items():
        markdown = pages[(name,)].markdown
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("-"):
                    assert opt in markdown, (name, opt)


@pytest.fixture(scope="module")
def example_project(graph, tmp_path_factory) -> str:
    """The bundled example, stored once under a project name of this module's own."""
    from catalog.builds import Builder

    name = f"test_{uuid.uuid4().hex[:10]}"
    try:
        Builder(graph, REPO / "examples" / "coffee_shop" / "target", project_name=name, jobs=1).run()
        yield name
    finally:
        if graph.read("read/find_project", project=name):
            forget_project(graph, name)


def _without_build_ids(text: str) -> str:
    return re.sub(r"\bbuild \d+", "build N", text)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_runnable_example_runs(example: Example, example_project: str, neo4j_env, tmp_path: Path):
    shutil.copytree(REPO / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns(".venv*", "logs"))
    env = {**os.environ, **neo4j_env, "COLUMNS": WIDTH}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # this checkout's `catalog`
    script = example.script.replace(PROJECT, f"--project {example_project}")
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, f"{example.where} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr
    if example.output is not None:
        printed = done.stdout.replace(example_project, "coffee_shop")
        assert _without_build_ids(printed) == _without_build_ids(example.output), example.where
