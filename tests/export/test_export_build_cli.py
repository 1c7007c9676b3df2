"""``catalog export`` of a stored build end to end, against a real Neo4j: ``--build ID`` of an
older build exports the events of the artifacts it was built from, and ``--url`` sends them
with ``--api-key`` (or ``OPENLINEAGE_API_KEY``) as a bearer token to a local HTTP endpoint."""

from __future__ import annotations

import json

import pytest
from test_export_stored import NS, _from_artifacts
from test_openlineage import lineage_server  # noqa: F401  (the local endpoint, a fixture)

from run_cli import run

pytestmark = pytest.mark.neo4j


def test_export_of_an_older_build_gives_the_events_of_its_artifacts(coffee_shop_builds, neo4j_env, tmp_path):
    events = {}
    for build in (coffee_shop_builds.first, coffee_shop_builds.second):
        out = tmp_path / f"events-{build}.ndjson"
        args = ["export", "--format", "openlineage", "--project", coffee_shop_builds.project, "--build", str(build)]
        done = run(neo4j_env, *args, "--namespace", NS, "-o", str(out))
        assert done.exit_code == 0, done.output
        events[build] = [json.loads(line) for line in out.read_text().splitlines()]
    assert events[coffee_shop_builds.first] == _from_artifacts(coffee_shop_builds.first_target)
    assert events[coffee_shop_builds.second] == _from_artifacts(coffee_shop_builds.second_target)

    def email_lineage(build: int) -> list[dict]:
        (customers,) = [e for e in events[build] if e["job"]["name"] == "model.coffee_shop.customers"]
        return customers["outputs"][0]["facets"]["columnLineage"]["fields"]["email"]["inputFields"][0]["transformations"]

    assert email_lineage(coffee_shop_builds.first) == [{"type": "DIRECT", "subtype": "IDENTITY", "description": "customers.email"}]
    assert email_lineage(coffee_shop_builds.second) == [
        {"type": "DIRECT", "subtype": "TRANSFORMATION", "description": "MD5(customers.email)", "masking": True}
    ]


def test_url_sends_a_stored_build_with_the_api_key(coffee_shop_builds, neo4j_env, lineage_server):  # noqa: F811
    url, received = lineage_server
    args = ["export", "--project", coffee_shop_builds.project, "--namespace", NS, "--url", url]
    without_key = {**neo4j_env, "OPENLINEAGE_API_KEY": None}  # unset, whatever the test's own environment holds

    done = run(without_key, *args, "--build", str(coffee_shop_builds.first), "--api-key", "key-from-option")
    assert done.exit_code == 0, done.output
    assert done.stdout == ""
    assert done.stderr.splitlines()[-1] == f"15 OpenLineage events sent to {url}"
    first = _from_artifacts(coffee_shop_builds.first_target)
    assert received == [("/api/v1/lineage", "Bearer key-from-option", e) for e in first]

    received.clear()
    done = run({**neo4j_env, "OPENLINEAGE_API_KEY": "key-from-env"}, *args)  # the active build
    assert done.exit_code == 0, done.output
    assert received == [("/api/v1/lineage", "Bearer key-from-env", e) for e in _from_artifacts(coffee_shop_builds.second_target)]

    received.clear()
    done = run({**neo4j_env, "OPENLINEAGE_API_KEY": "key-from-env"}, *args, "--api-key", "key-from-option")
    assert done.exit_code == 0, done.output
    assert {auth for _, auth, _ in received} == {"Bearer key-from-option"}  # the option wins over the variable

    received.clear()
    done = run(without_key, *args)
    assert done.exit_code == 0, done.output
    assert {auth for _, auth, _ in received} == {None}  # no key, no header
