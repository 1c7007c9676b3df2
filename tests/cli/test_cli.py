"""The command line: help, bad input, exit codes, JSON on stdout and messages on stderr."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import COMMANDS, app, make_app
from needs import unavailable

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "coffee_shop"
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


@pytest.mark.parametrize(
    "command",
    ["build", "impact", "trace", "prune", "query", "report", "builds", "diff", "gc", "forget", "lineage", "evaluate", "export", "neo4j"],
)
def test_every_command_explains_itself(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output and len(result.output.splitlines()) > 5


# --------------------------------------------------------------------------- start: import only what a command needs
HEAVY = ("sqlglot", "catalog.analyze", "neo4j", "pydantic", "catalog.report.governance", "rich")


def _modules_loaded_by(*args: str) -> set[str]:
    """Run the CLI in a fresh interpreter; the top-level modules and catalog modules it imported."""
    script = (
        "import sys\n"
        "from catalog.cli.app import app\n"
        "try:\n"
        f"    app({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(done.stderr.split())


def _loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


def test_help_imports_none_of_the_work():
    modules = _modules_loaded_by("--help")
    assert "catalog.cli.app" in modules
    assert [name for name in HEAVY if _loaded(modules, name)] == []


@pytest.mark.parametrize("args", [["impact", "--help"], ["build", "--help"], ["neo4j", "status", "--help"]])
def test_a_command_s_help_imports_none_of_its_work(args):
    modules = _modules_loaded_by(*args)
    # typer itself parses a command's options with pydantic
    assert [name for name in HEAVY if name != "pydantic" and _loaded(modules, name)] == []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_alone_reads_as_it_does_among_all(command):
    """A run that names its command registers that one alone: its help, and the help of the
    whole, are what the command line with every command prints."""
    alone = make_app(command)
    for args in ([command, "--help"], ["--help"]):
        got, want = runner.invoke(alone, args), invoke(*args)
        assert got.exit_code == want.exit_code == 0
        if args == ["--help"]:  # the whole's help lists only the command registered
            assert f" {command} " in got.output and got.output.splitlines()[:3] == want.output.splitlines()[:3]
        else:
            assert got.output == want.output


def test_a_named_command_imports_no_other_command():
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv = ['catalog', 'impact', '--help']\n"
         "from catalog.cli.app import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
         "print('\\n'.join(sys.modules), file=sys.stderr)"],
        capture_output=True, text=True, check=True,
    )
    modules = set(done.stderr.split())
    assert "Usage: catalog impact" in done.stdout
    others = {f"catalog.cli.{m}" for m, _ in COMMANDS.values()} - {"catalog.cli.ask_cmd"}
    assert "catalog.cli.ask_cmd" in modules and sorted(others & modules) == []


def test_a_read_command_loads_neither_sqlglot_nor_the_analyzer():
    modules = _modules_loaded_by("impact", "orders.amount", "--uri", "bolt://127.0.0.1:1")
    assert _loaded(modules, "neo4j") and _loaded(modules, "catalog.query")
    assert not _loaded(modules, "sqlglot") and not _loaded(modules, "catalog.analyze")


def test_lineage_json_of_the_example_matches_its_golden():
    result = invoke("lineage", str(EXAMPLE), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    golden = json.loads((EXAMPLE / "expected_lineage.json").read_text())["models"]
    assert sorted(doc["models"]) == sorted(golden)
    for uid, expected in golden.items():
        got = doc["models"][uid]
        assert {c: (v["type"], v["sources"]) for c, v in got["columns"].items()} == {
            c: (v["type"], sorted(v["sources"])) for c, v in expected["columns"].items()
        }, uid
        assert got["conditions"] == sorted(expected["conditions"], key=lambda c: (c["column"], c["clause"])), uid
    assert "models analyzed" in result.stderr  # messages go to stderr, stdout is pure JSON


def test_missing_path_is_one_line_naming_it():
    result = invoke("lineage", "/no/such/dir")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == ["Error: /no/such/dir: no such file or directory"]


def _broken_copy(tmp_path: Path, text: str) -> Path:
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE / "target", target)
    (target / "manifest.json").write_text(text)
    return target


def test_corrupt_manifest_names_the_file(tmp_path):
    target = _broken_copy(tmp_path, '{"metadata": {')
    result = invoke("lineage", str(target))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(target / "manifest.json") in lines[0] and "not valid JSON" in lines[0]


@pytest.mark.parametrize("version", [3, 13])
def test_unsupported_manifest_version_says_which_are_read(tmp_path, version):
    manifest = json.loads((EXAMPLE / "target" / "manifest.json").read_text())
    manifest["metadata"]["dbt_schema_version"] = f"https://schemas.getdbt.com/dbt/manifest/v{version}.json"
    target = _broken_copy(tmp_path, json.dumps(manifest))
    result = invoke("lineage", str(target))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert f"manifest schema v{version}" in lines[0] and "v4-v12" in lines[0] and "dbt 1.0 to 1.12" in lines[0]


def test_not_a_manifest(tmp_path):
    target = _broken_copy(tmp_path, json.dumps({"hello": 1}))
    result = invoke("lineage", str(target))
    assert result.exit_code == 1
    assert "dbt_schema_version is missing" in result.stderr


def test_unreachable_neo4j_is_one_clear_line(tmp_path):
    result = invoke("build", str(EXAMPLE), env={"NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 1
    assert "cannot reach Neo4j at bolt://127.0.0.1:1" in result.stderr
    assert "Traceback" not in result.output


def test_usage_error_exits_2():
    result = invoke("impact", "--depth", "zero", "x.y")
    assert result.exit_code == 2


# --------------------------------------------------------------------------- one Error: line, verbatim names
def _one_error(result, code: int = 1) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_bad_bytes_in_a_compiled_sql_file_name_the_file(tmp_path):
    manifest = json.loads((EXAMPLE / "target" / "manifest.json").read_text())
    for node in manifest["nodes"].values():
        node.pop("compiled_code", None)  # so the compiled files are read
    target = _broken_copy(tmp_path, json.dumps(manifest))
    sql = target / "compiled" / "coffee_shop" / "models" / "marts" / "orders.sql"
    size = len(sql.read_bytes())
    sql.write_bytes(sql.read_bytes() + b"\xff\xfe")
    line = _one_error(invoke("lineage", str(target)))
    assert line == f"Error: {sql}: not UTF-8 text (byte 0xff at offset {size}); save it as UTF-8"


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("http://127.0.0.1:7474", "http:// is the HTTP port of Neo4j Browser; give the Bolt URI, e.g. bolt://host:7687"),
        ("bolt://host:notaport", "the port must be a number from 1 to 65535"),
        ("bolt://127.0.0.1:70000", "the port must be a number from 1 to 65535"),
        ("bolt://", "no host name"),
        ("ftp://host", "the scheme must be one of bolt://, bolt+s://, bolt+ssc://, neo4j://, neo4j+s://, neo4j+ssc://"),
        ("bolt://[::1", "the host is not valid (Invalid IPv6 URL); an IPv6 address goes in brackets, e.g. bolt://[::1]:7687"),
    ],
)
def test_bad_uri_is_one_line(uri, why):
    line = _one_error(invoke("builds", "--uri", uri))
    assert line == f"Error: bad Neo4j URI {uri!r} (--uri or NEO4J_URI): {why}"
    from_env = invoke("impact", "orders.status", env={"NEO4J_URI": uri})
    assert _one_error(from_env) == line


def test_unknown_dialect_is_refused_before_any_model_fails():
    line = _one_error(invoke("lineage", str(EXAMPLE), "--dialect", "duckdbb"))
    assert line == "Error: --dialect 'duckdbb' is not a SQL dialect sqlglot knows; did you mean duckdb?"
    line = _one_error(invoke("prune", "--changed", "orders.status", str(EXAMPLE), "--dialect", "nosuch"))
    assert line.startswith("Error: --dialect 'nosuch' is not a SQL dialect sqlglot knows; it knows athena, bigquery, ")


def test_unknown_adapter_type_asks_for_a_dialect(tmp_path):
    manifest = json.loads((EXAMPLE / "target" / "manifest.json").read_text())
    manifest["metadata"]["adapter_type"] = "fancydb"
    target = _broken_copy(tmp_path, json.dumps(manifest))
    line = _one_error(invoke("lineage", str(target)))
    assert line.startswith(
        f"Error: {target / 'manifest.json'}: adapter type 'fancydb', dialect 'fancydb' is not a SQL dialect sqlglot "
        "knows (pass --dialect); it knows athena, "
    )


NAMES = ["[/]", "jaffle[prod]", "[link=http://x]y[/link]", "[bold]x", ":smile: x"]


@pytest.mark.parametrize("name", NAMES)
def test_names_without_neo4j_are_printed_verbatim(tmp_path, name):
    manifest = json.loads((EXAMPLE / "target" / "manifest.json").read_text())
    manifest["metadata"]["project_name"] = name
    target = _broken_copy(tmp_path, json.dumps(manifest))
    table = invoke("lineage", str(target))
    assert table.exit_code == 0, table.output
    assert table.stdout.splitlines()[0].strip() == f"Column lineage of {name} (duckdb)"
    assert "\x1b]8;" not in table.stdout  # no terminal hyperlink

    missing = invoke("prune", "--changed", f"orders.{name}", str(target))
    assert _one_error(missing).startswith(f"Error: no column {'orders.' + name!r} in project {name!r}")

    scored = invoke("evaluate", str(target), "--golden", str(EXAMPLE / "expected_lineage.json"))
    assert scored.exit_code == 0, scored.output
    assert scored.stdout.splitlines()[0] == f"{name} against {EXAMPLE / 'expected_lineage.json'}"


def test_unexpected_errors_are_one_line_too():
    import typer

    from catalog.cli.common import handle_errors

    cli = typer.Typer()

    @cli.command()
    @handle_errors
    def boom(name: str) -> None:
        raise RuntimeError(f"broke on {name}")

    line = _one_error(runner.invoke(cli, ["[/]"]))
    assert line == "Error: unexpected RuntimeError: broke on [/] (set CATALOG_DEBUG=1 to see where)"


# --------------------------------------------------------------------------- evaluate reads lineage only
@pytest.mark.parametrize(
    ("doc", "why"),
    [
        ([1], "not a lineage document: expected a JSON object with 'models' or 'nodes'"),
        ({"tables": {}}, "not a lineage document: expected a 'models' or 'nodes' object"),
        ({"models": {}}, "not a lineage document: 'models' lists no model"),
        ({"models": {"m": 5}}, "not a lineage document: models.m: expected an object with 'columns' and 'conditions'"),
        ({"models": {"m": {"columns": []}}}, "not a lineage document: models.m.columns: expected an object of column name -> {type, sources}"),
        (
            {"models": {"m": {"columns": {"c": {"type": "bogus", "sources": []}}}}},
            "not a lineage document: models.m.columns.c.type: 'bogus' is not one of declared, derived, passthrough, renamed, snapshot_meta, source, unknown",
        ),
        (
            {"nodes": {"m": {"columns": {"c": {"type": "derived", "upstream": "a.b"}}}}},
            "not a lineage document: nodes.m.columns.c: expected 'sources' (or 'upstream'): a list of upstream column names",
        ),
        ({"models": {"m": {"conditions": [1]}}}, "not a lineage document: models.m.conditions[0]: expected an object with 'column' and 'clause'"),
        (
            {"models": {"m": {"conditions": [{"column": "a.b", "clause": "on"}]}}},
            "not a lineage document: models.m.conditions[0].clause: 'on' is not one of group_by, having, join, order_by, qualify, where, window",
        ),
    ],
)
def test_evaluate_refuses_what_is_not_a_golden(tmp_path, doc, why):
    golden = tmp_path / "golden.json"
    golden.write_text(json.dumps(doc))
    line = _one_error(invoke("evaluate", str(EXAMPLE), "--golden", str(golden)))
    assert line == f"Error: {golden}: {why}"


# --------------------------------------------------------------------------- weaker inputs are said
def _weak_copy(tmp_path: Path, catalog: str | None, compiled: bool) -> Path:
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE / "target", target)
    if catalog is None:
        (target / "catalog.json").unlink()
    elif catalog == "foreign":
        doc = json.loads((target / "catalog.json").read_text())
        for part in ("nodes", "sources"):
            doc[part] = {k.replace("coffee_shop", "tea_house"): v for k, v in doc[part].items()}
        (target / "catalog.json").write_text(json.dumps(doc))
    if not compiled:
        shutil.rmtree(target / "compiled")
        manifest = json.loads((target / "manifest.json").read_text())
        for node in manifest["nodes"].values():
            node.pop("compiled_code", None)
        (target / "manifest.json").write_text(json.dumps(manifest))
    return target


WEAKER = "`select *` is expanded from the columns declared in YAML and column types are unknown"


def test_missing_catalog_and_compiled_sql_are_warned_and_in_json(tmp_path):
    target = _weak_copy(tmp_path, catalog=None, compiled=False)
    result = invoke("lineage", str(target), "--json")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("Warning:")]
    assert warnings == [
        f"Warning: {target / 'catalog.json'} is missing: {WEAKER} (run `dbt docs generate`)",
        f"Warning: 14 of 15 models have no compiled SQL (neither in manifest.json nor under {target / 'compiled'}): "
        "their Jinja source is analyzed instead, which may fail or miss lineage (run `dbt compile`): "
        "customer_orders_daily, customer_segments, customers, int_order_items_priced, order_events and 9 more",
    ]
    doc = json.loads(result.stdout)
    assert [w["code"] for w in doc["warnings"]] == ["no_catalog", "no_compiled_sql"]
    assert len(doc["warnings"][1]["models"]) == 14 and doc["warnings"][0]["models"] == []


def test_foreign_catalog_is_warned(tmp_path):
    target = _weak_copy(tmp_path, catalog="foreign", compiled=True)
    result = invoke("evaluate", str(target), "--golden", str(EXAMPLE / "expected_lineage.json"), "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"Warning: {target / 'catalog.json'} describes none of the project's 26 models, seeds, snapshots and sources "
        f"(is it another project's, or older than the manifest?): {WEAKER} (run `dbt docs generate` for this project)"
    ]
    assert [w["code"] for w in json.loads(result.stdout)["warnings"]] == ["foreign_catalog"]


def test_full_inputs_warn_nothing():
    result = invoke("lineage", str(EXAMPLE), "--json")
    assert "Warning" not in result.stderr and json.loads(result.stdout)["warnings"] == []


def test_json_output_is_the_same_document_with_orjson_and_without(capsys, monkeypatch):
    """print_json encodes with orjson when it is installed and with the json module otherwise:
    the same document either way (non-ASCII names, values JSON has no type for, numbers
    orjson cannot hold)."""
    import dataclasses
    import datetime

    if importlib.util.find_spec("orjson") is None:
        unavailable("orjson is not installed (pip install '.[fast]')")
    from catalog.cli.common import print_json

    @dataclasses.dataclass
    class Pair:
        up: str

    data = {
        "model": "Café ☃ \u2028 \"quoted\" [bold]not markup[/]",
        "rows": [1, 2.5, None, True, {"nested": ["a"]}],
        1: "an integer key",
        "at": datetime.datetime(2026, 12, 1, 13, 0, tzinfo=datetime.timezone.utc),
        "pair": Pair("orders.id"),
        "path": Path("target/manifest.json"),
    }
    documents = []
    for value in (data, {**data, "big": 2**70}):
        print_json(value)
        fast = capsys.readouterr().out
        with monkeypatch.context() as m:
            m.setitem(sys.modules, "orjson", None)  # as without the fast extra
            print_json(value)
            plain = capsys.readouterr().out
        assert fast.endswith("}\n") and plain.endswith("}\n")
        assert json.loads(fast) == json.loads(plain)
        documents.append(json.loads(fast))
    assert documents[0]["model"] == data["model"] and documents[0]["1"] == "an integer key"
    assert documents[0]["at"] == "2026-12-01 13:00:00+00:00" and documents[0]["pair"].endswith("Pair(up='orders.id')")
    assert documents[1]["big"] == 2**70


def _option_names(command: str) -> set[str]:
    import typer.main

    group = typer.main.get_command(make_app(command))
    return {opt for p in group.commands[command].params for opt in getattr(p, "opts", [])}  # type: ignore[attr-defined]


NEO4J_COMMANDS = sorted(c for c in COMMANDS if c not in ("lineage", "evaluate", "neo4j"))


def test_every_command_that_talks_to_neo4j_takes_the_connection_options_and_timeout():
    for command in NEO4J_COMMANDS:
        assert {"--uri", "--user", "--password", "--database", "--timeout"} <= _option_names(command), command
    for command in ("lineage", "evaluate"):
        assert "--uri" not in _option_names(command)
