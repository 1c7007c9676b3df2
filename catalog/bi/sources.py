"""Which BI folders a build reads (``--bi DIR``, and the ``bi:`` list of ``catalog.yml`` beside
the project), and reading them: each folder's tool is known by its files (YAML with ``metricQuery`` or
``tiles``: Lightdash charts and dashboards as code; ``*.lkml`` and ``*.dashboard.lookml``: LookML; JSON of Metabase
cards, dashboards and database metadata as its API returns them). A folder that
is missing or holds none of them, or a file that does not parse, is one error naming it, raised
before anything is stored."""

from __future__ import annotations

import hashlib
from pathlib import Path

from catalog.artifacts import find_target_dir
from catalog.bi import lightdash, lookml, metabase
from catalog.bi_records import BIChart, BIDefinitions
from catalog.bi.yamlfile import read_yaml
from catalog.errors import ArtifactError
from catalog.extract import DbtProject

CONFIG = "catalog.yml"
_SKIP = ("target", "dbt_packages", "logs", "node_modules")


def bi_folders(project_dir: Path, given: list[Path] | None = None) -> list[Path]:
    """The folders given, then those ``catalog.yml`` in ``project_dir`` lists under ``bi:``
    (relative to it), each once."""
    folders = [Path(p) for p in given or []]
    config = project_dir / CONFIG
    if config.is_file():
        doc = read_yaml(config)
        listed = doc.get("bi") if isinstance(doc, dict) else None
        if listed is not None and (not isinstance(listed, list) or not all(isinstance(x, str) for x in listed)):
            raise ArtifactError(f"{config}: bi: must be a list of folders")
        folders += [project_dir / x for x in listed or []]
    return list(dict.fromkeys(p.resolve() for p in folders))


def with_bi(project: DbtProject, path: Path) -> DbtProject:
    """``project`` (read from the dbt target at ``path``) with the BI definitions of the folders
    the ``catalog.yml`` beside it lists (none without one)."""
    root = find_target_dir(Path(path)).parent
    return read_bi(project, root, bi_folders(root))


def bi_digest(folders: list[Path]) -> str | None:
    """The SHA-256 of every YAML, LookML and JSON file of ``folders`` (path and bytes, in order): what
    a build compares to know its BI inputs unchanged; None without folders."""
    if not folders:
        return None
    digest = hashlib.sha256()
    for folder in folders:
        for path in _files(folder, (".yml", ".yaml", ".lkml", ".lookml", ".json")) if folder.is_dir() else []:
            digest.update(f"{path}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _files(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    out = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and path.name.endswith(suffixes) and not any(p.startswith(".") or p in _SKIP for p in rel.parts[:-1]):
            out.append(path)
    return out


def read_bi(project: DbtProject, project_dir: Path, folders: list[Path]) -> DbtProject:
    """``project`` with the fields, charts and dashboards of ``folders``."""
    if not folders:
        return project
    found: dict[str, BIDefinitions] = {}
    charts: list[tuple[Path, dict]] = []
    lookml_files: list[tuple[Path, str]] = []
    dashboards: list[tuple[Path, dict]] = []
    metabase_files: list[tuple[Path, str, str, object]] = []
    for folder in folders:
        if not folder.is_dir():
            raise ArtifactError(f"{folder}: no such BI folder")
        yaml_files = [p for p in _files(folder, (".yml", ".yaml")) if p.name != CONFIG]
        known = 0
        lkml_here = _files(folder, (".lkml", ".lookml"))
        lookml_files += [(p, _shown(p, project_dir)) for p in lkml_here]
        for path in yaml_files:
            doc = read_yaml(path)
            if lightdash.is_chart(doc):
                charts.append((path, doc))
            elif lightdash.is_dashboard(doc):
                dashboards.append((path, doc))
            else:
                continue
            known += 1
        for path in _files(folder, (".json",)):
            text, doc = metabase.read_json(path)
            if metabase.kind_of(doc) is not None:
                metabase_files.append((path, _shown(path, project_dir), text, doc))
                known += metabase.kind_of(doc) != "metadata"
        if not known and not lkml_here and not (folder / "lightdash.config.yml").is_file():
            raise ArtifactError(
                f"{folder}: no Lightdash charts or dashboards (YAML with metricQuery or tiles), no LookML files and no Metabase cards or dashboards (JSON)"
            )
    if charts or dashboards or any((f / "lightdash.config.yml").is_file() for f in folders):
        found["lightdash"] = _lightdash(project, project_dir, charts, dashboards)
    if lookml_files:
        found["looker"] = lookml.read_lookml(project, lookml_files)
    if metabase_files:
        found["metabase"] = metabase.read_metabase(project, metabase_files)
    fields = {k: v for d in found.values() for k, v in d.fields.items()}
    all_charts = {k: v for d in found.values() for k, v in d.charts.items()}
    all_dashboards = {k: v for d in found.values() for k, v in d.dashboards.items()}
    return project.model_copy(update={
        "bi_fields": fields, "charts": all_charts, "dashboards": all_dashboards,
        "bi_sources": tuple(str(f) for f in folders), "bi_sha256": bi_digest(folders),
    })  # fmt: skip


def _lightdash(project: DbtProject, project_dir: Path, charts: list[tuple[Path, dict]], dashboards: list[tuple[Path, dict]]) -> BIDefinitions:
    tool = lightdash.Lightdash(project, project_dir)
    tool.all_fields()
    made: dict[str, BIChart] = {}
    for path, doc in charts:
        chart = (tool.sql_chart if lightdash.is_sql_chart(doc) else tool.chart)(doc, _shown(path, project_dir))
        if chart.unique_id in made:
            raise ArtifactError(f"{path}: chart slug {chart.tool_id!r} is also the slug of {made[chart.unique_id].file}")
        made[chart.unique_id] = chart
    boards = [tool.dashboard(doc, _shown(path, project_dir), made) for path, doc in dashboards]
    return BIDefinitions(fields=tool.fields, charts=made, dashboards={d.unique_id: d for d in boards})


def _shown(path: Path, project_dir: Path) -> str:
    """A file as stored: relative to the project when it is inside it."""
    try:
        return str(path.resolve().relative_to(project_dir.resolve()))
    except ValueError:
        return str(path)
