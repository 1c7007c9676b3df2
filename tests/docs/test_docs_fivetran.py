"""``catalog docs`` on Fivetran's HubSpot package (the corpus' ``fivetran-hubspot`` artifacts).

As the corpus has it, the project is the package's integration tests: every model is the
``hubspot`` package's, and none is written. As the package's own project (the manifest's
``project_name`` set to ``hubspot``), its YAML files are the ones the manifest's ``patch_path``
names, written here from the manifest's own entries in Fivetran's layout: blanks at the end of
lines, long descriptions as folded blocks indented deeper than ruamel.yaml indents them, and no
line end after the last line.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from edits import edit_manifest

runner = CliRunner()
PACKAGE = "hubspot"


def _docs(*args: str):
    return runner.invoke(app, ["docs", *args])


def _scalar(text: str) -> str:
    return json.dumps(text) if re.search(r"[:#'\"{}\[\]&*!|>%@`]|^[-?]|^\s|\s$", text) else text


def fivetran_yaml(nodes: list[dict]) -> str:
    """A properties file of ``nodes`` (manifest entries) in the layout of Fivetran's packages."""
    lines = ["version: 2", "", "models:"]
    for node in nodes:
        lines.append(f"  - name: {node['name']}")
        if node.get("description"):
            lines.append(f"    description: {_scalar(node['description'])} ")
        if node.get("columns"):
            lines.append("    columns:")
        for column in node.get("columns", {}).values():
            lines.append(f"      - name: {column['name']}")
            text = " ".join(column.get("description", "").split())
            if len(text) > 80:  # folded, indented six past its key, a blank after each line
                lines.append("        description: > ")
                lines += [f"              {part} " for part in re.findall(r".{1,70}(?:\s|$)", text)]
            elif text:
                lines.append(f"        description: {_scalar(text)}  ")
        lines.append("")
    return "\n".join(lines).rstrip("\n")  # no line end after the last line


def package_project(shared_dir: Path, root: Path, staging_file: str | None = None) -> Path:
    """The package as its own project in ``root``; ``staging_file``: its staging models all
    documented in that one file (as Fivetran's Shopify package has them) instead of one each."""
    corpus = shared_dir / "corpus" / "fivetran-hubspot" / "target"
    if not corpus.is_dir():
        pytest.fail(f"{corpus} is missing from the shared corpus", pytrace=False)
    shutil.copytree(corpus, root / "target")

    def own(manifest: dict) -> None:
        manifest["metadata"]["project_name"] = PACKAGE
        for node in manifest["nodes"].values():
            if staging_file and node.get("patch_path") and node["original_file_path"].startswith("models/staging/"):
                node["patch_path"] = f"{PACKAGE}://{staging_file}"

    edit_manifest(root / "target", own)
    manifest = json.loads((root / "target" / "manifest.json").read_text())
    files: dict[str, list[dict]] = defaultdict(list)
    for node in manifest["nodes"].values():
        if node["resource_type"] == "model" and node.get("patch_path"):
            files[node["patch_path"].split("://", 1)[1]].append(node)
    for rel, nodes in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(fivetran_yaml(sorted(nodes, key=lambda n: n["name"])).encode())
    return root


def apply_diff(files: dict[str, bytes], diff: str) -> dict[str, bytes]:
    """``files`` (relative path -> content) with a unified diff of ``catalog docs`` applied."""
    out = dict(files)
    for part in re.split(r"(?m)^(?=--- )", diff)[1:]:
        head, _, body = part.partition("\n+++ b/")
        path, _, hunks = body.partition("\n")
        old = out.get(path, b"").decode().splitlines(keepends=True) if not head.startswith("--- /dev/null") else []
        new: list[str] = []
        at = 0
        for hunk in re.split(r"(?m)^@@ ", hunks)[1:]:
            start = int(re.match(r"-(\d+)", hunk).group(1))
            new += old[at : max(start - 1, 0)]
            at = max(start - 1, 0)
            kind = ""
            for line in hunk.splitlines(keepends=True)[1:]:
                if line.startswith("\\"):  # no line end after the line before
                    if kind in " +":
                        new[-1] = new[-1].rstrip("\n")
                    continue
                kind = line[0]
                if kind in " -":
                    at += 1
                if kind in " +":
                    new.append(line[1:])
        out[path] = "".join(new + old[at:]).encode()
    return out


def yaml_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.yml"))}


def test_the_integration_tests_project_says_package_models_are_never_written(shared_dir):
    r = _docs(str(shared_dir / "corpus" / "fivetran-hubspot"))
    assert (r.exit_code, r.stdout) == (0, ""), r.stderr
    assert r.stderr == (
        "Nothing to change: the models are all models of packages (hubspot), and package models are never "
        "written (their YAML is the package's).\n"
    )


def test_fivetran_layout_is_written_line_for_line(shared_dir, tmp_path):
    project = package_project(shared_dir, tmp_path / "dbt_hubspot")
    before = yaml_bytes(project)
    shown = _docs(str(project))
    assert shown.exit_code == 0, shown.stderr
    assert shown.stderr.endswith("493 columns, 7 YAML files would change\n")
    written = _docs(str(project), "--write")
    assert written.exit_code == 0, written.stderr
    after = yaml_bytes(project)
    assert apply_diff(before, shown.stdout) == after  # the diff shown is what is written
    changed = [rel for rel in before if after[rel] != before[rel]]
    assert changed == [
        "models/marketing/intermediate/intermediate.yml",
        "models/sales/engagement_events/engagement_events.yml",
        "models/sales/sales.yml",
    ]
    for rel in changed:  # every line of the file is there as it was, its blanks and folded blocks too
        old, new = before[rel].split(b"\n"), after[rel].split(b"\n")
        opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        assert {op for op, *_ in opcodes} == {"equal", "insert"}, rel
        assert not after[rel].endswith(b"\n"), rel  # still no line end after the last line
    again = _docs(str(project), "--check")
    assert (again.exit_code, again.stderr) == (0, "Nothing to change.\n")


def test_a_model_without_yaml_goes_into_the_file_of_its_folder(shared_dir, tmp_path):
    # the staging models in one file make that file's name the project's most common; the
    # model is in models/marketing/intermediate/, whose models intermediate.yml documents
    project = package_project(shared_dir, tmp_path / "dbt_hubspot", staging_file="models/staging/stg_hubspot.yml")
    before = yaml_bytes(project)
    r = _docs(str(project), "--write", "-s", "int_hubspot__form_metrics__by_contact")
    assert (r.exit_code, r.stderr) == (0, "10 columns written to 1 YAML file\n")
    after = yaml_bytes(project)
    assert set(after) == set(before)  # no second file beside intermediate.yml
    rel = "models/marketing/intermediate/intermediate.yml"
    assert [p for p in before if after[p] != before[p]] == [rel]
    added = after[rel].decode()[len(before[rel].decode()) :]
    assert added.startswith(
        "\n  - name: int_hubspot__form_metrics__by_contact\n    columns:\n      - name: source_relation\n"
        "        description: Identifies the record's source.\n      - name: contact_id\n"
    )
    assert added.count("      - name: ") == 10 and not added.endswith("\n")
