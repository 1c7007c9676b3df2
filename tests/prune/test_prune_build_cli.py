"""``catalog prune --changed COLUMN --build ID`` end to end, against a real Neo4j: an older build
answers with its own lineage, the active one with the edited lineage (customers hashes its email
in the second build of ``coffee_shop_builds``)."""

from __future__ import annotations

import pytest

from run_cli import answer, run

pytestmark = pytest.mark.neo4j
EMAIL = "model.coffee_shop.stg_customers.email"


def _plan(doc: dict) -> list[tuple]:
    """Each model of a plan: (unique id, lineage, depth, the hops to it as (from, type, expr, to))."""
    return [
        (m["unique_id"], m["lineage"], m["depth"], [(h["from"], h["type"], h["expr"], h["to"]) for h in m["path"]])
        for m in doc["models"]
    ]


def _expected(to_customers: tuple[str, str]) -> list[tuple]:
    into_customers = (EMAIL, *to_customers, "model.coffee_shop.customers.email")
    return [
        ("model.coffee_shop.customer_segments", "value", 2,
         [into_customers, ("model.coffee_shop.customers.email", "passthrough", "email", "model.coffee_shop.customer_segments.email")]),
        ("model.coffee_shop.customers", "value", 1, [into_customers]),
        ("model.coffee_shop.stg_customers", "changed", 0, []),
        ("snapshot.coffee_shop.customers_snapshot", "value", 1, [(EMAIL, "passthrough", "email", "snapshot.coffee_shop.customers_snapshot.email")]),
    ]  # fmt: skip


def test_prune_of_an_older_build_answers_as_that_build(coffee_shop_builds, neo4j_env):
    ask = ["prune", "--changed", "stg_customers.email", "--project", coffee_shop_builds.project]
    first = answer(neo4j_env, *ask, "--build", str(coffee_shop_builds.first), "--json")
    assert (first["origin"], first["build_id"], first["changed_columns"]) == ("graph", coffee_shop_builds.first, [EMAIL])
    assert first["selector"] == "customer_segments customers customers_snapshot stg_customers"
    assert _plan(first) == _expected(("passthrough", "customers.email"))
    assert (first["removed_models"], first["unaffected_models"], first["warnings"]) == ([], [], [])

    active = answer(neo4j_env, *ask, "--json")
    assert active["build_id"] == coffee_shop_builds.second
    assert _plan(active) == _expected(("derived", "MD5(customers.email)"))
    assert active["selector"] == first["selector"]

    selector = run(neo4j_env, *ask, "--build", str(coffee_shop_builds.first))
    assert (selector.exit_code, selector.stdout) == (0, "customer_segments customers customers_snapshot stg_customers\n")
    assert selector.stderr.splitlines()[-1].startswith("4 models to rebuild (1 changed, 3 value) in ")
