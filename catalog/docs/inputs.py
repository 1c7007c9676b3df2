"""Where ``catalog docs`` reads a project from: its artifacts, analyzed here, or a build
stored in Neo4j; both give the same :class:`~catalog.docs.plan.DocsInput`. The YAML files'
places (``patch_path``) and the project's masking functions always come from the project
folder, whose YAML is the one written."""

from __future__ import annotations

from pathlib import Path

from catalog.artifacts import find_target_dir, load_manifest, project_name
from catalog.docs.plan import DocsInput, latest_versions, model_versions, patch_paths
from catalog.export.openlineage import ExportInput
from catalog.masking import project_masking_functions


def project_folder(path: Path) -> Path:
    """The dbt project folder of PATH (a project folder or its target folder)."""
    return find_target_dir(path).parent


def docs_input(path: Path, loaded: ExportInput) -> DocsInput:
    """The docs' input: ``loaded``'s nodes and lineage (from PATH's artifacts or a stored
    build), PATH's manifest's YAML files and PATH's masking functions."""
    target = find_target_dir(path)
    manifest, _ = load_manifest(target / "manifest.json")
    package = project_name(manifest, target / "manifest.json")  # the root package, whatever the build's project is called
    return DocsInput(
        project=package,
        dialect=loaded.dialect,
        relations=loaded.relations,
        lineages=loaded.lineages,
        masking_functions=project_masking_functions(target.parent, package),
        patch_paths=patch_paths([*manifest.nodes.values()], package),
        versions=model_versions([*manifest.nodes.values()], package),
        latest_versions=latest_versions([*manifest.nodes.values()], package),
    )
