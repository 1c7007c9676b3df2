"""Where a build's inputs came from: the git commit, branch and dirty flag of the dbt project,
or the CI's own variables when the project has no ``.git``, and dbt's invocation id.

Nothing here changes the repository or fails a build: the commit and branch are read from the
files under ``.git`` (``HEAD``, the ref it names, ``packed-refs``), the dirty flag from ``git
status`` run without optional locks (it does not refresh the index) and with a timeout. What
cannot be read is left unknown, with a note that says why.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

from pydantic import BaseModel

GIT_TIMEOUT = 5.0  # seconds `git status` may take before the dirty flag is left unknown
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")

# (commit variable, branch variables) of the CI services, in the order they are looked at
CI_VARIABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("GITHUB_SHA", ("GITHUB_HEAD_REF", "GITHUB_REF_NAME")),  # GitHub Actions (the head branch of a pull request)
    ("CI_COMMIT_SHA", ("CI_COMMIT_REF_NAME",)),  # GitLab CI
    ("BITBUCKET_COMMIT", ("BITBUCKET_BRANCH",)),  # Bitbucket Pipelines
    ("CIRCLE_SHA1", ("CIRCLE_BRANCH",)),  # CircleCI
    ("BUILDKITE_COMMIT", ("BUILDKITE_BRANCH",)),  # Buildkite
    ("BUILD_SOURCEVERSION", ("BUILD_SOURCEBRANCHNAME",)),  # Azure Pipelines
    ("TRAVIS_COMMIT", ("TRAVIS_BRANCH",)),  # Travis CI
    ("GIT_COMMIT", ("GIT_BRANCH",)),  # Jenkins
)


class Provenance(BaseModel):
    """What a build records of where it came from (``Build`` properties of the same names)."""

    git_commit: str | None = None
    git_branch: str | None = None  # None: detached HEAD, or not known
    git_dirty: bool | None = None  # tracked files differ from the commit; None: not known
    git_source: str | None = None  # "git" (the project's .git) or the CI variable the commit came from
    git_note: str | None = None  # why the commit or the dirty flag is not known
    invocation_id: str | None = None  # dbt's, from the manifest


def read_provenance(project_dir: Path, metadata: dict[str, Any], env: dict[str, str] | None = None) -> Provenance:
    """The provenance of a build of the dbt project in ``project_dir`` (its target folder or
    any folder inside the repository); ``metadata``: the manifest's. Never raises."""
    env = dict(os.environ) if env is None else env
    invocation = metadata.get("invocation_id")
    invocation_id = invocation if isinstance(invocation, str) and invocation else None
    try:
        found = _from_git(project_dir)
    except (OSError, UnicodeDecodeError, ValueError) as e:  # an unreadable .git is no reason to stop a build
        found = Provenance(git_note=f"could not read the git repository: {e}")
    if found.git_commit is None:
        ci = _from_ci(env)
        if ci is not None:
            ci.git_note = found.git_note
            found = ci
    return found.model_copy(update={"invocation_id": invocation_id})


def _from_ci(env: dict[str, str]) -> Provenance | None:
    for commit_var, branch_vars in CI_VARIABLES:
        commit = env.get(commit_var, "").strip().lower()
        if _SHA.match(commit):
            branch = next((env[v].strip() for v in branch_vars if env.get(v, "").strip()), None)
            if branch and branch.startswith("origin/"):  # Jenkins names the remote branch
                branch = branch[len("origin/") :]
            return Provenance(git_commit=commit, git_branch=branch, git_source=commit_var)
    return None


def _from_git(start: Path) -> Provenance:
    root, git_dir = _find_git_dir(start.resolve())
    if git_dir is None:
        return Provenance(git_note="not a git repository")
    common = _common_dir(git_dir)
    head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        commit = _read_ref(git_dir, common, ref)
        branch = ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ref
        if commit is None:
            return Provenance(git_branch=branch, git_source="git", git_note=f"{ref} names no commit (a new repository, or refs not stored as files)")
    else:
        commit, branch = head.lower(), None
        if not _SHA.match(commit):
            return Provenance(git_note=f"HEAD of {git_dir} is not a commit")
    dirty, note = _dirty(root)
    return Provenance(git_commit=commit, git_branch=branch, git_dirty=dirty, git_source="git", git_note=note)


def _find_git_dir(start: Path) -> tuple[Path, Path | None]:
    """The work tree's root and its git directory (``.git``, or where a ``.git`` file points: a
    linked worktree or a submodule), from ``start`` upwards; ``(start, None)`` outside any."""
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return folder, dot
        if dot.is_file():
            line = dot.read_text(encoding="utf-8").strip()
            if line.startswith("gitdir:"):
                target = Path(line[len("gitdir:") :].strip())
                return folder, target if target.is_absolute() else (folder / target).resolve()
    return start, None


def _common_dir(git_dir: Path) -> Path:
    """Where the branches of a linked worktree live (its ``commondir``); the git directory itself otherwise."""
    pointer = git_dir / "commondir"
    if not pointer.is_file():
        return git_dir
    common = Path(pointer.read_text(encoding="utf-8").strip())
    return common if common.is_absolute() else (git_dir / common).resolve()


def _read_ref(git_dir: Path, common: Path, ref: str) -> str | None:
    for base in dict.fromkeys((git_dir, common)):
        loose = base / ref
        if loose.is_file():
            value = loose.read_text(encoding="utf-8").strip().lower()
            return value if _SHA.match(value) else None
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            sha, _, name = line.partition(" ")
            if name.strip() == ref and _SHA.match(sha.lower()):
                return sha.lower()
    return None


def _dirty(root: Path) -> tuple[bool | None, str | None]:
    """Whether tracked files differ from the commit (untracked ones do not count, as for ``git
    describe --dirty``), by ``git status`` without optional locks; None with a note when git
    cannot say within the timeout."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, timeout=GIT_TIMEOUT, env=env, stdin=subprocess.DEVNULL, check=False,
        )  # fmt: skip
    except FileNotFoundError:
        return None, "git is not installed: whether the tree was dirty is not known"
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"`git status` did not answer ({type(e).__name__}): whether the tree was dirty is not known"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"`git status` failed ({why[0] if why else f'exit {done.returncode}'}): whether the tree was dirty is not known"
    return bool(done.stdout.strip()), None
