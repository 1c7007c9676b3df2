"""``catalog check``: what a change does to everything downstream, and whether it may merge.

A change is compared with its base (an old dbt target, as with dbt's ``--state``, or the
active build in Neo4j) column by column, from :func:`catalog.compare.diff_state` (the same
column-aware comparison ``prune --state`` makes, from the analyzer's one parse). Every changed
column becomes a :class:`Finding`: added, removed, renamed (same lineage and expression, new
name; or, the model's SQL unchanged, a rename upstream passed on: ``select *``), expression
changed, lineage changed, data type changed, documentation or PII tag changed, the model's
rows changed (a condition: WHERE, JOIN, GROUP BY, ...), or it reads a
column the change removes. Each finding lists what it hits downstream, model columns,
semantic-model elements, metrics, exposures and saved queries, with one path each, value
lineage and condition lineage apart (a removed column: what reads it, models changed in the
same change included), and gets a class:

- ``breaking``: a removed, renamed or retyped column that something downstream reads, a column
  (or a model's rows, through an unchanged WHERE, JOIN, ...) that reads a removed one, or any
  change but documentation to a column of a model with ``access: public``; of a model whose
  base enforces its contract, exactly what breaks the contract as dbt's state comparison says
  (:mod:`catalog.contract`), every other finding of that model below breaking;
- ``partial``: values (or rows) change, and nothing reads a column that disappears;
- ``safe``: added columns (one nothing reads says so, as ``catalog unused`` would), documentation,
  columns nothing reads that disappear;
- ``policy``: a PII column newly flows (value lineage, any depth) into a column not tagged PII,
  into a public or contracted model, or into an exposure. A PII column is one tagged so, one a
  tagged column is computed from (its value), or one that either passes on unchanged
  (passthrough or renamed, any depth up).

Over 600 lines: the answer's records and the one checker that fills them are kept together, so
that each finding's fields sit beside the code that makes them; the walks are
:mod:`catalog.lineage`'s.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel

from catalog.analyze.records import ColumnKind, ColumnLineage, ModelLineage, column_key, column_names
from catalog.extract import DbtColumn, DbtNode, DbtProject, is_pii, key_names
from catalog.idents import typed
from catalog.compare import ClauseChange, ColumnChange, StateDiff, diff_state, sql_changed_models
from catalog.contract import ContractBreak, contract_breaks
from catalog.lineage.records import LineageGraph, PruneHop, hop_dict
from catalog.lineage.unused import UnusedColumn, readers_in_memory, unused_columns, why_unused
from catalog.walks import reached, upstream_first
from catalog.masking import is_masked, masking_names
from catalog.prune import prune_state
from catalog.store.keys import short_label

Severity = Literal["breaking", "policy", "partial", "safe"]
FailOn = Literal["breaking", "partial", "never"]
ORDER: dict[str, int] = {"breaking": 0, "policy": 0, "partial": 1, "safe": 2}
COPIES = (ColumnKind.PASSTHROUGH, ColumnKind.RENAMED)  # the kinds of a column that holds its source's value
# kinds of what a finding hits, by the unique id's first part
HIT_KINDS = {
    "model": "column",
    "snapshot": "column",
    "seed": "column",
    "source": "column",
    "semantic_model": "semantic",
    "metric": "metric",
    "exposure": "exposure",
    "saved_query": "saved_query",
    "bi_field": "bi_field",
    "chart": "chart",
    "dashboard": "dashboard",
}


class Hit(BaseModel, frozen=True):
    """Something downstream of a changed column: a column (of a model or a semantic model),
    a metric, an exposure or a saved query, and how it is reached."""

    key: str  # column id, or the consumer's unique id
    name: str  # as people write it: orders.amount, order_total
    kind: str  # column, semantic, metric, exposure, saved_query
    owner: str  # the unique id of its model (itself for a consumer)
    lineage: Literal["value", "condition"]  # through FEEDS alone, or through a condition
    path: tuple[PruneHop, ...] = ()


class Finding(BaseModel, frozen=True):
    unique_id: str  # the changed model
    model: str
    column: str  # "*": the model's rows
    # added, removed, renamed, expression, lineage, data_type, documentation, pii_tag, rows, pii_flow,
    # reads_removed (it read a column the change removes); of an enforced contract: constraint,
    # materialization, contract (no longer enforced)
    changes: tuple[str, ...]
    severity: Severity
    detail: str = ""
    renamed_to: str | None = None
    cause: str = ""  # renamed: the upstream column (model.column) whose rename it passes on
    why: str = ""  # the reason for the severity
    hits: tuple[Hit, ...] = ()
    tests: tuple[str, ...] = ()  # names of the dbt tests that read the changed column (or, for "*", the model)
    clauses: tuple[ClauseChange, ...] = ()  # rows ("*"): the conditions whose SQL changed, as written

    def hit_names(self, kind: str) -> list[str]:
        """Names of the hits of a kind: ``revenue`` for this project's ``metric:revenue``,
        ``finance:revenue`` for another project's (dbt Mesh)."""
        return sorted({h.name if ":" in h.owner else h.name.split(":", 1)[-1] for h in self.hits if h.kind == kind})

    def hit_models(self) -> list[str]:
        return sorted(set(self.hit_model_counts()))

    def hit_model_counts(self) -> dict[str, int]:
        """Model name -> how many of its columns this finding hits."""
        counts: dict[str, int] = {}
        for h in self.hits:
            if h.kind == "column":
                name = short_label(h.owner) if h.owner.count(".") >= 2 else h.owner
                counts[name] = counts.get(name, 0) + 1
        return counts


