"""``catalog check --format github``, ``sarif`` and ``gitlab``: the findings where a CI shows them.

``github``: one workflow command per finding (``::error file=...,line=...::...``), which
GitHub Actions draws as an annotation on the changed model's file, at the line that defines
the column. ``sarif``: a SARIF 2.1.0 log for code scanning (GitHub, Azure DevOps).
``gitlab``: a GitLab Code Quality report, which a merge request shows in its widget and diff.

Findings at or above ``--fail-on`` are errors; the other breaking, policy and partial ones
warnings; safe ones notices (``note`` in SARIF). In GitLab's words: blocker; major (breaking,
policy) or minor (partial); info.
"""

from __future__ import annotations

import hashlib
import os
import re
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from catalog import __version__
from catalog.artifacts import packages_install_path
from catalog.check import ORDER, CheckReport, Finding
from catalog.compare import ClauseChange
from catalog.report.check_md import CHANGE_CHARS, change_text, hit_summary
from catalog.report.limits import cut

RULES = {
    "breaking": (
        "A removed, renamed or retyped column that something downstream reads, a column or model reading a removed one, "
        "a change to a public model, or what dbt's state comparison calls a breaking change of an enforced contract."
    ),
    "policy": "A PII column newly flows into a column not tagged PII, a public or contracted model, or an exposure.",
    "partial": "Values or rows change downstream.",
    "safe": "Added columns, documentation, columns nothing reads.",
}


def level(f: Finding, fail_on: str) -> str:
    """error, warning or notice (GitHub's names)."""
    if fail_on != "never" and ORDER[f.severity] <= ORDER[fail_on]:
        return "error"
    return "notice" if f.severity == "safe" else "warning"


def message(f: Finding) -> str:
    tests = f". Tests that read it: {', '.join(f.tests)}" if f.tests else ""
    return f"{f.model}.{f.column}: {cut(change_text(f), CHANGE_CHARS)}. {f.severity}: {f.why}. Hits: {hit_summary(f)}{tests}"


def rebuild_text(report: CheckReport) -> str:
    """The rebuild selector, with how many of its names are tests."""
    tests = f" ({len(report.tests)} tests that read a changed column included)" if report.tests else ""
    return f"Rebuild: dbt build -s {report.selector}{tests}"


class Locator:
    """Where a finding points: the model's file relative to ``base`` (the working directory,
    the repository's root in CI), a package model's under the project's packages folder
    (``dbt_packages/<package>/models/...``), and the first line that names the column there.
    With the project's folder known, a file that is not there gets no location."""

    def __init__(self, report: CheckReport, project_root: Path | None, base: Path):
        self.report, self.root, self.base = report, project_root, base
        self._texts: dict[str, list[str]] = {}
        self._packages: str | None = None

    def source(self, f: Finding) -> str | None:
        """The finding's file relative to the project's folder, if it has one."""
        rel = self.report.files.get(f.unique_id)
        if not rel:
            return None
        package = self.report.packages.get(f.unique_id)
        if package:
            if self._packages is None:
                self._packages = packages_install_path(self.root) if self.root is not None else "dbt_packages"
            rel = f"{self._packages}/{package}/{rel}"
        if self.root is not None and not (self.root / rel).is_file():
            return None
        return Path(rel).as_posix()

    def file(self, f: Finding) -> str | None:
        rel = self.source(f)
        return self._from_base(rel) if rel is not None else None

    def project_file(self) -> str:
        """The project's dbt_project.yml relative to ``base``: where a finding without a file points."""
        return self._from_base("dbt_project.yml")

    def _from_base(self, rel: str) -> str:
        if self.root is None:
            return rel
        return Path(os.path.relpath(self.root.resolve() / rel, self.base.resolve())).as_posix()

    def line(self, f: Finding) -> int:
        rel = self.source(f)
        if not rel or self.root is None:
            return 1
        lines = self._lines(rel)
        if f.column == "*":
            return next((n for c in f.clauses if (n := clause_line(lines, c))), 1)
        name = re.escape(f.column)
        for pattern in (rf"\bas\s+[\"`\[]?{name}[\"`\]]?(?![\w$])", rf"(?<![\w$.]){name}(?![\w$])"):
            rx = re.compile(pattern, re.IGNORECASE)
            for i, line in enumerate(lines, start=1):
                if rx.search(line):
                    return i
        return 1

    def _lines(self, rel: str) -> list[str]:
        if rel not in self._texts:
            try:
                self._texts[rel] = (self.root / rel).read_text(encoding="utf-8", errors="replace").splitlines()  # type: ignore[operator]
            except OSError:
                self._texts[rel] = []
        return self._texts[rel]


