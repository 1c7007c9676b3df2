"""LookML (placeholder until its reader lands)."""

from __future__ import annotations

from pathlib import Path

from catalog.bi.records import BIDefinitions
from catalog.errors import ArtifactError
from catalog.extract import DbtProject


def read_lookml(project: DbtProject, files: list[Path]) -> BIDefinitions:
    raise ArtifactError(f"{files[0]}: LookML is not read yet")