class DbtTestHit(BaseModel, frozen=True):
    """A dbt test that reads a changed column, directly."""

    name: str  # what `dbt build -s` selects it by
    unique_id: str
    kind: str  # generic | singular | unit
    columns: tuple[str, ...]  # the changed columns it reads, as model.column


class CheckReport(BaseModel):
    project: str
    base: str  # the old target's path, or "build N"
    findings: tuple[Finding, ...] = ()
    new_models: tuple[str, ...] = ()
    removed_models: tuple[str, ...] = ()
    selector: str = ""  # the models to rebuild, as `prune --state` selects them (`dbt build -s`)
    exposure_owners: dict[str, str] = {}  # name of an exposure hit -> its owner's name (or email)
    exposure_precision: dict[str, str] = {}  # name of an exposure hit -> column (it lists its columns) or model
    files: dict[str, str] = {}  # unique id of a model with findings -> its file in its package (original_file_path)
    packages: dict[str, str] = {}  # unique id of a model of an installed package with findings -> that package
    tests: tuple[DbtTestHit, ...] = ()  # the dbt tests that read a changed column; their names are in the selector

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for f in self.findings if f.severity == s) for s in ("breaking", "policy", "partial", "safe")}

    def failing(self, fail_on: FailOn) -> list[Finding]:
        if fail_on == "never":
            return []
        limit = ORDER[fail_on]
        return [f for f in self.findings if ORDER[f.severity] <= limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "base": self.base,
            "counts": self.counts(),
            "findings": [
                {
                    "model": f.model,
                    "unique_id": f.unique_id,
                    "column": f.column,
                    "changes": list(f.changes),
                    "severity": f.severity,
                    "why": f.why,
                    "detail": f.detail,
                    "renamed_to": f.renamed_to,
                    "cause": f.cause,
                    "models_hit": f.hit_models(),
                    "metrics_hit": f.hit_names("metric"),
                    "exposures_hit": f.hit_names("exposure"),
                    "saved_queries_hit": f.hit_names("saved_query"),
                    **{f"{k}s_hit": f.hit_names(k) for k in ("bi_field", "chart", "dashboard") if f.hit_names(k)},
                    "tests": list(f.tests),
                    **({"clauses": [c.model_dump() for c in f.clauses]} if f.clauses else {}),  # of a changed condition
                    "hits": [
                        {"key": h.key, "name": h.name, "kind": h.kind, "lineage": h.lineage, "path": [hop_dict(p) for p in h.path]}
                        for h in f.hits
                    ],
                }
                for f in self.findings
            ],
            "new_models": list(self.new_models),
            "removed_models": list(self.removed_models),
            "selector": self.selector,
            "tests": [t.model_dump(mode="json") for t in self.tests],
            "exposure_owners": dict(sorted(self.exposure_owners.items())),
            "exposure_precision": dict(sorted(self.exposure_precision.items())),
        }

    def owners_hit(self, f: Finding) -> list[str]:
        """The owners of the exposures this finding hits."""
        return sorted({self.exposure_owners[n] for n in f.hit_names("exposure") if n in self.exposure_owners})


# ---------------------------------------------------------------------------- the comparison
def check_states(
    old: DbtProject,
    old_lineages: dict[str, ModelLineage],
    new: DbtProject,
    new_lineages: dict[str, ModelLineage],
    base: str,
) -> CheckReport:
    """Compare two versions of a project (lineages from :func:`catalog.compare.analyze_states`)."""
    diff = diff_state(old, old_lineages, new, new_lineages)
    # the base's graph lives as long as the checker; the change's is the selector's too
    new_graph = lineage_graph(new, new_lineages)
    report = _Checker(old, old_lineages, new, new_lineages, diff, lineage_graph(old, old_lineages), new_graph, base).run()
    hit = {h.key for f in report.findings for h in f.hits if h.kind == "exposure"}
    owners = {e.name: e.owner for uid, e in new.exposures.items() if uid in hit and e.owner}
    precision = {e.name: e.precision for uid, e in new.exposures.items() if uid in hit}
    selector = prune_state(old, old_lineages, new, new_lineages, diff=diff, graph=new_graph).selector()
    del new_graph
    nodes = [new.nodes[uid] for uid in sorted({f.unique_id for f in report.findings}) if uid in new.nodes and not new.nodes[uid].external_project]
    files = {n.unique_id: n.path for n in nodes if n.path}
    packages = {n.unique_id: n.package_name for n in nodes if n.path and n.package_name.lower() != new.name.lower()}
    findings, tests = tests_of_findings(report.findings, (old, old_lineages), (new, new_lineages))
    selector = " ".join([selector, *sorted({t.name for t in tests})]).strip()
    return report.model_copy(update={"selector": selector, "exposure_owners": owners, "exposure_precision": precision, "files": files, "packages": packages, "findings": findings, "tests": tests})


