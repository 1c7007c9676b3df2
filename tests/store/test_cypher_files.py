"""Every file of cypher/: a header that documents it, and a statement Neo4j accepts.

The header (leading ``//`` lines): what the query does, then ``Parameters:`` naming every
``$param`` the statement uses (or ``none``), then ``Returns:``. ``catalog query --list``
shows it, and Neo4j Browser users read it before setting ``:param``.
"""

from __future__ import annotations

import re

import pytest

from catalog.store import cypher

ALL = cypher.names()
PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# Graph.read(name, /, *, timeout_=None, **params) takes this as its own argument
RESERVED = {"timeout_"}
# files still lacking their Returns line; strict: remove the name once the file has one
RETURNS_MISSING: dict[str, str] = {}
PARAMETER_NOT_PROVIDED = "01N60"


def header(name: str) -> list[str]:
    lines = []
    for line in cypher.load(name).splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:].strip())
    return lines


def field(name: str, label: str) -> str | None:
    return next((h[len(label) :].strip() for h in header(name) if h.startswith(label)), None)


def body(name: str) -> str:
    return "\n".join(line for line in cypher.load(name).splitlines() if not line.lstrip().startswith("//"))


def test_there_are_files():
    assert any(n.startswith("read/") for n in ALL) and any(n.startswith("write/") for n in ALL)


@pytest.mark.parametrize("name", ALL)
def test_header_says_what_and_which_parameters(name):
    lines = header(name)
    assert lines, f"{name}: no comment header at the top"
    assert lines[0] and not lines[0].startswith(("Parameters:", "Returns:")), f"{name}: the header must start with what the query does"
    listed = field(name, "Parameters:")
    assert listed is not None, f"{name}: no `// Parameters:` line in the header"
    used = set(PARAM.findall(body(name)))
    missing = sorted(used - set(PARAM.findall(listed)))
    assert not missing, f"{name}: uses {', '.join('$' + p for p in missing)} but its Parameters line does not list them"
    if not used:
        assert listed.lower().rstrip(".") == "none", f"{name}: uses no parameter; its Parameters line should say none"
    assert not used & RESERVED, f"{name}: ${', $'.join(sorted(used & RESERVED))} would clash with Graph.read's own arguments"


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=RETURNS_MISSING[n])) if n in RETURNS_MISSING else n for n in ALL],
)
def test_header_says_what_it_returns(name):
    returns = field(name, "Returns:")
    assert returns, f"{name}: no `// Returns:` line in the header"


@pytest.mark.parametrize("name", [n for n in ALL if not n.startswith("schema/")])
def test_one_statement_per_file(name):
    assert len(cypher.statements(name)) == 1, f"{name}: holds several statements"


@pytest.mark.neo4j
@pytest.mark.parametrize("name", ALL)
def test_neo4j_plans_every_statement(name, neo4j_driver, neo4j_settings):
    """EXPLAIN plans without running: a syntax or semantic error fails here, not in use."""
    statements = cypher.statements(name) if name.startswith("schema/") else [cypher.load(name)]
    params = {p: None for p in cypher.describe(name).parameters}
    database = "system" if name.startswith("system/") else neo4j_settings.database  # administration
    with neo4j_driver.session(database=database) as session:
        for statement in statements:
            summary = session.run("EXPLAIN " + statement, params).consume()
            unprovided = [s.status_description for s in summary.gql_status_objects if s.gql_status == PARAMETER_NOT_PROVIDED]
            assert not unprovided, f"{name}: parameters the header parser missed: {unprovided}"
            if name.startswith("read/"):
                assert summary.query_type == "r", f"{name}: a read query that writes (query type {summary.query_type})"


READS_WITH_BUILD = [n for n in ALL if n.startswith("read/") and "$build_id" in body(n)]


@pytest.mark.parametrize("name", READS_WITH_BUILD)
def test_build_id_null_means_the_active_build(name):
    """`catalog query NAME -p build_id=null` answers the active build, as the README says."""
    assert "$build_id (int or null" in (field(name, "Parameters:") or ""), f"{name}: say that $build_id may be null"
    assert "coalesce($build_id, active.id)" in body(name), f"{name}: a null $build_id must mean the active build"
