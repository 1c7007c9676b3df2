"""Builds record where they came from (git commit, branch, dirty flag, CI variables, dbt's
invocation id); nothing about git ever fails a build or changes the repository."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.builds import provenance
from catalog.builds.provenance import CI_VARIABLES, read_provenance
from catalog.cli.app import app
from catalog.column_history import node_history
from catalog.errors import NotFound
from catalog.history import list_builds
from catalog.query import BuildView
from conftest import EXAMPLE
from test_column_history import git
from test_prune import neo4j_env

CI_NAMES = sorted({v for commit, branches in CI_VARIABLES for v in (commit, *branches)})
SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def no_ci_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' own CI must not lend its commit to the projects built here."""
    for name in CI_NAMES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository holding a copy of the example's target folder, committed on main."""
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "target", root / "target")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the example")
    return root


def test_a_clean_tree_gives_its_commit_and_branch_and_is_left_as_it_was(repo: Path):
    head = git(repo, "rev-parse", "HEAD")
    manifest = repo / "target" / "manifest.json"
    os.utime(manifest, (1, 1))  # a changed mtime: a plain `git status` would rewrite the index
    index = (repo / ".git" / "index").read_bytes()
    found = read_provenance(repo / "target", {"invocation_id": "abc"})
    assert (found.git_commit, found.git_branch, found.git_dirty, found.git_source, found.invocation_id) == (head, "main", False, "git", "abc")
    assert (repo / ".git" / "index").read_bytes() == index
    assert not (repo / ".git" / "index.lock").exists()


def test_packed_refs_detached_head_and_untracked_files(repo: Path):
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    (repo / "notes.txt").write_text("not tracked")  # untracked files do not make a tree dirty
    assert (read_provenance(repo, {}).git_commit, read_provenance(repo, {}).git_dirty) == (head, False)
    git(repo, "checkout", "-q", "--detach")
    detached = read_provenance(repo / "target", {})
    assert (detached.git_commit, detached.git_branch) == (head, None)


def test_a_linked_worktree_reads_its_own_branch(repo: Path, tmp_path_factory: pytest.TempPathFactory):
    other = tmp_path_factory.mktemp("wt") / "feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(other))
    (other / "target" / "catalog.json").write_text("{}")
    git(other, "commit", "-q", "-am", "empty catalog")
    found = read_provenance(other / "target", {})
    assert (found.git_commit, found.git_branch, found.git_dirty) == (git(other, "rev-parse", "HEAD"), "feature", False)


def test_ci_variables_when_there_is_no_git(tmp_path: Path):
    env = {"GITHUB_SHA": SHA.upper(), "GITHUB_REF_NAME": "main", "GITHUB_HEAD_REF": ""}
    found = read_provenance(tmp_path, {}, env)
    assert (found.git_commit, found.git_branch, found.git_dirty, found.git_source) == (SHA, "main", None, "GITHUB_SHA")
    assert found.git_note == "not a git repository"
    gitlab = read_provenance(tmp_path, {}, {"CI_COMMIT_SHA": SHA, "CI_COMMIT_REF_NAME": "feature/x"})
    assert (gitlab.git_commit, gitlab.git_branch, gitlab.git_source) == (SHA, "feature/x", "CI_COMMIT_SHA")
    jenkins = read_provenance(tmp_path, {}, {"GIT_COMMIT": SHA, "GIT_BRANCH": "origin/main"})
    assert (jenkins.git_branch, jenkins.git_source) == ("main", "GIT_COMMIT")
    assert read_provenance(tmp_path, {}, {"GITHUB_SHA": "not-a-sha"}).git_commit is None