# what a finding's test must see again: not a change of documentation or tags alone
_UNTESTED_CHANGES = frozenset({"documentation", "pii_tag"})


def tests_of_findings(
    findings: tuple[Finding, ...], *versions: tuple[DbtProject, dict[str, ModelLineage]]
) -> tuple[tuple[Finding, ...], tuple[DbtTestHit, ...]]:
    """Each finding with the names of the tests that read its column directly (a ``*`` finding:
    any column of its model), in either version (``versions``: the base's and the change's
    project and lineages: a test of a removed column is the base's); and those tests, by name."""
    from catalog.analyze.dbt_tests import columns_tested

    readers: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)  # column key -> test uid -> (name, kind)
    by_model: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
    for project, lineages in versions:
        for uid, refs in columns_tested(project, column_names(lineages)).items():
            test = project.tests[uid]
            for r in refs:
                readers[r.key][uid] = (test.name, test.kind)
                by_model[r.unique_id][uid] = (test.name, test.kind)
    out: list[Finding] = []
    hits: dict[str, tuple[str, str, set[str]]] = {}
    for f in findings:
        if set(f.changes) <= _UNTESTED_CHANGES:
            out.append(f)
            continue
        if f.column == "*":
            found = by_model.get(f.unique_id, {})
        else:
            found = {**readers.get(column_key(f.unique_id, f.column), {}), **readers.get(column_key(f.unique_id, f.renamed_to or f.column), {})}
        for uid, (name, kind) in found.items():
            hits.setdefault(uid, (name, kind, set()))[2].add(f"{f.model}.{f.column}")
        out.append(f.model_copy(update={"tests": tuple(sorted({name for name, _ in found.values()}))}) if found else f)
    tests = tuple(
        DbtTestHit(name=name, unique_id=uid, kind=kind, columns=tuple(sorted(columns)))
        for uid, (name, kind, columns) in sorted(hits.items(), key=lambda kv: (kv[1][0], kv[0]))
    )
    return tuple(out), tests


def lineage_graph(project: DbtProject, lineages: dict[str, ModelLineage]) -> LineageGraph:
    """The project's lineage in memory, down to its metrics, exposures, saved queries and BI fields, charts and dashboards."""
    from catalog.bi.link import consumer_lineage

    semantic, consumers = consumer_lineage(project, column_names(lineages))
    return LineageGraph(project, {**lineages, **semantic}, consumers)


class Named:
    """Columns by name, one dict per model made the first time one of its columns is looked up:
    a lookup per column of a model stays linear in its columns (``DbtNode.column`` and
    ``ModelLineage.column`` scan them)."""

    def __init__(self) -> None:
        self._maps: dict[int, dict[str, Any]] = {}  # id of the node or lineage -> name -> column

    def _map(self, owner: object, names: Callable[[], Iterable[tuple[str, Any]]]) -> dict[str, Any]:
        found = self._maps.get(id(owner))
        if found is None:
            found = self._maps[id(owner)] = {}
            for name, column in names():
                found.setdefault(name, column)  # the first of a name, as the scans find it
        return found

    def node_column(self, node: DbtNode, name: str, dialect: str | None) -> DbtColumn | None:
        """``node.column(name, dialect)``."""
        return self._map(node, lambda: zip(key_names(node.columns, dialect), node.columns)).get(typed(name))

    def lineage_column(self, lin: ModelLineage | None, name: str) -> ColumnLineage | None:
        """``lin.column(name)``; None without a lineage."""
        return None if lin is None else self._map(lin, lambda: ((c.name, c) for c in lin.columns)).get(typed(name))


