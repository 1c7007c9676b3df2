"""``catalog docs`` as one use case: the changes to a project's YAML that its lineage gives
(descriptions inherited, PII tags), planned from a loaded project (:mod:`catalog.docs.plan`),
shown as a diff or data, and written file by file, each whole or not at all."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catalog.errors import CatalogError

if TYPE_CHECKING:
    from catalog.docs.plan import DocsInput, DocsPlan
    from catalog.export.openlineage import ExportInput


@dataclass(frozen=True)
class DocsRun:
    """What the lineage gives the project's YAML: ``plan``, made from ``data``, for the
    project ``folder``; ``build_id``: the stored build read, if one was; ``selected``: only
    some models were asked for."""

    data: DocsInput
    plan: DocsPlan
    folder: Path
    build_id: int | None
    selected: bool

    def conflicts(self) -> list[str]:
        """One line per column left alone because its nearest documented columns disagree."""
        from catalog.docs.plan import versioned_label

        label = lambda col: versioned_label(col, self.data.versions)  # noqa: E731
        lines = []
        for c in self.plan.conflicts:
            cands = "; ".join(f"{label(x.column)}: {x.description!r}" for x in c.candidates)
            lines.append(f"{label(c.column)}: not written, its nearest documented columns disagree: {cands}")
        return lines

    def diff(self) -> str:
        """The changes as one unified diff (empty when nothing changes)."""
        from catalog.docs.yaml_files import unified_diff

        return "".join(unified_diff(f) for f in self.plan.files)

    def to_dict(self) -> dict[str, Any]:
        plan, versions = self.plan, self.data.versions
        return {
            "project": self.data.project,
            "build_id": self.build_id,
            "changes": [c.model_dump(mode="json") for c in plan.changes],
            "conflicts": [{**c.model_dump(mode="json"), "version": versions.get(c.column.unique_id)} for c in plan.conflicts],
            "files": [{"path": f.path, "new": f.before is None} for f in plan.files],
            "only_packages": list(plan.only_packages),
        }  # fmt: skip

    def summary(self, written: bool) -> str:
        """What was (``written``) or would be changed, in one line."""
        plan = self.plan
        files = f"{len(plan.files)} YAML file{'s' if len(plan.files) != 1 else ''}"
        done = f"{len(plan.changes)} columns written to {files}" if written else f"{len(plan.changes)} columns, {files} would change"
        if plan.only_packages:
            packages = ", ".join(plan.only_packages)
            which = "selected models are" if self.selected else "models are"
            return f"Nothing to change: the {which} all models of packages ({packages}), and package models are never written (their YAML is the package's)."
        return done if plan.files else "Nothing to change."


def plan_project_docs(path: Path, loaded: ExportInput, *, select: list[str] | None, docs: bool, pii: bool) -> DocsRun:
    """The changes for the project at PATH from ``loaded`` (PATH's lineage or a stored build's):
    inherited descriptions (``docs``), PII tags (``pii``), of the ``select``ed models only."""
    from catalog.docs.inputs import docs_input, project_folder
    from catalog.docs.plan import plan_docs, select_models

    data = docs_input(path, loaded)
    selected = select_models(data.relations, select, data.versions, data.latest_versions) if select else None
    folder = project_folder(path)
    plan = plan_docs(data, folder, docs=docs, pii=pii, selected=selected)
    return DocsRun(data, plan, folder, loaded.build_id, bool(select))


def write_docs(run: DocsRun) -> None:
    """Write every changed YAML file of ``run``."""
    for f in run.plan.files:
        _replace(run.folder / f.path, f.after)


def _replace(target: Path, text: str) -> None:
    """Write ``target`` whole or not at all (a temporary file beside it, then renamed)."""
    tmp = target.with_name(f".{target.name}.catalog-docs.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise CatalogError(f"{target}: cannot write it ({e.strerror})") from e