def test_what_git_cannot_say_is_left_unknown_with_why(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    sleep = shutil.which("sleep")
    head = git(repo, "rev-parse", "HEAD")
    # no git program: the commit is still read from the files, the dirty flag is not known
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    found = read_provenance(repo, {})
    assert (found.git_commit, found.git_dirty) == (head, None) and "git is not installed" in (found.git_note or "")
    # a git that does not answer in time
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(f"#!/bin/sh\nexec {sleep} 30\n")  # exec: the process killed at the timeout is the sleep
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(provenance, "GIT_TIMEOUT", 0.5)
    slow = read_provenance(repo, {})
    assert (slow.git_commit, slow.git_dirty) == (head, None) and "did not answer (TimeoutExpired)" in (slow.git_note or "")


def test_a_broken_git_directory_is_no_commit(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("garbage\n")
    assert read_provenance(tmp_path, {}).git_commit is None
    assert "is not a commit" in (read_provenance(tmp_path, {}).git_note or "")
    pointer = tmp_path / "sub"
    pointer.mkdir()
    (pointer / ".git").write_text("gitdir: ../nowhere\n")
    lost = read_provenance(pointer, {})
    assert lost.git_commit is None and lost.git_note.startswith("could not read the git repository")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "main")  # no commit yet
    new = read_provenance(fresh, {})
    assert (new.git_commit, new.git_branch) == (None, "main") and "names no commit" in (new.git_note or "")


@pytest.mark.neo4j
def test_builds_say_when_the_tree_was_dirty_or_not_git(graph, build, project_name, repo: Path, example_copy: Path, neo4j_settings):
    head = git(repo, "rev-parse", "HEAD")
    clean = build(repo / "target", project_name).build_id
    manifest = repo / "target" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["metadata"]["invocation_id"] = "local-edit"
    manifest.write_text(json.dumps(data))
    dirty = build(repo / "target", project_name).build_id
    (repo / ".git" / "HEAD").write_text("garbage\n")  # a broken repository: still a build
    broken = build(repo / "target", project_name).build_id
    not_git = build(example_copy, project_name).build_id  # the example's copy outside any repository
    by_id = {b.id: b for b in list_builds(graph, project_name)}
    assert [(by_id[i].git_commit, by_id[i].git_dirty, by_id[i].invocation_id) for i in (clean, dirty)] == [
        (head, False, "8837ce81-841c-48cf-8078-f1f932f4cdaf"), (head, True, "local-edit")
    ]
    assert by_id[broken].git_commit is None and "is not a commit" in by_id[broken].git_note
    assert by_id[not_git].git_commit is None and by_id[not_git].git_note == "not a git repository"
    done = CliRunner().invoke(app, ["builds", "--project", project_name], env=neo4j_env(neo4j_settings))
    assert done.exit_code == 0, done.output
    assert f"{head[:10]}+dirty" in done.stdout and "(no git)" in done.stdout
    listed = CliRunner().invoke(app, ["builds", "--project", project_name, "--json"], env=neo4j_env(neo4j_settings))
    assert [(b["id"], b["git_dirty"]) for b in json.loads(listed.stdout)][-2:] == [(dirty, True), (clean, False)]


@pytest.mark.neo4j
def test_a_commit_prefix_of_only_digits_names_its_build_and_a_build_id_still_wins(graph, build, project_name, example_copy: Path, monkeypatch: pytest.MonkeyPatch):
    """One short commit hash in 25 is all digits: ``--build 4576106`` is that commit when the
    project has no build 4576106, and a build id the project has is always the build."""
    digits = "4576106" + SHA[7:]
    monkeypatch.setenv("GITHUB_SHA", digits)
    first = build(example_copy, project_name).build_id
    monkeypatch.setenv("GITHUB_SHA", SHA)
    second = build(example_copy, project_name).build_id
    assert BuildView(graph, project_name, digits[:7]).build_id == first
    assert BuildView(graph, project_name, str(second)).build_id == second
    assert [r["build"] for r in node_history(graph, project_name, "stg_orders.status", since=digits[:7]).model_dump()["rows"]] == [first]
    with pytest.raises(NotFound, match=f"has no build {second + 10_000_000}"):
        BuildView(graph, project_name, str(second + 10_000_000))