class _Checker:
    def __init__(
        self,
        old: DbtProject,
        old_lineages: dict[str, ModelLineage],
        new: DbtProject,
        new_lineages: dict[str, ModelLineage],
        diff: StateDiff,
        old_graph: LineageGraph,
        new_graph: LineageGraph,
        base: str,
    ):
        self.old, self.new = old, new
        self.old_lineages, self.new_lineages = old_lineages, new_lineages
        self.diff = diff
        self.old_graph, self.new_graph = old_graph, new_graph
        self.base = base
        self.named = Named()
        # the base's columns the change takes away: removed (or renamed) ones, removed models'
        self.gone = {column_key(uid, c.column) for uid, found in diff.changes.items() for c in found if c.change == "removed"}
        self.gone |= {key for uid in diff.removed_models for key in old_graph.model_columns.get(uid, ())}
        self.breaks = self._contract_breaks()
        self.sql_changed = sql_changed_models(old, new)
        self.renamed_keys: dict[str, str] = {}  # column id -> its new id, for renamed columns
        self.renames = self._all_renames()
        self._unread: dict[str, UnusedColumn] | None = None  # see _why_unread

    def _contract_breaks(self) -> dict[str, dict[str, list[ContractBreak]]]:
        """Per model whose base enforces its contract: column (``*``: the model) -> what breaks
        it (:mod:`catalog.contract`), a declared column gone from the model's output included."""
        out: dict[str, dict[str, list[ContractBreak]]] = {}
        for uid in sorted(set(self.old.nodes) & set(self.new.nodes)):
            found = contract_breaks(self.old.nodes[uid], self.new.nodes[uid], self.new.adapter_type)
            if found is None:
                continue
            contract = self.old.nodes[uid].contract
            listed = {b.column for b in found if b.kind == "removed"}
            for c in self.diff.changes.get(uid, ()):
                if c.change == "removed" and c.column not in listed and contract is not None and contract.column(c.column):
                    found.append(ContractBreak(column=c.column, kind="removed", detail="declared column gone from the model's output"))
            by_column: dict[str, list[ContractBreak]] = defaultdict(list)
            for b in found:
                by_column[b.column].append(b)
            out[uid] = dict(by_column)
        return out

    def run(self) -> CheckReport:
        findings: list[Finding] = []
        for uid in sorted(set(self.new.nodes) & set(self.old.nodes)):
            if uid not in self.diff.changes and self.new.nodes[uid] == self.old.nodes[uid] and not self.breaks.get(uid):
                continue  # the same record, nothing changed in its columns: no finding
            if uid in self.diff.new_models:
                findings += self._doc_findings(uid, set())
            else:
                findings += self._model_findings(uid, self.diff.changes.get(uid, ()))
        findings += self._semantic_findings()
        findings += self._policy_findings()
        findings.sort(key=lambda f: (ORDER[f.severity], f.unique_id, f.column))
        return CheckReport(
            project=self.new.name,
            base=self.base,
            findings=tuple(findings),
            new_models=self.diff.new_models,
            removed_models=self.diff.removed_models,
        )

    # ------------------------------------------------------------------ per model
    def _model_findings(self, uid: str, changes: tuple[ColumnChange, ...]) -> list[Finding]:
        node, before = self.new.nodes[uid], self.old.nodes[uid]
        renames = {a: b for a, (b, _) in self.renames.get(uid, {}).items()}
        out: list[Finding] = []
        seen: set[str] = set()
        for c in changes:
            if c.column in renames.values():
                continue  # the new name of a renamed column: reported with the old one
            kinds: tuple[str, ...]
            renamed_to, detail, cause = None, c.detail, ""
            if c.change == "removed" and c.column in renames:
                kinds, renamed_to = ("renamed",), renames[c.column]
                upstream = self.renames[uid][c.column][1]
                if upstream:  # a rename upstream, passed on unchanged (select *)
                    cause = self._label(upstream)
                    detail = f"passes on the rename of {cause} to {self.new_graph.column_name[self.renamed_keys[upstream]]}"
            elif c.change == "rows" and self._conditions_read_gone(uid):
                kinds = ("reads_removed", "rows")
            elif c.change in ("added", "removed", "rows"):
                kinds = (c.change,)
            elif self._reads_gone(uid, c.column):
                kinds = ("reads_removed", *(a for a in c.aspects if a != "lineage"))
            else:
                kinds = c.aspects or ("expression",)
            seen.add(c.column)
            docs = self._doc_changes(before, node, c.column) if c.change == "modified" else ()
            found = self._finding(node, c.column, kinds + docs + self._contract_kinds(uid, c.column, kinds), detail, renamed_to)
            update = {"cause": cause} if cause else {}
            if c.clauses:
                update["clauses"] = c.clauses
            out.append(found.model_copy(update=update) if update else found)
        for column, found in sorted(self.breaks.get(uid, {}).items()):
            if column not in seen:  # a contract change alone: YAML data types, constraints, materialization
                seen.add(column)
                kinds = self._contract_kinds(uid, column, ()) + (self._doc_changes(before, node, column) if column != "*" else ())
                out.append(self._finding(node, column, kinds, "; ".join(b.detail for b in found), None))
        out += self._doc_findings(uid, seen)
        return out

    def _contract_kinds(self, uid: str, column: str, kinds: tuple[str, ...]) -> tuple[str, ...]:
        """The change kinds the contract's breaking changes of a column add to ``kinds``."""
        named = {"removed": "renamed" if "renamed" in kinds else "removed", "disabled": "contract"}
        out = dict.fromkeys(named.get(b.kind, b.kind) for b in self.breaks.get(uid, {}).get(column, ()))
        return tuple(k for k in out if k not in kinds)

    def _reads_gone(self, uid: str, name: str) -> bool:
        """Whether a column read a column the change takes away, and the analysis now cannot
        resolve it (its reason is in the change's detail)."""
        old_lin, new_lin = self.old_lineages.get(uid), self.new_lineages.get(uid)
        a, b = self.named.lineage_column(old_lin, name), self.named.lineage_column(new_lin, name)
        return bool(a and b and not b.resolved and any(s.key in self.gone for s in a.sources))

    def _conditions_read_gone(self, uid: str) -> bool:
        """Whether a model whose SQL is unchanged lost a condition (WHERE, JOIN, GROUP BY, ...)
        on a column the change takes away: it still reads it, and the analysis drops it."""
        old_lin, new_lin = self.old_lineages.get(uid), self.new_lineages.get(uid)
        if uid in self.sql_changed or old_lin is None or new_lin is None:
            return False
        lost = {(c.column.key, c.clause) for c in old_lin.conditions} - {(c.column.key, c.clause) for c in new_lin.conditions}
        return any(key in self.gone for key, _ in lost)

    def _still_reads(self, key: str) -> bool:
        """Whether a column (or model) that read a removed column in the base reads it in the
        change too: its model is unchanged, or its SQL is (a condition, WHERE, JOIN, GROUP BY,
        on a column that is missing: the analysis drops it), or the column went away as well,
        or it now reads a column that is missing (the analysis cannot resolve it)."""
        uid = self.old_graph.column_model.get(key, key)
        if uid not in self.diff.changes or uid not in self.sql_changed:
            return True
        lin = self.new_lineages.get(uid)
        if key == uid or lin is None:
            return False
        now = self.named.lineage_column(lin, self.old_graph.column_name[key])
        return now is None or not now.resolved

    def _all_renames(self) -> dict[str, dict[str, tuple[str, str]]]:
        """Per changed model, upstream first: old name -> (new name, the upstream column id
        whose rename it passes on, or "")."""
        changed = {uid for uid in self.diff.changes if uid in self.old.nodes and uid not in self.diff.new_models}
        out: dict[str, dict[str, tuple[str, str]]] = {}
        for uid in upstream_first(changed, lambda u: self.new.nodes[u].depends_on):
            changes = self.diff.changes[uid]
            found = self._renames(uid, [c.column for c in changes if c.change == "removed"], [c.column for c in changes if c.change == "added"])
            if found:
                out[uid] = found
                self.renamed_keys.update({column_key(uid, a): column_key(uid, b) for a, (b, _) in found.items()})
        return out

    def _renames(self, uid: str, removed: list[str], added: list[str]) -> dict[str, tuple[str, str]]:
        """old name -> (new name, cause), for a removed and an added column of the same value:
        the same expression over the same upstream columns, or, the model's SQL unchanged, the
        same kind of column over the new names of upstream columns renamed (the cause)."""
        if not removed or not added:
            return {}
        old_lin, new_lin = self.old_lineages.get(uid), self.new_lineages.get(uid)
        if old_lin is None or new_lin is None:
            return {}
        d_old, d_new = old_lin.definitions, new_lin.definitions

        def same(a: str, b: str) -> str | None:
            ca, cb = self.named.lineage_column(old_lin, a), self.named.lineage_column(new_lin, b)
            if ca is None or cb is None or not ca.sources:
                return None
            moved = {s.key: self.renamed_keys.get(s.key, s.key) for s in ca.sources}
            if set(moved.values()) != {s.key for s in cb.sources}:
                return None
            causes = sorted(k for k, v in moved.items() if k != v)
            if causes:
                return causes[0] if uid not in self.sql_changed and ca.kind == cb.kind else None
            if d_old is not None and d_new is not None and a in d_old.columns and b in d_new.columns:
                return "" if d_old.columns[a] == d_new.columns[b] else None
            return "" if ca.expr == cb.expr else None

        out: dict[str, tuple[str, str]] = {}
        free = list(added)
        for a in removed:
            match = [(b, cause) for b in free if (cause := same(a, b)) is not None]
            if len(match) == 1:
                out[a] = match[0]
                free.remove(match[0][0])
        return out

    def _label(self, key: str) -> str:
        """``stg_orders.tax_paid`` for a column id of the base."""
        return hit_name(self.old_graph, key, self.old_graph.column_model.get(key, key))

    def _doc_changes(self, before: DbtNode, node: DbtNode, name: str) -> tuple[str, ...]:
        a, b = self.named.node_column(before, name, self.old.dialect), self.named.node_column(node, name, self.new.dialect)
        if a is None or b is None:
            return ()
        kinds = []
        if a.description != b.description or set(a.tags) - set(_PII_TAGS) != set(b.tags) - set(_PII_TAGS) or _meta(a) != _meta(b):
            kinds.append("documentation")
        if is_pii(a.tags, a.meta) != is_pii(b.tags, b.meta):
            kinds.append("pii_tag")
        return tuple(kinds)

    def _doc_findings(self, uid: str, skip: set[str]) -> list[Finding]:
        node, before = self.new.nodes[uid], self.old.nodes.get(uid)
        if before is None:
            return []
        out = []
        for c in node.columns:
            name = c.key_name(self.new.dialect)
            if name in skip:
                continue
            kinds = self._doc_changes(before, node, name)
            if kinds:
                b = self.named.node_column(node, name, self.new.dialect)
                detail = "PII tag " + ("added" if b and is_pii(b.tags, b.meta) else "removed") if "pii_tag" in kinds else ""
                out.append(self._finding(node, name, kinds, detail, None))
        return out

    # ------------------------------------------------------------------ one finding
    def _finding(self, node: DbtNode, column: str, kinds: tuple[str, ...], detail: str, renamed_to: str | None) -> Finding:
        hits = self._hits(node.unique_id, column, kinds)
        return _found(node.unique_id, node.display_name, column, kinds, self._graded(node, column, kinds, hits), detail, hits, renamed_to)

    def _hits(self, uid: str, column: str, kinds: tuple[str, ...]) -> tuple[Hit, ...]:
        if set(kinds) <= {"added", "documentation", "pii_tag"}:
            return ()
        if column == "*":
            starts = list(self.new_graph.model_columns.get(uid, ()))
            return _collect(self.new_graph, starts, skip_owner=uid)
        key = column_key(uid, column)
        if kinds[0] in ("removed", "renamed"):
            # who still reads it in the change, and who read it before and still does (see
            # _still_reads), with models changed in the change too
            now = _collect(self.new_graph, [key], skip_owner=uid)
            seen = {h.key for h in now}
            before = [h for h in _collect(self.old_graph, [key], skip_owner=uid, keep=self._still_reads) if h.key not in seen]
            return tuple(sorted([*now, *before], key=lambda h: (h.lineage != "value", len(h.path), h.key)))
        return _collect(self.new_graph, [key], skip_owner=uid)

    def _graded(self, node: DbtNode, column: str, kinds: tuple[str, ...], hits: tuple[Hit, ...]) -> tuple[Severity, str]:
        """The class of a model's finding: under the base's enforced contract, breaking exactly
        what breaks the contract as dbt says (:mod:`catalog.contract`), every other finding
        of that model with its class otherwise, breaking aside (partial)."""
        breaks = self.breaks.get(node.unique_id)
        if breaks is None:
            return self._unread_said(node.unique_id, column, kinds, self._severity(node, kinds, hits))
        name = node.display_name
        if breaks.get(column):
            return "breaking", f"breaks the enforced contract of {name}: " + "; ".join(b.detail for b in breaks[column])
        severity, why = self._unread_said(node.unique_id, column, kinds, self._severity(node, kinds, hits, governed=False))
        return ("partial" if severity == "breaking" else severity), f"{why}; not a breaking change of the enforced contract of {name}"

    def _unread_said(self, uid: str, column: str, kinds: tuple[str, ...], graded: tuple[Severity, str]) -> tuple[Severity, str]:
        """An added column nobody reads in the change is safe, and says so: why, as ``catalog
        unused`` answers it (:mod:`catalog.lineage.unused`, end models counted)."""
        if kinds != ("added",) or graded[0] != "safe":
            return graded
        if self._unread is None:
            from catalog.analyze.dbt_tests import columns_tested

            nodes = readers_in_memory(self.new_graph, columns_tested(self.new, column_names(self.new_lineages)))
            self._unread = {column_key(m.unique_id, c.column): c for m in unused_columns(nodes, end_models=True) for c in m.columns}
        found = self._unread.get(column_key(uid, column))
        return graded if found is None else (graded[0], f"{graded[1]}; unused: {why_unused(found)}")

    def _severity(self, node: DbtNode, kinds: tuple[str, ...], hits: tuple[Hit, ...], governed: bool = True) -> tuple[Severity, str]:
        # a contract enforced in the base is graded by _graded; one the record of a stored
        # build keeps no details of (made by an older catalog) makes every change breaking
        unknown_contract = node.unique_id in self.old.nodes and self.old.nodes[node.unique_id].contract_enforced
        docs_only = set(kinds) <= {"documentation", "pii_tag"}
        if governed and not docs_only and (node.access == "public" or unknown_contract):
            what = "access: public" if node.access == "public" else "an enforced contract"
            return "breaking", f"{node.display_name} has {what}"
        if kinds[0] == "reads_removed":
            return "breaking", "reads a removed column"
        disappears = kinds[0] in ("removed", "renamed") or "data_type" in kinds
        if disappears and hits:
            verb = {"removed": "removed", "renamed": "renamed"}.get(kinds[0], "retyped")
            return "breaking", f"{verb}, and read downstream"
        if docs_only or kinds == ("added",) or disappears:
            return "safe", "nothing downstream reads it" if disappears else "no value changes"
        return "partial", "rows change downstream" if kinds[0] == "rows" else "values change downstream"

    # ------------------------------------------------------------------ semantic layer
    def _semantic_findings(self) -> list[Finding]:
        """Measures, dimensions and entities whose ``expr`` changed; metrics whose inputs changed."""
        from catalog.analyze.semantic import semantic_changes

        out = []
        for uid, name, kinds, detail in semantic_changes(self.old, self.new):
            hits = _collect(self.new_graph, [column_key(uid, name) if not uid.startswith("metric.") else uid], skip_owner=uid)
            removed = kinds[0] == "removed"
            old_hits = _collect(self.old_graph, [column_key(uid, name) if not uid.startswith("metric.") else uid], skip_owner=uid)
            if removed:
                hits = old_hits
            severity: Severity = "breaking" if removed and hits else ("safe" if removed or kinds == ("added",) else "partial")
            why = {"breaking": "removed, and read downstream", "safe": "nothing downstream reads it" if removed else "no value changes"}.get(
                severity, "values change downstream"
            )
            model = f"{uid.split('.', 1)[0]}:{short_label(uid)}" if not uid.startswith("metric.") else "metric"
            out.append(_found(uid, model, name, kinds, (severity, why), detail, hits))
        return out

    # ------------------------------------------------------------------ PII policy
    def _touched(self) -> set[str]:
        """The columns (and consumers) the change touches, and every column upstream of one on
        either side: :func:`policy_changes`, and the consumers whose edges in differ. A walk
        downstream from any other column meets the same edges, the same lineages and the same
        records in the base and in the change."""
        graphs = (self.old_graph, self.new_graph)
        keys = policy_changes(self.old, self.new, self.old_graph.lineages, self.new_graph.lineages)
        into = [_edges_into(g) for g in graphs]
        keys |= {down for down in into[0].keys() | into[1].keys() if into[0].get(down) != into[1].get(down)}
        touched = set(keys)
        for g, edges in zip(graphs, into):
            touched |= reached(keys, lambda key, g=g, edges=edges: [e[0] for e in edges[key]] if key in edges else self._sources(g, key))
        return touched

    def _sources(self, graph: LineageGraph, key: str) -> list[str]:
        """The columns a column is computed from, on one side."""
        col = self.named.lineage_column(graph.lineages.get(graph.column_model.get(key, "")), graph.column_name.get(key, key))
        return [s.key for s in col.sources] if col is not None else []

    def _policy_findings(self) -> list[Finding]:
        was_pii = pii_columns(self.old, self.old_graph)
        pii = pii_columns(self.new, self.new_graph)
        functions = masking_names(self.new.masking_functions)  # the change's list, on both sides
        # a PII column upstream of nothing the change touches reaches the same columns on both sides
        touched = self._touched()
        walked = [key for key in pii if key in was_pii and key in touched]
        before = _pii_reach(self.old, self.old_graph, walked, functions)
        after = _pii_reach(self.new, self.new_graph, walked, functions)
        out = []
        for key in sorted(after):
            if key not in was_pii:  # newly PII (a new tag): a documentation change, not a new flow
                continue
            fresh = {t: p for t, p in after[key].items() if t not in before.get(key, {})}
            if not fresh:
                continue
            uid = self.new_graph.column_model[key]
            node = self.new.nodes[uid]
            hits = tuple(
                Hit(key=t, name=hit_name(self.new_graph, t, self.new_graph.column_model[t]), kind=_kind(self.new_graph.column_model[t]), owner=self.new_graph.column_model[t], lineage="value", path=tuple(p))
                for t, p in sorted(fresh.items())
            )
            through = "" if key in pii[key] else _pii_origin(pii[key])
            out.append(
                Finding(
                    unique_id=uid,
                    model=node.display_name,
                    column=self.new_graph.column_name[key],
                    changes=("pii_flow",),
                    severity="policy",
                    detail=f"PII{through} now reaches " + ", ".join(h.name for h in hits),
                    why="a PII column newly flows into a column not tagged PII, a public or contracted model, or an exposure",
                    hits=hits,
                )
            )
        return out


