"""What ``catalog docs`` would write: descriptions inherited along the lineage, PII tags where
PII flows, per YAML file.

The lineage is a project's analyzed lineage, from its artifacts or from a stored build (the
same records either way: ``ExportInput``), walked as the report walks it
(:class:`catalog.lineage.graph.ColumnGraph`, :func:`catalog.report.governance_reach.inheritable_descriptions`):

- a column without a description inherits the description of the nearest documented column
  its value is copied from (passthrough and renamed hops only, through undocumented
  columns); when the nearest candidates disagree, nothing is written and they are listed;
- a column that the value of a PII-tagged column reaches (FEEDS, any depth) without passing
  through a masked column (:mod:`catalog.masking`) is tagged ``pii`` when it is not tagged so.

Only the models and snapshots of the project itself are written, each in the YAML file its
manifest entry's ``patch_path`` names; a model that has none goes into the one file that
documents the other models of its folder, else gets a file beside its SQL, named as the
project's other YAML files are (``_<folder>.yml``, ``<model>.yml`` or one fixed name), or an
entry in that file when it exists.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel

from catalog.analyze.records import ModelLineage, column_key
from catalog.docs.versions import VersionLayout, place, read_layout, version_key, versions_by_model
from catalog.docs.yaml_files import ColumnEdit, YamlChange, edit_yaml_file
from catalog.errors import CatalogError
from catalog.extract import DbtNode
from catalog.lineage.graph import ColumnGraph, record_rows, unmasked_reach
from catalog.walks import descendants
from catalog.report.governance_model import Col, Inheritable
from catalog.report.governance_reach import inheritable_descriptions

WRITTEN = ("model", "snapshot")


class DocsInput(BaseModel, frozen=True):
    """A project's nodes and lineage, and where its YAML files are."""

    project: str
    dialect: str
    relations: dict[str, DbtNode]
    lineages: dict[str, ModelLineage]
    masking_functions: tuple[str, ...] = ()  # the project's own (catalog.masking)
    patch_paths: dict[str, str] = {}  # unique id -> the YAML file dbt read its properties from, relative
    versions: dict[str, str] = {}  # unique id -> the version of a versioned model (dbt 1.5+), as text
    latest_versions: dict[str, str] = {}  # unique id of a versioned model -> its model's latest_version


class ColumnChange(BaseModel, frozen=True):
    """One column's change: the description it inherits and from where, or the PII tag and
    the tagged columns whose values reach it."""

    file: str
    column: Col
    description: str | None = None
    source: Col | None = None
    hops: tuple[str, ...] = ()
    pii_from: tuple[Col, ...] = ()
    version: str | None = None  # the version of a versioned model
    # what is written into that version's own columns: entry ("description", "pii"); the
    # rest goes into the model's top-level columns:, which every version reading it shares
    version_entry: tuple[str, ...] = ()


class DocsPlan(BaseModel, frozen=True):
    changes: tuple[ColumnChange, ...]  # what the files' edits hold, file by file
    conflicts: tuple[Inheritable, ...]  # undocumented columns whose nearest candidates disagree
    files: tuple[YamlChange, ...]  # the files that change
    # the packages of the models and snapshots there are (selected), when none is the project's own
    only_packages: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- the lineage
def lineage_rows(data: DocsInput) -> list[tuple[str, str, list[list[Any]]]]:
    """The rows ``cypher/read/report_build_columns`` returns for a build of these records."""
    return record_rows(data.relations, data.lineages, data.dialect, data.masking_functions)


def pii_reach(walked: ColumnGraph) -> dict[str, list[str]]:
    """Column key -> the PII-tagged columns whose values reach it unmasked, for the model and
    snapshot columns not tagged PII themselves."""
    out: dict[str, list[str]] = defaultdict(list)
    for tagged in walked.pii_columns():
        for key in unmasked_reach(walked, tagged):
            i = walked.index[key]
            if walked.in_build[i] and not walked.pii[i] and walked.resource_type[i] in WRITTEN:
                out[key].append(tagged)
    return {k: sorted(v) for k, v in out.items()}


# ---------------------------------------------------------------------------- selection
_SELECTOR = re.compile(r"^(?:(\d*)\+)?([^+]+?)(?:\+(\d*))?$")


VERSION_METHOD = "version:"
VERSION_KINDS = ("latest", "prerelease", "old", "none")


