"""Authentication against the suite's own Neo4j: the local server runs with authentication on,
its password lives in a file only its owner reads, every command finds it, and a refused or
missing password is one ``Error:`` line naming the URI, exit 1, never the password itself."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from pydantic import SecretStr
from typer.testing import CliRunner

from catalog import local_neo4j
from catalog.cli.app import app
from catalog.settings import Neo4jSettings

pytestmark = pytest.mark.neo4j
WRONG = "not-the-password-7Qx2"


@pytest.fixture
def auth_settings(neo4j_settings: Neo4jSettings, request: pytest.FixtureRequest) -> Neo4jSettings:
    """A server with authentication on: the session's, or when it is used without a password
    the local server (``local_server``: the session's or one of this module's own)."""
    if neo4j_settings.password.get_secret_value():
        return neo4j_settings
    server = request.getfixturevalue("local_server")
    return Neo4jSettings(uri=server.bolt_uri, password=SecretStr(local_neo4j.read_password() or ""))


def _catalog(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own, with ``env`` over this one's minus every NEO4J_ variable."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    return subprocess.run(
        [sys.executable, "-m", "catalog.cli.app", *args], env={**base, **env}, capture_output=True, text=True, timeout=120
    )


def test_the_local_server_runs_with_authentication_and_a_private_password_file(local_server) -> None:
    assert local_server.auth and local_server.user == "neo4j"
    path = local_server.password_file
    assert path == local_neo4j.layout().server_home / "password" and path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    password = path.read_text().strip()
    assert len(password) >= 32
    with GraphDatabase.driver(local_server.bolt_uri, auth=("neo4j", password)) as driver:
        driver.verify_connectivity()  # the file's password is the server's

    shown = CliRunner().invoke(app, ["neo4j", "status"])
    assert shown.exit_code == 0, shown.output
    assert f"  User     neo4j, password in {path}" in shown.stderr.splitlines()
    as_json = CliRunner().invoke(app, ["neo4j", "status", "--json"])
    reported = json.loads(as_json.stdout)
    assert (reported["auth"], reported["user"], reported["password_file"]) == (True, "neo4j", str(path))
    assert password not in shown.output + as_json.output


def test_commands_without_password_find_the_local_servers_file(local_server) -> None:
    """No --password, no NEO4J_PASSWORD, no NEO4J_URI: the local server, with its file's password."""
    settings = Neo4jSettings.from_env()
    assert settings.uri == local_server.bolt_uri
    assert settings.password_from == f"the local server's password file {local_server.password_file}"
    result = _catalog(["query", "list_projects", "--json"], {})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["query"] == "read/list_projects"
    # an explicit URI of the local server (another spelling of the host) finds it too
    localhost = local_server.bolt_uri.replace("127.0.0.1", "localhost")
    assert _catalog(["query", "list_projects", "--uri", localhost], {}).returncode == 0


def test_a_wrong_password_is_one_error_line_naming_the_uri(auth_settings) -> None:
    uri = auth_settings.uri
    for args, env, source in (
        (["--password", WRONG], {}, "--password"),
        ([], {"NEO4J_PASSWORD": WRONG}, "NEO4J_PASSWORD"),
    ):
        result = _catalog(["query", "list_projects", "--uri", uri, *args], env)
        assert result.returncode == 1, result.stderr
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith(f"Error: authentication failed at Neo4j {uri} for user 'neo4j': ")
        assert f"it refused the password from {source}; give the password with --password or NEO4J_PASSWORD" in lines[0]
        assert WRONG not in result.stderr and "Traceback" not in result.stderr


def test_no_password_against_an_auth_server_is_one_clear_line(auth_settings, tmp_path: Path) -> None:
    """No password anywhere: not given, not in the environment, no password file (an empty home)."""
    uri = auth_settings.uri
    result = _catalog(["query", "list_projects", "--uri", uri], {local_neo4j.ENV_HOME: str(tmp_path)})
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"Error: authentication failed at Neo4j {uri} for user 'neo4j': it requires a password and none was given; "
        "give the password with --password or NEO4J_PASSWORD"
        + (
            f" (the local server keeps its own in {tmp_path / 'server' / 'password'}, see `catalog neo4j status`)"
            if uri == local_neo4j.status().bolt_uri
            else ""
        )
    ]
