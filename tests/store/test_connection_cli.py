"""The connection options end to end, against a real Neo4j: ``--user`` (and NEO4J_USER) that the
server refuses, ``--database`` (and NEO4J_DATABASE) named explicitly or unknown, and a
``neo4j://`` URI of the same server as ``bolt://``: the same answers, or one ``Error:`` line."""

from __future__ import annotations

import pytest
from test_auth import auth_settings  # noqa: F401  (a server with authentication on, a fixture)

from catalog import local_neo4j
from catalog.settings import is_local_server
from run_cli import answer, one_error, run

pytestmark = pytest.mark.neo4j


@pytest.fixture
def impact(coffee_shop_builds, neo4j_env):
    """``catalog impact stg_orders.order_id`` of the module's project, with more arguments and environment."""

    def ask(*args: str, **env: str | None):
        return run({**neo4j_env, **env}, "impact", "stg_orders.order_id", "--project", coffee_shop_builds.project, "--json", *args)

    return ask


def test_a_user_the_server_refuses_is_one_error_line(auth_settings):  # noqa: F811
    uri = auth_settings.uri
    env = {"NEO4J_URI": uri, "NEO4J_PASSWORD": auth_settings.password.get_secret_value(), "NEO4J_USER": "neo4j"}
    hint = (
        f" (the local server keeps its own in {local_neo4j.layout().password_file}, see `catalog neo4j status`)"
        if is_local_server(uri)
        else ""
    )
    ask = ["query", "list_projects", "--json"]
    for user, how in (("nobody_by_option", ["--user", "nobody_by_option"]), ("nobody_by_env", [])):
        got = run({**env, "NEO4J_USER": "nobody_by_env"} if not how else env, *ask, *how)
        assert one_error(got) == (
            f"Error: authentication failed at Neo4j {uri} for user {user!r}: it refused the password from NEO4J_PASSWORD; "
            f"give the password with --password or NEO4J_PASSWORD{hint}"
        )
    assert run(env, *ask, "--user", "neo4j").exit_code == 0  # the right user, given explicitly


def test_the_default_database_named_explicitly_answers_the_same(impact, neo4j_settings):
    default = impact(NEO4J_DATABASE=None)
    assert default.exit_code == 0, default.output
    by_option = impact("--database", neo4j_settings.database, NEO4J_DATABASE=None)
    by_env = impact(NEO4J_DATABASE=neo4j_settings.database)
    assert by_option.stdout == by_env.stdout == default.stdout
    assert (by_option.exit_code, by_env.exit_code) == (0, 0)


def test_an_unknown_database_is_one_error_line_naming_the_option(impact, neo4j_settings):
    def line(name: str) -> str:
        return f"Error: Neo4j at {neo4j_settings.uri} has no database '{name}'; name one it has with --database or NEO4J_DATABASE"

    assert one_error(impact("--database", "no_such_catalog", NEO4J_DATABASE=None)) == line("no_such_catalog")
    assert one_error(impact(NEO4J_DATABASE="No_Such_Catalog")) == line("No_Such_Catalog")  # as the user wrote it


def test_a_neo4j_uri_reaches_the_same_server_as_bolt(impact, neo4j_settings, coffee_shop_builds):
    assert neo4j_settings.uri.startswith("bolt://")
    routed = "neo4j://" + neo4j_settings.uri.removeprefix("bolt://")
    over_bolt = impact()
    assert over_bolt.exit_code == 0, over_bolt.output
    for got in (impact("--uri", routed), impact(NEO4J_URI=routed)):
        assert got.exit_code == 0, got.output
        assert got.stdout == over_bolt.stdout
    doc = answer({"NEO4J_URI": routed}, "builds", "--project", coffee_shop_builds.project, "--json", "--password", neo4j_settings.password.get_secret_value())
    assert [b["id"] for b in doc] == [coffee_shop_builds.second, coffee_shop_builds.first]