def select_models(
    relations: dict[str, DbtNode], selectors: Iterable[str], versions: dict[str, str] | None = None,
    latest: dict[str, str] | None = None,
) -> set[str]:  # fmt: skip
    """The unique ids dbt's ``--select`` would pick among ``relations`` for node names with
    ``+`` graph operators (``+orders``, ``stg_orders+``, ``2+orders+1``), several separated
    by spaces or given one by one, and their intersections (``orders+,customers+``). A
    versioned model's name picks all its versions; ``name.v1`` (or ``name_v1``, as dbt also
    accepts) one of ``versions``; ``version:latest`` (``prerelease``, ``old``, ``none``) the
    nodes whose version is, is above, is below the ``latest`` version of their model, or
    that have none."""
    children: dict[str, set[str]] = defaultdict(set)
    for node in relations.values():
        for dep in node.depends_on:
            children[dep].add(node.unique_id)
    by_name: dict[str, list[str]] = defaultdict(list)
    for node in relations.values():
        if node.resource_type != "source":  # dbt selects a source by source:name.table
            by_name[node.name].append(node.unique_id)
    for uid, v in (versions or {}).items():
        if uid in relations:
            by_name[f"{relations[uid].name}.v{v}"].append(uid)
            by_name[f"{relations[uid].name}_v{v}"].append(uid)
    for kind in VERSION_KINDS:
        by_name[VERSION_METHOD + kind] = [
            uid for uid, node in relations.items() if node.resource_type != "source" and _version_is(kind, (versions or {}).get(uid), (latest or {}).get(uid))
        ]  # fmt: skip

    def one(text: str) -> set[str]:
        m = _SELECTOR.match(text)
        if m is None or m.group(2) not in by_name:
            if m is not None and m.group(2).startswith(VERSION_METHOD):
                raise CatalogError(f"--select {text}: dbt's version: method takes {', '.join(VERSION_KINDS)}")
            raise CatalogError(f"--select {text}: no model, snapshot or seed is named {m.group(2) if m else text!r}")
        up, name, down = m.groups()
        starts = by_name[name]
        out = set(starts)
        if up is not None:
            out |= descendants(starts, lambda u: relations[u].depends_on if u in relations else (), int(up) if up else None)
        if down is not None:
            out |= descendants(starts, lambda u: children.get(u, ()), int(down) if down else None)
        return out

    picked: set[str] = set()
    for text in (t for s in selectors for t in s.split()):
        parts = [one(p) for p in text.split(",")]
        picked |= set.intersection(*parts)
    return picked


def _version_is(kind: str, version: str | None, latest: str | None) -> bool:
    """Whether a node of ``version`` is of ``kind`` among its model's versions, as dbt's
    version: method compares them (as numbers when both are, else as text)."""
    if kind == "none" or version is None or latest is None:
        return kind == "none" and version is None
    try:
        a, b = float(version), float(latest)
    except ValueError:
        a, b = version, latest  # type: ignore[assignment]
    return {"latest": a == b, "prerelease": a > b, "old": a < b}[kind]


# ---------------------------------------------------------------------------- the plan
def plan_docs(
    data: DocsInput, project_dir: Path, *, docs: bool = True, pii: bool = False, selected: set[str] | None = None
) -> DocsPlan:
    """The changes to ``project_dir``'s YAML files (none written here)."""
    walked = ColumnGraph(lineage_rows(data))
    candidates = {uid: n for uid, n in data.relations.items() if n.resource_type in WRITTEN and (selected is None or uid in selected)}
    ours = {uid: n for uid, n in candidates.items() if n.package_name == data.project}
    if not ours:  # package models are never written: their YAML is the package's
        return DocsPlan(changes=(), conflicts=(), files=(), only_packages=tuple(sorted({n.package_name for n in candidates.values()})))
    file_of = _yaml_files(data, ours)
    changes: list[ColumnChange] = []
    conflicts: list[Inheritable] = []
    if docs:
        for inh in inheritable_descriptions(walked):
            if inh.column.unique_id not in ours:
                continue
            if inh.conflict:
                conflicts.append(inh)
            else:
                changes.append(ColumnChange(file=file_of(inh.column.unique_id), column=inh.column, description=inh.description,
                                            source=inh.source, hops=inh.hops))  # fmt: skip
    if pii:
        for key, tagged in pii_reach(walked).items():
            column = _col(walked, key)
            if column.unique_id in ours:
                changes.append(ColumnChange(file=file_of(column.unique_id), column=column, pii_from=_by_label(_col(walked, t) for t in tagged)))
    order = {column_key(uid, c): i for uid, lin in data.lineages.items() for i, c in enumerate(c.name for c in lin.columns)}
    changes.sort(key=lambda c: (c.file, ours[c.column.unique_id].name, order.get(column_key(c.column.unique_id, c.column.name), 0),
                                c.column.name, c.description is None))  # fmt: skip
    placed, edits = _placed(data, project_dir, ours, _merged(changes))
    return DocsPlan(changes=tuple(placed), conflicts=tuple(conflicts), files=_edited(data, project_dir, edits))


