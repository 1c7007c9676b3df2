"""Every case of ``tests/analyze/cases/*.sql``: exact columns, types, edges and conditions."""

from __future__ import annotations

import pytest
from sqlcases import all_cases, compare, describe, run_case

CASES = all_cases()


def test_cases_exist() -> None:
    assert len(CASES) >= 100
    titles = [c.id for c in CASES]
    assert len(titles) == len(set(titles))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sql_case(case) -> None:
    lineage = run_case(case)
    problems = compare(case, lineage)
    if problems:
        got = "\n    ".join(describe(lineage))
        pytest.fail(
            f"{case.id}\n  differences:\n    " + "\n    ".join(problems) + f"\n  analysis:\n    {got}",
            pytrace=False,
        )