def _found(
    uid: str,
    model: str,
    column: str,
    kinds: tuple[str, ...],
    graded: tuple[Severity, str],
    detail: str,
    hits: tuple[Hit, ...],
    renamed_to: str | None = None,
) -> Finding:
    severity, why = graded
    return Finding(
        unique_id=uid, model=model, column=column, changes=kinds, severity=severity, why=why, detail=detail, hits=hits, renamed_to=renamed_to
    )


_PII_TAGS = ("pii", "sensitive", "personal")


def _meta(c: DbtColumn) -> dict[str, Any]:
    return {k: v for k, v in c.meta.items() if str(k).lower() not in ("contains_pii", "pii", "is_pii")}


def _kind(owner: str) -> str:
    return HIT_KINDS.get(owner.split(".", 1)[0], "column")


def hit_name(graph: LineageGraph, key: str, owner: str) -> str:
    """``orders.amount`` for a model column, ``semantic_model:orders.amount`` for a measure,
    ``metric:revenue``, ``exposure:sales``, ``saved_query:weekly`` for a consumer."""
    node = graph.project.nodes.get(owner)
    if node is not None:
        return f"{node.display_name}.{graph.column_name.get(key, key)}"
    bi = graph.project.bi_fields.get(owner) or graph.project.charts.get(owner) or graph.project.dashboards.get(owner)
    if bi is not None:  # chart:orders-by-month, bi_field:orders_total_amount, the tool's own id
        return f"{owner.split('.', 1)[0]}:{bi.tool_id}"
    return f"{owner.split('.', 1)[0]}:{short_label(key)}"