def versioned_label(column: Col, versions: dict[str, str]) -> str:
    """How dbt names the column of one version of a versioned model, ``dim_customers.v2.value``;
    any other column's label."""
    v = versions.get(column.unique_id)
    return column.label if v is None else f"{column.project + ':' if column.project else ''}{column.model}.v{v}.{column.name}"


def _by_label(cols: Iterable[Col]) -> tuple[Col, ...]:
    return tuple(sorted(cols, key=lambda c: (c.label, c.unique_id)))


def _col(walked: ColumnGraph, key: str) -> Col:
    uid, model, name = walked.names[walked.index[key]]  # type: ignore[misc]
    return Col(model=model or uid, unique_id=uid, name=name)


def _merged(changes: list[ColumnChange]) -> list[ColumnChange]:
    """One change per column: its description and its PII tag together."""
    out: dict[tuple[str, str], ColumnChange] = {}
    for c in changes:
        k = (c.column.unique_id, c.column.name)
        old = out.get(k)
        out[k] = c if old is None else old.model_copy(update={"pii_from": old.pii_from or c.pii_from,
                                                                "description": old.description or c.description,
                                                                "source": old.source or c.source, "hops": old.hops or c.hops})  # fmt: skip
    return list(out.values())


def _placed(
    data: DocsInput, project_dir: Path, ours: dict[str, DbtNode], changes: list[ColumnChange]
) -> tuple[list[ColumnChange], dict[str, list[ColumnEdit]]]:
    """The changes with their versions, and the edits of each file: a versioned model's
    addition goes where dbt reads it for that version and changes no other version
    (:mod:`catalog.docs.versions`)."""
    by_column = {(c.column.unique_id, c.column.name): c for c in changes}
    uid_of = versions_by_model(data.versions, {uid: n.name for uid, n in ours.items()})
    layouts: dict[tuple[str, str], VersionLayout] = {}
    by_file: dict[str, list[ColumnEdit]] = defaultdict(list)
    placed = []
    for c in changes:
        node = ours[c.column.unique_id]
        edit = ColumnEdit(resource_type=node.resource_type, model=node.name, column=c.column.name)
        version = data.versions.get(node.unique_id)
        if version is None:
            by_file[c.file].append(edit.model_copy(update={"description": c.description, "pii": bool(c.pii_from)}))
            placed.append(c)
            continue
        if (c.file, node.name) not in layouts:
            layouts[(c.file, node.name)] = read_layout(project_dir / c.file, node.name, data.dialect)
        layout = layouts[(c.file, node.name)]
        in_version = []
        for attr, value in (("description", c.description), ("pii", bool(c.pii_from) or None)):
            if value is None:
                continue

            def written(w: str, attr: str = attr) -> Any:
                other = by_column.get((uid_of.get((node.name, w), ""), c.column.name))
                return None if other is None else other.description if attr == "description" else (bool(other.pii_from) or None)

            where = place(layout, node.name, version, c.column.name, value, written)
            by_file[c.file].append(edit.model_copy(update={attr: value, "version": where.version, "copy_top": where.copy_top}))
            if where.version is not None:
                in_version.append(attr)
        placed.append(c.model_copy(update={"version": version, "version_entry": tuple(in_version)}))
    return placed, by_file


def _edited(data: DocsInput, project_dir: Path, by_file: dict[str, list[ColumnEdit]]) -> tuple[YamlChange, ...]:
    documented = set(data.patch_paths.values())
    out = []
    for file, edits in sorted(by_file.items()):
        change = edit_yaml_file(project_dir, file, edits, data.dialect, new_file=file not in documented)
        if change.changed:
            out.append(change)
    return tuple(out)


