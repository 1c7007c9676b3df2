"""What the editor is told about a position of a model's file: the column named there, its
hover text, where its upstream columns are written (definition), where its downstream readers
are (references), the code lenses of the file and its diagnostics.

Counts up- and downstream are the answers of `catalog trace` and `catalog impact` over the
project's :class:`~catalog.mcp.view.ProjectView` (the same walks), or of a stored build's
:class:`~catalog.query.BuildView` when it is asked per question, kept while in use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from catalog.lsp.positions import Place, Span, SqlText, yaml_column_at
from catalog.lsp.sources import Loaded
from catalog.query import Answer
from catalog.store.keys import quote_column

if TYPE_CHECKING:
    from catalog.check import Finding
    from catalog.lsp.stored import StoredBuild
    from catalog.mcp.view import ProjectView

LISTED = 8  # names listed in one line of a hover before "and N more"
YAML = (".yml", ".yaml")
CONSUMERS = (("metric", "metric", "metrics"), ("exposure", "exposure", "exposures"), ("saved_query", "saved query", "saved queries"),
             ("semantic_model", "semantic model column", "semantic model columns"))  # fmt: skip


@dataclass(frozen=True)
class Named:
    """The column a position names: ``key``; ``place`` where it is written in this file (an
    output column of the file's model); ``note`` how it was found when that is not plain."""

    key: str
    span: Span
    place: Place | None
    note: str = ""


@dataclass(frozen=True)
class Where:
    """Where a column is written: a file (absolute) and a span; ``certain`` False: the file's
    first line, the column could not be placed."""

    path: Path
    span: Span
    certain: bool


class FileAnswers:
    """The answers about one open file of a project, from the view in use."""

    def __init__(self, loaded: Loaded | StoredBuild, root: Path, path: Path, text: str, findings: dict[str, list[Finding]] | None = None):
        """``loaded``: the whole view in use, or a stored build asked per question (the view
        is then of the file's node and its neighbours); ``findings``: `catalog check`'s
        findings by model, of the last compiled target."""
        self.loaded, self.root = loaded, root
        self.findings = findings or {}
        self.rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
        self.yaml = path.suffix in YAML
        view, self.uid = (None, None) if self.yaml else loaded.around(self.rel)
        self.view: ProjectView = view  # type: ignore[assignment]  # a YAML file's: its column's, once named
        self.sql = SqlText(text)

    # ------------------------------------------------------------------ what is named
    def named(self, line: int, character: int) -> Named | None:
        found = self.sql.word_at(line, character)
        if found is None:
            return None
        word, span = found
        if self.yaml:
            return self._yaml_named(line, word, span)
        if self.uid is None:
            return None
        own = self.own_columns()
        if word.lower() in own:
            key = own[word.lower()]
            return Named(key, span, self.sql.place(self.view.columns[key].id.name))
        parents = sorted(self.view.parents.get(self.uid, ()))
        hits = [k for p in parents for k in self.view.nodes[p].columns if self.view.columns[k].id.name.lower() == word.lower()]
        if not hits:
            return None
        others = f" (also a column of {', '.join(self.view.columns[k].id.model for k in hits[1:])})" if len(hits) > 1 else ""
        named = Named(hits[0], span, None, f"`{word}` here is read from {self.view.columns[hits[0]].id.model}{others}")
        self.view = self.loaded.view_of(self.view.columns[hits[0]].id.unique_id)  # the parent's column's answers: its readers, ...
        return named

    def _yaml_named(self, line: int, word: str, span: Span) -> Named | None:
        found = yaml_column_at(self.sql.text, line, word)
        if found is None:
            return None
        hit = self.loaded.yaml_column(*found)
        if hit is None:
            return None
        self.view = hit[0]  # the view the column's answers come from
        return Named(hit[1], span, None)

    def own_columns(self) -> dict[str, str]:
        """The file's model's output columns: lower-case name -> key."""
        node = self.view.nodes.get(self.uid or "")
        return {self.view.columns[k].id.name.lower(): k for k in node.columns} if node else {}

    # ------------------------------------------------------------------ hover
    def hover(self, named: Named) -> str:
        v = self.view
        col = v.columns[named.key]
        node = v.nodes[col.id.unique_id]
        head = f"**{col.id.model}.{col.id.name}**" + (f" `{col.data_type}`" if col.data_type else "") + (" · **PII**" if col.pii else "")
        lines = [head, ""]
        if col.description:
            lines += [col.description, ""]
        if col.kind:
            lines.append(f"- transformation: {col.kind}" + (f" `{_one_line(col.expr)}`" if col.expr and col.kind != "passthrough" else ""))
        if col.resolved is False or col.kind == "unknown":
            lines.append(f"- unresolved: {col.reason or 'no reason given'}")
        if node.status:
            lines.append(f"- {node.kind} {node.name}: {node.status}" + (f" ({node.reason})" if node.reason else ""))
        label = _label(col.id.unique_id, col.id.name)
        lines += ["", self._upstream(named.key, self.loaded.answer("trace", label)), "", self._downstream(self.loaded.answer("impact", label))]
        if named.note:
            lines += ["", f"_{named.note}._"]
        if named.place is not None and not named.place.certain:
            lines += ["", f"_Position uncertain: {named.place.note}._"]
        lines += ["", f"_From {self.loaded.origin}._"]
        return "\n".join(lines)

    def _upstream(self, key: str, trace: Answer) -> str:
        ups = self.view.ups.get(key, ())
        roots = [r for r in trace.columns if r.resource_type in ("source", "seed")]
        if not ups:
            return "**Upstream**: none (" + ("the column is read from no other column" if self.view.columns[key].kind else "a source or seed") + ")"
        named = _names([f"`{self.view.columns[e.up].id.model}.{self.view.columns[e.up].id.name}` ({e.type})" for e in ups])
        return f"**Upstream** (one hop): {named}  \n{_count(len(trace.columns), 'column')} upstream in all, {len(roots)} of them in sources and seeds"

    def _downstream(self, impact: Answer) -> str:
        models = sorted({r.column.model for r in impact.columns})
        parts = [f"**Downstream**: {_count(len(impact.columns), 'column')} in {_count(len(models), 'model')}" + (f" ({_names(models)})" if models else "")]
        for kind, one, many in CONSUMERS:
            hits = [c for c in impact.consumers if c.kind == kind]
            if not hits:
                continue
            text = f"{len(hits)} {one if len(hits) == 1 else many} ({_names(sorted({c.name for c in hits}))})"
            if kind == "exposure":
                dashboards = [c for c in hits if self.view.nodes[c.unique_id].materialized.startswith("dashboard")]
                text += f", {len(dashboards)} of them dashboards"
            parts.append(text)
        return "  \n".join(parts)

    # ------------------------------------------------------------------ places
    def where(self, key: str) -> Where | None:
        """Where the column ``key`` is written: its model's file (its YAML for a source)."""
        col = self.view.columns[key]
        node = self.view.nodes[col.id.unique_id]
        if not node.path:
            return None
        path = self.root / node.path
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        if path.suffix in YAML:
            span = _yaml_line(text, node.name.rsplit(".", 1)[-1], col.id.name)
            return Where(path, span or Span(0, 0, 0), span is not None)
        place = SqlText(text).place(col.id.name)
        if place.span is not None and place.certain:
            return Where(path, place.span, True)
        return Where(path, Span(0, 0, 0), False)

    def definitions(self, named: Named) -> list[Where]:
        """Own column: where its upstream columns are written; a parent's column: where it is."""
        if named.place is None:
            found = self.where(named.key)
            return [found] if found else []
        return [w for e in self.view.ups.get(named.key, ()) if (w := self.where(e.up)) is not None]

    def references(self, named: Named, include_declaration: bool) -> list[Where]:
        """Where the columns that read it one hop downstream are written."""
        keys = [e.down for e in self.view.downs.get(named.key, ())]
        if include_declaration:
            keys.insert(0, named.key)
        return [w for k in dict.fromkeys(keys) if (w := self.where(k)) is not None]

    # ------------------------------------------------------------------ lenses and diagnostics
    def lenses(self) -> list[tuple[Span, str, str, list[str]]]:
        """(where, title, command, arguments): one for the model above its first line, one above
        each output column placed with certainty."""
        if self.uid is None or self.yaml:
            return []
        v = self.view
        node = v.nodes[self.uid]
        out = []
        labels = [_label(self.uid, v.columns[k].id.name) for k in node.columns]
        if labels:
            kids, parents = len(v.children.get(self.uid, ())), len(v.parents.get(self.uid, ()))
            out.append((Span(0, 0, 0), f"{node.name}: {kids} downstream · {parents} upstream models", "catalog.impact", labels))
        for key, label in zip(node.columns, labels):
            place = self.sql.place(v.columns[key].id.name)
            if place.span is None or not place.certain:
                continue
            down, up = self.loaded.answer("impact", label), self.loaded.answer("trace", label)
            out.append((place.span, f"{len(down.columns) + len(down.consumers)} downstream", "catalog.impact", [label]))
            out.append((place.span, f"{len(up.columns)} upstream", "catalog.trace", [label]))
        return out

    def diagnostics(self) -> list[tuple[Span, bool, str]]:
        """(where, error, message) of the model's unresolved and unknown columns, of a model
        whose analysis failed, and of `catalog check`'s breaking and policy findings (errors)
        and partial ones (warnings) for the model."""
        if self.uid is None or self.yaml:
            return []
        from catalog.report.check_ci import message

        v = self.view
        node = v.nodes[self.uid]
        out = []
        for f in self.findings.get(self.uid, ()):
            if f.severity == "safe":
                continue
            place = self.sql.place(f.column) if f.column != "*" else None
            span = place.span if place is not None and place.span is not None else Span(0, 0, 0)
            out.append((span, f.severity in ("breaking", "policy"), f"catalog check: {message(f)}"))
        if node.status in ("failed", "unresolved"):
            out.append((Span(0, 0, 0), node.status == "failed", f"{node.name}: {node.status}: {node.reason or 'no reason given'}"))
        for key in node.columns:
            c = v.columns[key]
            if c.resolved is not False and c.kind != "unknown":
                continue
            place = self.sql.place(c.id.name)
            span = place.span if place.span is not None else Span(0, 0, 0)
            out.append((span, False, f"{node.name}.{c.id.name}: {c.kind or 'unresolved'}: {c.reason or 'no reason given'}"))
        return out


def _label(unique_id: str, name: str) -> str:
    return f"{unique_id}.{quote_column(name)}"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def _yaml_line(text: str, table: str, column: str) -> Span | None:
    """The ``- name: COLUMN`` line of a source table's YAML, after the table's own entry."""
    lines = text.splitlines()
    in_table = False
    for i, line in enumerate(lines):
        m = re.match(r"^\s*-\s*name:\s*[\"']?([^\"'#\s]+)", line)
        if not m:
            continue
        if m.group(1).lower() == table.lower():
            in_table = True
        elif in_table and m.group(1).lower() == column.lower():
            return Span(i, m.start(1), m.end(1))
    return None
