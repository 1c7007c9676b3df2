"""Bounds on what an agent sends and gets back: the length of names, search strings, Cypher
and its parameters (checked before Neo4j sees them), the length of an error (the input it
echoes is cut), and the wall-clock time of a `cypher` call, which ends at its timeout whatever
Neo4j does."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from catalog.errors import StoreError
from catalog.mcp.pages import BadArgument

T = TypeVar("T")

MAX_NAME = 500  # a column, model or project name, a target folder
MAX_SEARCH = 200  # a search string
MAX_COLUMNS = 100  # columns of one impact question
MAX_QUERY = 20_000  # a Cypher statement
# how deep a Cypher statement nests: brackets and CASE in each other, NOT after NOT, property
# accesses and indexes after each other. Neo4j 5.26's parser overflows its stack on 1,000 of
# any of them and never answers (the connection waits two minutes).
MAX_NESTING = 64
MAX_PARAMS = 100_000  # a Cypher statement's parameters, as JSON
MAX_ERROR = 600  # characters of an error message; past them it is cut


class NoAnswer(StoreError):
    """Neo4j did not answer within the tool's timeout."""


_NESTS = re.compile(r"[(\[{]|\bCASE\b|[)\]}]|\bEND\b", re.IGNORECASE)
_NOTS = re.compile(r"(?:\bNOT\b\s*)+", re.IGNORECASE)
_CHAIN = re.compile(r"(?:(?:\.\s*\w+|\[[^\[\]]*\])\s*)+")


def check_query(text: str) -> None:
    """BadArgument when a Cypher statement nests deeper than :data:`MAX_NESTING`."""
    from catalog.store.readonly import bare

    plain = bare(text, literal="x")
    depth = deepest = 0
    for token in _NESTS.finditer(plain):
        depth += 1 if token.group() in "([{" or token.group().upper() == "CASE" else -1
        deepest = max(deepest, depth)
    nots = max((m.group().upper().count("NOT") for m in _NOTS.finditer(plain)), default=0)
    chain = max((len(re.findall(r"\.\s*\w+|\[", m.group())) for m in _CHAIN.finditer(plain)), default=0)
    for found, what in ((deepest, "brackets and CASE nested"), (nots, "NOT repeated"), (chain, "property accesses and indexes chained")):
        if found > MAX_NESTING:
            raise BadArgument(f"query: {what} {found} deep, more than the {MAX_NESTING} allowed (Neo4j's parser fails on deep nesting)")


def check_params(params: dict[str, Any] | None) -> None:
    size = len(json.dumps(params, default=str)) if params else 0
    if size > MAX_PARAMS:
        raise BadArgument(f"params are {size:,} characters as JSON, more than the {MAX_PARAMS:,} allowed")


def within(seconds: float, work: Callable[[], T]) -> T:
    """``work``'s answer, or :class:`NoAnswer` once ``seconds`` have passed (Neo4j checks its
    transactions' timeouts every 2 s, and its parser can overflow and never answer):
    ``work`` is left to end on its own in the background, and the caller's connection is
    dropped (:meth:`catalog.mcp.stored.Stored.lost`) so that the next question gets a new one."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["answer"] = work()
        except BaseException as e:  # noqa: BLE001 - given to the caller below
            box["error"] = e

    thread = threading.Thread(target=run, name="catalog-mcp-cypher", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise NoAnswer(
            f"Neo4j did not answer the query within the {seconds:g} s timeout: the call was ended (the server goes on answering); "
            "allow longer with --timeout or NEO4J_TIMEOUT"
        )
    if "error" in box:
        raise box["error"]
    return box["answer"]


def cut(message: str, most: int = MAX_ERROR) -> str:
    """``message`` on one line, at most ``most`` characters: an echoed input is cut, not
    copied whole into the agent's context."""
    line = " ".join(message.split("\n")) if "\n" in message else message
    return line if len(line) <= most else f"{line[: most - 40]}... ({len(line) - most + 40:,} more characters)"