# ---------------------------------------------------------------------------- where each model's YAML is
def _yaml_files(data: DocsInput, ours: dict[str, DbtNode]) -> Callable[[str], str]:
    """Unique id -> its YAML file (relative): the one it is documented in, else the one the
    project's naming gives beside its SQL."""
    pattern, suffix = _naming(data)
    shared = _folder_files(data)

    def file_of(uid: str) -> str:
        known = data.patch_paths.get(uid)
        if known:
            return known
        node = ours[uid]
        if not node.path:
            raise CatalogError(f"{node.resource_type} {node.name}: the manifest gives no file for it, so no YAML file can go beside it")
        sql = PurePosixPath(node.path)
        if str(sql.parent) in shared:
            return shared[str(sql.parent)]
        stem = pattern.format(folder=sql.parent.name or data.project, model=node.name)
        return str(sql.parent / f"{stem}{suffix}")

    return file_of


def _folder_files(data: DocsInput) -> dict[str, str]:
    """Folder of SQL files -> the one YAML file that documents the project's models of that
    folder, wherever it is (``models/shopify.yml`` for ``models/rest/``), when one file does and
    it is not named after one of them (``<model>.yml``, one file per model)."""
    files: dict[str, set[str]] = defaultdict(set)
    named_after: set[str] = set()
    for uid, patch in data.patch_paths.items():
        node = data.relations.get(uid)
        if node is None or node.package_name != data.project or not node.path:
            continue
        files[str(PurePosixPath(node.path).parent)].add(patch)
        if PurePosixPath(patch).stem in (node.name, f"_{node.name}"):
            named_after.add(patch)
    return {folder: next(iter(found)) for folder, found in files.items() if len(found) == 1 and not found & named_after}


def _naming(data: DocsInput) -> tuple[str, str]:
    """How the project names its YAML files: ``_{folder}``, ``{folder}``, ``_{model}``,
    ``{model}`` or a fixed name (the most common of its files), and their suffix."""
    votes: Counter[str] = Counter()
    suffixes: Counter[str] = Counter()
    for uid, patch in data.patch_paths.items():
        node = data.relations.get(uid)
        if node is None or node.package_name != data.project or not node.path:
            continue
        yml, sql = PurePosixPath(patch), PurePosixPath(node.path)
        suffixes[yml.suffix] += 1
        folder = sql.parent.name
        for pattern in ("_{folder}", "{folder}", "_{model}", "{model}"):
            if yml.stem == pattern.format(folder=folder, model=node.name):
                votes[pattern] += 1
                break
        else:
            votes[yml.stem.replace("{", "{{").replace("}", "}}")] += 1
    pattern = votes.most_common(1)[0][0] if votes else "_{folder}"
    suffix = suffixes.most_common(1)[0][0] if suffixes else ".yml"
    return pattern, suffix


def patch_paths(manifest_nodes: Iterable[Any], project: str) -> dict[str, str]:
    """Unique id -> the YAML file (relative to the project folder) of the project's nodes
    that have one: ``coffee_shop://models/_models.yml`` -> ``models/_models.yml``."""
    out = {}
    for raw in manifest_nodes:
        patch = getattr(raw, "patch_path", None)
        if not patch or raw.package_name != project:
            continue
        out[raw.unique_id] = patch.split("://", 1)[1] if "://" in patch else patch
    return out


def latest_versions(manifest_nodes: Iterable[Any], project: str) -> dict[str, str]:
    """Unique id -> the latest_version of its model, for the project's versioned models (dbt
    fills it in with the highest version when the YAML names none)."""
    nodes = [raw for raw in manifest_nodes if raw.resource_type == "model" and raw.package_name == project and getattr(raw, "version", None) is not None]
    return {raw.unique_id: version_key(raw.latest_version) for raw in nodes if getattr(raw, "latest_version", None) is not None}


def model_versions(manifest_nodes: Iterable[Any], project: str) -> dict[str, str]:
    """Unique id -> version (as text) of the project's versioned models."""
    return {
        raw.unique_id: version_key(raw.version) for raw in manifest_nodes
        if raw.resource_type == "model" and raw.package_name == project and getattr(raw, "version", None) is not None
    }  # fmt: skip
