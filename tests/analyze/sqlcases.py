"""SQL lineage cases: a small file format and a harness that runs ``ModelAnalyzer`` on them.

A case file holds several cases. Each starts with ``=== <title>``, then header lines, then
the model's SQL after ``sql:``, then the expected columns after ``expect:`` and, optionally,
the expected conditions after ``conditions:``::

    === CASE: condition, results and else all feed
    dialect: duckdb
    schema: {"orders": ["id", "status", "amount"]}
    sql:
    select id, case when status = 'x' then amount end as v from orders
    expect:
    id  passthrough  orders.id
    v   derived      orders.amount orders.status
    conditions:
    where  orders.status

Header lines (all optional but ``schema``):

- ``dialect``: sqlglot dialect (default ``duckdb``).
- ``schema``: ``{"relation": ["col", ...] | null}``. Each key is a relation name as SQL
  writes it (``orders``, ``raw.orders``, ``db.raw.orders``) and becomes a node of that
  unique id; its columns are the node's catalog columns (``null``: not in the catalog).
- ``ephemeral``: ``{"name": ["col", ...]}``: ephemeral models, read as ``__dbt__cte__<name>``
  (columns known from their own analysis).
- ``nodes``: ``{"unique_id": {"relation": ..., "columns": [...], "resource_type": ...,
  "name": ..., "materialized": ..., "declared": [...]}}`` for anything else.
- ``this``: the model's own relation name; the model's unique id is ``self``.
- ``output``: the model's real output columns (catalog.json), to name unnamed expressions.
- ``declared``: the model's columns declared in YAML only (no catalog.json entry).
- ``status``: the expected model status (default: ``resolved`` when every expected column
  is resolved, else ``partial``).
- ``reason``: a substring the model's reason must contain.
- ``types``: ``{"relation.column": "TIMESTAMP"}``: DuckDB types of columns for
  ``test_duckdb_names.py``, where the SQL needs one (a date function); the others are untyped.

Expected column lines: ``<name> <type> [unresolved] [<relation>.<column> ...]``, in output
order, names as the analysis writes them (lower case, or ``"ID"`` when their case matters); ``-`` stands for no upstream. Condition lines: ``<clause> <relation>.<column>``.
Nothing is implied: a case lists every column, every edge and every condition.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from catalog.analyze.model import ModelAnalyzer
from catalog.analyze.project import ProjectColumns
from catalog.analyze.records import ModelLineage
from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtColumn, DbtNode, DbtProject
from catalog.idents import stored_name, typed, typed_key

CASES_DIR = Path(__file__).parent / "cases"
KINDS = ("passthrough", "renamed", "derived", "source", "unknown")
MODEL_UID = "self"


@dataclass
class ExpectedColumn:
    name: str
    kind: str
    resolved: bool
    sources: list[str]


@dataclass
class Case:
    file: str
    line: int
    title: str
    sql: str = ""
    dialect: str = "duckdb"
    schema: dict[str, list[str] | None] = field(default_factory=dict)
    ephemeral: dict[str, list[str]] = field(default_factory=dict)
    nodes: dict[str, dict] = field(default_factory=dict)
    this: str | None = None
    output: list[str] | None = None
    declared: list[str] | None = None
    status: str | None = None
    reason: str | None = None
    types: dict[str, str] = field(default_factory=dict)
    columns: list[ExpectedColumn] = field(default_factory=list)
    conditions: list[tuple[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.title}"


def parse_cases(path: Path) -> list[Case]:
    cases: list[Case] = []
    case: Case | None = None
    section = "header"
    sql_lines: list[str] = []
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.rstrip()
        if line.startswith("=== "):
            if case is not None:
                case.sql = "\n".join(sql_lines).strip()
                cases.append(case)
            case = Case(path.name, lineno, line[4:].strip())
            section, sql_lines = "header", []
            continue
        if case is None:
            continue  # file preamble
        stripped = line.strip()
        if stripped in ("sql:", "expect:", "conditions:"):
            section = stripped[:-1]
            continue
        if section == "sql":
            sql_lines.append(line)
            continue
        if not stripped or stripped.startswith("#"):
            continue
        where = f"{path.name}:{lineno}"
        if section == "header":
            key, _, value = stripped.partition(":")
            key, value = key.strip(), value.strip()
            if key in ("schema", "ephemeral", "nodes", "output", "declared", "types"):
                setattr(case, key, json.loads(value))
            elif key in ("dialect", "this", "status", "reason"):
                setattr(case, key, value)
            else:
                raise ValueError(f"{where}: unknown header {key!r}")
        elif section == "expect":
            tokens = stripped.split()
            if len(tokens) < 2 or tokens[1] not in KINDS:
                raise ValueError(f"{where}: expected '<name> <type> [unresolved] [sources]', got {stripped!r}")
            resolved = "unresolved" not in tokens[2:]
            sources = [t.rstrip(",") for t in tokens[2:] if t not in ("unresolved", "-")]
            case.columns.append(ExpectedColumn(typed(tokens[0]), tokens[1], resolved, sources))
        elif section == "conditions":
            tokens = stripped.split()
            if len(tokens) != 2:
                raise ValueError(f"{where}: expected '<clause> <relation>.<column>', got {stripped!r}")
            case.conditions.append((tokens[0], tokens[1]))
    if case is not None:
        case.sql = "\n".join(sql_lines).strip()
        cases.append(case)
    return cases


def all_cases() -> list[Case]:
    return [c for path in sorted(CASES_DIR.glob("*.sql")) for c in parse_cases(path)]


# --------------------------------------------------------------------------- fake project


def _node(uid: str, relation: str | None, columns: list[str] | None, **extra) -> DbtNode:
    name = extra.pop("name", None) or uid.rsplit(".", 1)[-1]
    declared = extra.pop("declared", None) or []
    cols = [DbtColumn(name=c, in_catalog=True) for c in columns or []]
    cols += [DbtColumn(name=c, declared=True) for c in declared]
    return DbtNode(
        unique_id=uid,
        resource_type=extra.pop("resource_type", "model"),
        package_name=extra.pop("package_name", "test"),
        name=name,
        relation_name=relation,
        materialized=extra.pop("materialized", "table"),
        columns=tuple(cols),
        **extra,
    )


def build_project(case: Case) -> DbtProject:
    nodes: dict[str, DbtNode] = {}
    for relation, columns in case.schema.items():
        nodes[relation] = _node(relation, relation, columns)
    for name, columns in case.ephemeral.items():
        nodes[name] = _node(name, None, None, name=name, materialized="ephemeral", declared=columns)
    for uid, spec in case.nodes.items():
        spec = dict(spec)
        nodes[uid] = _node(uid, spec.pop("relation", None), spec.pop("columns", None), **spec)
    if case.this:
        nodes[MODEL_UID] = _node(MODEL_UID, case.this, case.output, materialized="incremental")
    return DbtProject(
        name="test",
        target_dir="/nonexistent",
        adapter_type=case.dialect,
        dialect=case.dialect,
        dbt_version=None,
        manifest_sha256="",
        catalog_sha256=None,
        nodes=nodes,
    )


def run_case(case: Case) -> ModelLineage:
    project = build_project(case)
    relations = RelationIndex.for_project(project)
    columns = ProjectColumns(project)
    # catalog.json's names as the analysis of a project takes them (ProjectColumns)
    output = [stored_name(n, case.dialect) for n in case.output] if case.output is not None else None
    own = output if output is not None else case.declared
    return ModelAnalyzer(MODEL_UID, case.sql, case.dialect, relations, columns, output, own).run()


# --------------------------------------------------------------------------- comparison


def describe(lineage: ModelLineage) -> list[str]:
    """The analyzer's result in the case file's own notation."""
    lines = [f"status: {lineage.status.value}" + (f" ({lineage.reason})" if lineage.reason else "")]
    for c in lineage.columns:
        flag = "" if c.resolved else " unresolved"
        srcs = " ".join(s.key for s in c.sources) or "-"
        lines.append(f"{c.name} {c.kind.value}{flag} {srcs}")
    if lineage.conditions:
        lines.append("conditions:")
        lines.extend(f"{c.clause.value} {c.column.key}" for c in lineage.conditions)
    return lines


def compare(case: Case, lineage: ModelLineage) -> list[str]:
    """Every difference between the case's expectation and the analysis, as text."""
    problems: list[str] = []
    want_status = case.status or ("resolved" if all(c.resolved for c in case.columns) else "partial")
    if lineage.status.value != want_status:
        problems.append(f"status {lineage.status.value} ({lineage.reason}), expected {want_status}")
    if case.reason and case.reason.lower() not in (lineage.reason or "").lower():
        problems.append(f"reason {lineage.reason!r} does not mention {case.reason!r}")
    got_names = [c.name for c in lineage.columns]
    want_names = [c.name for c in case.columns]
    if got_names != want_names:
        problems.append(f"columns {got_names}, expected {want_names}")
    by_name = {c.name: c for c in lineage.columns}
    for want in case.columns:
        got = by_name.get(want.name)
        if got is None:
            continue
        if got.kind.value != want.kind:
            problems.append(f"{want.name}: type {got.kind.value}, expected {want.kind}")
        if got.resolved != want.resolved:
            problems.append(f"{want.name}: resolved {got.resolved} ({got.reason}), expected {want.resolved}")
        got_src = {typed_key(s.key) for s in got.sources}
        want_src = {typed_key(s) for s in want.sources}
        for s in sorted(want_src - got_src):
            problems.append(f"{want.name}: missing edge <- {s}")
        for s in sorted(got_src - want_src):
            problems.append(f"{want.name}: extra edge <- {s}")
    got_cond = {(c.clause.value, typed_key(c.column.key)) for c in lineage.conditions}
    want_cond = {(cl, typed_key(col)) for cl, col in case.conditions}
    for cl, col in sorted(want_cond - got_cond):
        problems.append(f"missing condition {cl} {col}")
    for cl, col in sorted(got_cond - want_cond):
        problems.append(f"extra condition {cl} {col}")
    return problems