_KEYWORDS = {"WHERE": r"\bwhere\b", "HAVING": r"\bhaving\b", "QUALIFY": r"\bqualify\b", "GROUP BY": r"\bgroup\s+by\b"}


def clause_line(lines: list[str], change: ClauseChange) -> int | None:
    """The line of a model's file where the changed condition is written: of the clause's
    keywords there (``where``, ``on`` of a join, ...), the one followed by the text most like
    the condition's SQL (its new SQL; the old one when it was removed)."""
    sql = change.after if change.after is not None else change.before
    keyword = _KEYWORDS.get(change.clause, r"\bon\b")
    text = "\n".join(lines)
    want = _squashed(sql or "")[:200]
    best: tuple[float, int] | None = None
    for m in re.finditer(keyword, text, re.IGNORECASE):
        got = _squashed(text[m.end() : m.end() + 2 * len(sql or "") + 40])[: len(want)]
        alike = SequenceMatcher(None, got, want, autojunk=False).ratio()
        if best is None or alike > best[0]:
            best = (alike, text.count("\n", 0, m.start()) + 1)
    return best[1] if best is not None else None


def _squashed(sql: str) -> str:
    """SQL without spaces, quotes and case: `NOT status IN ('a')` and `not status in ( 'a' )` alike."""
    return re.sub(r"[\s\"'`()\[\]]+", "", sql).lower()


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: CheckReport, fail_on: str, project_root: Path | None, base: Path) -> str:
    where = Locator(report, project_root, base)
    out = []
    for f in report.findings:
        props = []
        path = where.file(f)
        if path:
            props += [f"file={_escape_property(path)}", f"line={where.line(f)}"]
        props.append(f"title={_escape_property(f'catalog check: {f.severity}')}")
        out.append(f"::{level(f, fail_on)} {','.join(props)}::{_escape_data(message(f))}")
    if report.selector:
        out.append(f"::notice title={_escape_property('catalog check: rebuild')}::{_escape_data(rebuild_text(report))}")
    return "\n".join(out) + ("\n" if out else "")


def sarif_log(report: CheckReport, fail_on: str, project_root: Path | None, base: Path) -> dict[str, Any]:
    where = Locator(report, project_root, base)
    results = []
    for f in report.findings:
        result: dict[str, Any] = {
            "ruleId": f.severity,
            "level": {"error": "error", "warning": "warning", "notice": "note"}[level(f, fail_on)],
            "message": {"text": message(f)},
            "partialFingerprints": {"column": f"{f.unique_id}.{f.column}/{','.join(f.changes)}"},
        }
        if f.tests:
            result["properties"] = {"tests": list(f.tests)}
        path = where.file(f)
        if path:
            region = {"startLine": where.line(f)}
            result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": path}, "region": region}}]
        results.append(result)
    rules = [{"id": k, "shortDescription": {"text": v}} for k, v in RULES.items()]
    driver = {"name": "catalog", "version": __version__, "rules": rules}
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results,
                  "properties": {"selector": report.selector, "tests": [t.name for t in report.tests]}}],
    }


GITLAB_SEVERITY = {"error": "blocker", "notice": "info"}  # warnings: major, partial ones minor


def gitlab_code_quality(report: CheckReport, fail_on: str, project_root: Path | None, base: Path) -> list[dict[str, Any]]:
    """GitLab Code Quality: one issue per finding, at the model's file and line (a finding
    without a file: the project's dbt_project.yml, line 1; GitLab requires a location), with a
    fingerprint made of what the finding is about, the same on every run and unique in the report."""
    where = Locator(report, project_root, base)
    out = []
    seen: set[str] = set()
    for f in report.findings:
        lvl = level(f, fail_on)
        severity = GITLAB_SEVERITY.get(lvl) or ("minor" if f.severity == "partial" else "major")
        path = where.file(f)
        about = "\x1f".join(["catalog check", f.unique_id, f.column, ",".join(f.changes)])
        fingerprint = hashlib.sha256(about.encode()).hexdigest()
        n = 1
        while fingerprint in seen:  # the same column and changes twice: told apart by order
            n += 1
            fingerprint = hashlib.sha256(f"{about}\x1f{n}".encode()).hexdigest()
        seen.add(fingerprint)
        out.append(
            {
                "description": message(f),
                "check_name": f.severity,
                "fingerprint": fingerprint,
                "severity": severity,
                "location": {"path": path or where.project_file(), "lines": {"begin": where.line(f) if path else 1}},
            }
        )
    return out
