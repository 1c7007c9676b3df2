"""The producer builds a consumer project reads (dbt Mesh).

A consumer's foreign nodes (:attr:`catalog.extract.DbtNode.external_project`, as dbt-loom or
dbt Cloud inject another project's public models) are looked up in the stored build of their
project: the active build of the stored project of that name, or the build ``--upstream
PROJECT=BUILD`` pins. A foreign node is matched by unique id compared without case, else by
relation name (its parts compared without quotes or case, as SQL references are matched to
nodes: ``PLATFORM.main.dim_customers`` is ``"platform"."main"."dim_customers"``); a matched node takes that build's columns, and the consumer's columns are fed by
the producer's Column nodes (``upstream_key``), so one graph spans the projects. The consumer's
build records the projects its foreign nodes name (``Build.foreign_projects``) and which
producer builds it read (``Build.upstream``: ``["platform=12"]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from catalog.analyze.relations import split_relation
from catalog.errors import StoreError
from catalog.extract import DbtColumn, DbtNode, DbtProject
from catalog.idents import unquoted
from catalog.store.graph import Graph

FINISHED = ("active", "superseded")


@dataclass(frozen=True, slots=True)
class UpstreamBuild:
    """The stored build of a producer project that a consumer build reads."""

    dbt_project: str  # as the consumer's manifest names it (ref('platform', ...))
    project: str  # the stored project's name
    build_id: int
    pinned: bool = False  # by --upstream: a build that holds none of the foreign nodes is refused

    @property
    def entry(self) -> str:
        """How a consumer's Build node records it: ``platform=12``."""
        return f"{self.dbt_project}={self.build_id}"


def parse_upstream(pins: Iterable[str]) -> dict[str, int]:
    """``--upstream PROJECT=BUILD`` options as {dbt project (lower case): build id}."""
    out: dict[str, int] = {}
    for pin in pins:
        name, sep, build = pin.partition("=")
        if not sep or not name.strip() or not build.strip().isdigit():
            raise StoreError(f"--upstream {pin!r}: write it as PROJECT=BUILD, e.g. platform=12")
        out[name.strip().lower()] = int(build)
    return out


def foreign_projects(project: DbtProject) -> list[str]:
    return sorted({n.external_project.lower() for n in project.nodes.values() if n.external_project})


def check_pins(pins: dict[str, int], project: DbtProject) -> None:
    """Every ``--upstream`` pin names a project whose nodes ``project``'s manifest holds."""
    named = foreign_projects(project)
    for name in sorted(set(pins) - set(named)):
        reads = f"it reads {', '.join(named)}" if named else "it reads no other project"
        raise StoreError(f"--upstream {name}={pins[name]}: the manifest has no node of the dbt project {name} ({reads})")


def upstream_builds(graph: Graph, dbt_projects: Iterable[str], pins: dict[str, int], consumer: str | None = None) -> dict[str, UpstreamBuild]:
    """The build each producer project is read from: the pinned one, else the active build of
    the stored project of that name; a project never built in this database is left out. A pin
    to a build of ``consumer`` (the project being built) is refused."""
    out: dict[str, UpstreamBuild] = {}
    producers = sorted(set(dbt_projects))
    for name in sorted(set(producers) | set(pins)):
        pinned = pins.get(name)
        rows = graph.read("read/find_upstream_build", project=None if pinned is not None else name, build_id=pinned)
        if pinned is not None and (not rows or rows[0]["status"] not in FINISHED):
            state = f"is {rows[0]['status']}" if rows else "does not exist"
            raise StoreError(f"--upstream {name}={pinned}: build {pinned} {state}; pin a finished build (see `catalog builds --project PROJECT`)")
        if pinned is not None and rows[0]["project"] == consumer:
            hint = f"pin a build of {name}" if name in producers else _pin_hint(name, producers)
            raise StoreError(f"--upstream {name}={pinned}: build {pinned} is a build of {consumer}, the project being built; {hint}")
        if rows:
            out[name] = UpstreamBuild(dbt_project=name, project=rows[0]["project"], build_id=rows[0]["id"], pinned=pinned is not None)
    return out


def _pin_hint(name: str, producers: list[str]) -> str:
    """What to pin instead of ``name``, a project the manifest does not read (its own)."""
    reads = f"the projects it reads ({', '.join(producers)})" if producers else "the projects it reads (it reads none)"
    return f"{name} is not one it reads and cannot be pinned: --upstream pins {reads}"


def with_upstream(graph: Graph, project: DbtProject, builds: dict[str, UpstreamBuild]) -> DbtProject:
    """``project`` whose foreign nodes found in their producer's build have that build's
    columns and the producer's model key (``upstream_key``). A pinned build in which none of
    its project's foreign nodes is found is refused."""
    by_project: dict[str, list[DbtNode]] = {}
    for node in project.nodes.values():
        if node.external_project and node.external_project.lower() in builds:
            by_project.setdefault(node.external_project.lower(), []).append(node)
    changed: dict[str, DbtNode] = {}
    for name, nodes in sorted(by_project.items()):
        build = builds[name]
        rows = graph.read(
            "read/list_upstream_columns",
            project=build.project,
            build_id=build.build_id,
            unique_ids=[n.unique_id.lower() for n in nodes],
            identifiers=sorted({parts[-1] for n in nodes if (parts := split_relation(n.relation_name or ""))}),
        )
        by_uid = {r["unique_id"].lower(): r for r in rows}
        by_relation = {split_relation(r["relation_name"]): r for r in rows if r["relation_name"]}
        found = 0
        for node in nodes:
            row = by_uid.get(node.unique_id.lower()) or by_relation.get(split_relation(node.relation_name or ""))
            if row is None:
                continue
            found += 1
            columns = tuple(
                DbtColumn(name=unquoted(c["name"]), data_type=c.get("data_type"), description=c.get("description") or "", in_catalog=True)
                for c in row["columns"]
            )
            changed[node.unique_id] = node.model_copy(update={"columns": columns, "upstream_key": row["key"], "upstream_build": build.build_id})
        if build.pinned and not found:
            raise StoreError(_pin_holds_none(build, nodes))
    if not changed:
        return project
    return project.model_copy(update={"nodes": {**project.nodes, **changed}})


def _pin_holds_none(build: UpstreamBuild, nodes: list[DbtNode]) -> str:
    uids = sorted(n.unique_id for n in nodes)
    shown = ", ".join(uids[:3]) + (f" and {len(uids) - 3} more" if len(uids) > 3 else "")
    return (
        f"--upstream {build.dbt_project}={build.build_id}: build {build.build_id} (project {build.project}) holds none of the "
        f"nodes of {build.dbt_project} the manifest reads ({shown}); pin a build of {build.dbt_project}"
    )
