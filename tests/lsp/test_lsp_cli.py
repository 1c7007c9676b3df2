"""`catalog lsp`'s options: the ones that contradict each other are one `Error:` line, before
any server starts."""

from __future__ import annotations

from run_cli import one_error, run


def test_project_with_memory_and_dialect_without_it_are_usage_errors():
    assert one_error(run({}, "lsp", "--memory", "--project", "shop"), 2) == (
        "Error: --project names a build stored in Neo4j: give it without --memory"
    )
    assert one_error(run({}, "lsp", "--dialect", "duckdb"), 2) == (
        "Error: --dialect applies to --memory: a stored build keeps the dialect it was built with"
    )


def test_help_names_the_features_and_both_sources():
    result = run({}, "lsp", "--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for words in ("Language Server Protocol", "Hover on a column", "Go to definition", "Code lenses", "Diagnostics", "--memory"):
        assert words in text, words