def _collect(graph: LineageGraph, starts: Iterable[str], skip_owner: str, keep: Callable[[str], bool] | None = None) -> tuple[Hit, ...]:
    """What the columns ``starts`` reach: through FEEDS first (value lineage), then what only a
    condition reaches (condition lineage); one shortest path each, the owner's columns aside;
    ``keep``: the columns and models the walk may go through."""
    best: dict[str, Hit] = {}
    for with_conditions in (False, True):
        lineage: Literal["value", "condition"] = "condition" if with_conditions else "value"
        for start in sorted(set(starts)):
            for key, path in graph.walk(start, with_conditions, keep).items():
                owner = graph.column_model.get(key, key)
                if owner == skip_owner or key in best and (best[key].lineage == "value" or len(best[key].path) <= len(path)):
                    continue
                name = hit_name(graph, key, owner)
                best[key] = Hit(key=key, name=name, kind=_kind(owner), owner=owner, lineage=lineage, path=tuple(path))
    return tuple(sorted(best.values(), key=lambda h: (h.lineage != "value", len(h.path), h.key)))


def pii_columns(project: DbtProject, graph: LineageGraph) -> dict[str, dict[str, bool]]:
    """PII column -> the tagged columns that make it PII, each with whether it reaches them
    unchanged: each tagged column itself, the columns it is computed from (``email`` of
    ``lower(trim(email)) as email``: its value), and the columns either passes on unchanged
    (passthrough or renamed, any depth up): the same values, under another name."""
    out: dict[str, dict[str, bool]] = defaultdict(dict)
    named = Named()

    def column(key: str) -> ColumnLineage | None:  # None too for a column the graph does not hold (a check's region reads only what it walks)
        name = graph.column_name.get(key)
        return named.lineage_column(graph.lineages.get(graph.column_model.get(key, "")), name) if name is not None else None

    def copied_from(key: str) -> list[str]:
        col = column(key)
        return [s.key for s in col.sources] if col is not None and col.kind in COPIES else []

    for node in project.nodes.values():
        for c in node.columns:
            if not is_pii(c.tags, c.meta):
                continue
            tagged = column_key(node.unique_id, c.key_name(project.dialect))
            own = column(tagged)
            unchanged = own is None or own.kind in COPIES
            sources = [s.key for s in own.sources] if own is not None else []
            for key in [*sources, *reached(sources, copied_from)]:
                out[key][tagged] = out[key].get(tagged, False) or unchanged
            out[tagged][tagged] = True
    return out


