"""``catalog check``'s policy class and masking: a PII value that a new column only hashes or
masks does not newly flow (the example's stg_customers.first_name is tagged PII)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from catalog.check import check_states
from catalog.extract import load_project
from catalog.compare import analyze_states
from edits import edit_manifest, edit_sql

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"
STG_CUSTOMERS = "model.coffee_shop.stg_customers"


def _check(tmp_path: Path, expression: str, project_yml: str = ""):
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    if project_yml:
        (tmp_path / "dbt_project.yml").write_text(project_yml)
    edit_sql(target, STG_CUSTOMERS, "first_name,", f"first_name,\n    {expression} as greeting,")
    old, new = load_project(EXAMPLE), load_project(target)
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    report = check_states(old, old_lineages, new, lineages, base=str(EXAMPLE))
    return [(f.severity, f.model, f.column, f.changes) for f in report.findings]


ADDED_ONLY = [("safe", "stg_customers", "greeting", ("added",))]
POLICY = [("policy", "shop.customers", "first_name", ("pii_flow",)), ("safe", "stg_customers", "greeting", ("added",))]


@pytest.mark.parametrize(
    ("expression", "project_yml", "expected"),
    [
        ("md5(first_name)", "", ADDED_ONLY),
        ("cast(sha256(first_name) as varchar)", "", ADDED_ONLY),
        ("lower(md5(first_name))", "", POLICY),  # the outermost function is lower: not a hash, as far as the rule knows
        # the outermost operation is the concatenation: both names flow into greeting
        ("md5(first_name) || last_name", "", POLICY[:1] + [("policy", "shop.customers", "last_name", ("pii_flow",))] + POLICY[1:]),
        ("mask_name(first_name)", "", POLICY),
        ("mask_name(first_name)", "name: coffee_shop\nvars:\n  catalog_masking_functions: [mask_name]\n", ADDED_ONLY),
    ],
    ids=["md5", "cast-sha256", "lower-of-md5", "concat", "unknown-function", "project-function"],
)
def test_masked_values_do_not_newly_flow(tmp_path, expression, project_yml, expected):
    assert _check(tmp_path, expression, project_yml) == expected


def test_pii_reaches_a_column_through_the_value_of_a_tagged_sibling(tmp_path):
    """Only stg_customers.email is tagged PII (its source's tag taken away), and it is
    `lower(trim(email))`: the source's email is its value. A new column of the same model,
    `coalesce(lower(country_code), lower(email)) as account_state`, receives that value
    untagged: policy, from the column the tagged one is computed from."""

    def untag(manifest) -> None:
        column = manifest["sources"]["source.coffee_shop.shop.customers"]["columns"]["email"]
        column.update(tags=[], meta={})
        column["config"].update(tags=[], meta={})

    base, target = tmp_path / "base", tmp_path / "target"
    for folder in (base, target):
        shutil.copytree(EXAMPLE, folder)
        edit_manifest(folder, untag)
    edit_sql(target, STG_CUSTOMERS, "lower(trim(email)) as email,", "lower(trim(email)) as email,\n        coalesce(lower(country_code), lower(email)) as account_state,")
    old, new = load_project(base), load_project(target)
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    report = check_states(old, old_lineages, new, lineages, base=str(base))
    assert [(f.severity, f.model, f.column, f.changes, f.detail) for f in report.findings] == [
        ("policy", "shop.customers", "email", ("pii_flow",), "PII (the value of stg_customers.email, tagged PII) now reaches stg_customers.account_state"),
        ("safe", "stg_customers", "account_state", ("added",), ""),
    ]
