"""MkDocs hook: one page per `catalog` command, written at build time from the command line
itself (the same usage, help text and option records that `catalog COMMAND --help` prints),
so that the reference cannot drift from the code.

Pages: `commands/<name>.md` for each command, `commands/<group>-<name>.md` for a group's
commands (`catalog neo4j start`), listed under "Commands" in the navigation; the marker
`<!-- commands -->` in `commands/index.md` becomes a table of them.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import typer
from mkdocs.structure.files import File, Files

from catalog.cli.app import make_app

MARKER = "<!-- commands -->"
NAV_TITLE = "Commands"


@dataclass(frozen=True)
class Page:
    path: tuple[str, ...]  # ("neo4j", "start")
    markdown: str
    summary: str

    @property
    def uri(self) -> str:
        return "commands/" + "-".join(self.path) + ".md"

    @property
    def title(self) -> str:
        return "catalog " + " ".join(self.path)


def _context(command: Any, name: str, parent: Any | None) -> Any:
    return command.context_class(command, info_name=name, parent=parent)


def _cell(text: str) -> str:
    """Help text as one table cell: escaped for the page, never read as Markdown."""
    return html.escape(" ".join(text.split())).replace("|", "&#124;")


def _code(text: str) -> str:
    """Option names and metavars as code in a table cell."""
    return "<code>" + html.escape(text).replace("|", "&#124;") + "</code>"


def _page(command: Any, path: tuple[str, ...], ctx: Any) -> Page:
    usage = command.get_usage(ctx).removeprefix("Usage: ")
    help_text = (command.help or "").strip()
    lines = [f"# catalog {' '.join(path)}", "", "```text", usage, "```", ""]
    if help_text:
        # the help is plain text, kept as `--help` prints it
        lines += ["```text", help_text, "```", ""]
    arguments, options = [], []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None or getattr(param, "hidden", False):
            continue
        row = f"| {_code(record[0])} | {_cell(record[1])} |"
        (arguments if param.param_type_name == "argument" else options).append(row)
    for title, rows in (("Arguments", arguments), ("Options", options)):
        if rows:
            lines += [f"## {title}", "", f"| {title.lower()[:-1]} | what it does |", "|---|---|", *rows, ""]
    subcommands = getattr(command, "commands", None) or {}
    if subcommands:
        lines += ["## Commands", "", "| command | what it does |", "|---|---|"]
        for name, sub in subcommands.items():
            uri = "-".join((*path, name)) + ".md"
            lines.append(f"| [`catalog {' '.join((*path, name))}`]({uri}) | {_cell(_summary(sub))} |")
        lines.append("")
    return Page(path, "\n".join(lines), _summary(command))


def _summary(command: Any) -> str:
    return (command.help or "").strip().split("\n\n")[0]


def command_pages() -> list[Page]:
    """Every command of `catalog`, groups followed by their commands, in the CLI's order."""
    root = typer.main.get_command(make_app())
    root_ctx = _context(root, "catalog", None)
    pages: list[Page] = []

    def walk(command: Any, path: tuple[str, ...], parent: Any) -> None:
        ctx = _context(command, path[-1], parent)
        pages.append(_page(command, path, ctx))
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, (*path, name), ctx)

    for name, command in root.commands.items():
        walk(command, (name,), root_ctx)
    return pages


_pages: list[Page] = []


def on_config(config: Any) -> Any:
    _pages[:] = command_pages()
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and NAV_TITLE in entry:
            index = entry[NAV_TITLE]
            entry[NAV_TITLE] = [index, *({p.title: p.uri} for p in _pages)]
    return config


def on_files(files: Files, config: Any) -> Files:
    for page in _pages:
        files.append(File.generated(config, page.uri, content=page.markdown))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if MARKER not in markdown:
        return markdown
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| [`{p.title}`]({p.uri.removeprefix('commands/')}) | {_cell(p.summary)} |" for p in _pages]
    return markdown.replace(MARKER, "\n".join(rows))