# what a node's record holds of its SQL: the PII policy's walks read none of it (its lineage says what the SQL does)
_SQL = {"sql": None, "sql_origin": None, "compiled_path": None}


def policy_changes(old: DbtProject, new: DbtProject, old_lineages: dict[str, ModelLineage], new_lineages: dict[str, ModelLineage]) -> set[str]:
    """The columns where a walk of the PII policy may begin to differ between ``old`` and
    ``new``: each column whose lineage differs (its edges in, its kind, its expression), and
    every column of a node whose record differs in more than its SQL (its tags, access or
    contract decide what a walk's targets are), on either side."""
    out: set[str] = set()
    for uid in old_lineages.keys() | new_lineages.keys():
        a, b = old_lineages.get(uid), new_lineages.get(uid)
        if a is b or a == b:
            continue
        before = {c.name: c for c in a.columns} if a is not None else {}
        after = {c.name: c for c in b.columns} if b is not None else {}
        out.update(column_key(uid, name) for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    for uid in old.nodes.keys() | new.nodes.keys():
        x, y = old.nodes.get(uid), new.nodes.get(uid)
        if x is y or x == y or x is not None and y is not None and x.model_copy(update=_SQL) == y.model_copy(update=_SQL):
            continue
        for project, lineages in ((old, old_lineages), (new, new_lineages)):  # its columns as LineageGraph makes them
            node, lin = project.nodes.get(uid), lineages.get(uid)
            out.update(column_key(uid, c.name) for c in (lin.columns if lin is not None and lin.columns else node.columns if node is not None else ()))
    return out


def _edges_into(graph: LineageGraph) -> dict[str, list[tuple[str, str, str]]]:
    """Consumer key -> its edges in, (upstream key, type, expr), as :class:`LineageGraph` was given them."""
    out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for up, down, kind, expr in graph.consumer_edges:
        out[down].append((up, kind, expr))
    return {down: sorted(edges) for down, edges in out.items()}


def _pii_origin(tagged: dict[str, bool]) -> str:
    """`` (passed unchanged into customers.email, tagged PII)``: why a column is PII."""
    same = [short_label(t) for t, unchanged in sorted(tagged.items()) if unchanged]
    read = [short_label(t) for t, unchanged in sorted(tagged.items()) if not unchanged]
    parts = ([f"passed unchanged into {', '.join(same)}"] if same else []) + ([f"the value of {', '.join(read)}"] if read else [])
    return f" ({'; '.join(parts)}, tagged PII)"


def _pii_reach(
    project: DbtProject, graph: LineageGraph, pii: Iterable[str], functions: frozenset[str]
) -> dict[str, dict[str, list[PruneHop]]]:
    """PII column -> the targets it reaches through value lineage that the policy forbids:
    columns not tagged PII, columns of public or contracted models, exposures; never through
    a masked column (a hash of the value, :mod:`catalog.masking`)."""
    out: dict[str, dict[str, list[PruneHop]]] = {}
    masked: dict[str, bool] = {}
    named = Named()

    def unmasked(key: str) -> bool:
        if key not in masked:
            lin = graph.lineages.get(graph.column_model.get(key, ""))
            col = named.lineage_column(lin, graph.column_name[key])
            masked[key] = col is not None and col.kind == ColumnKind.DERIVED and is_masked(col.expr, project.dialect, functions)
        return not masked[key]

    for key in pii:
        targets = {}
        for down, path in graph.walk(key, False, unmasked).items():
            owner = graph.column_model.get(down, down)
            target = project.nodes.get(owner)
            if owner.startswith("exposure."):
                targets[down] = path
            elif target is not None:
                col = named.node_column(target, graph.column_name[down], project.dialect)
                tagged = col is not None and is_pii(col.tags, col.meta)
                if not tagged or target.access == "public" or target.contract_enforced:
                    targets[down] = path
        if targets:
            out[key] = targets
    return out
