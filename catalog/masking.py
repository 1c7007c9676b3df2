"""Masked values: a column whose value is a hash or a mask of its inputs.

A column is *masked* when the outermost function of its expression (casts and parentheses
aside) is a hashing or masking function: ``md5(email)``, ``sha2(email, 256)``,
``cast(hash(email) as varchar)``. The functions are :data:`MASKING_FUNCTIONS` and the
project's own, listed in ``dbt_project.yml`` as ``vars: {catalog_masking_functions: [...]}``
(at the top of ``vars`` or under the project's name). A PII value that reaches a column only
through a masked one is no longer personal: the report shows such flows apart, ``check``'s
policy and ``docs`` do not follow them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from catalog.errors import ArtifactError

MASKING_FUNCTIONS = (
    "md5", "md5_hex", "md5_binary", "sha", "sha1", "sha1_hex", "sha1_binary", "sha2", "sha2_hex", "sha2_binary",
    "sha256", "sha512", "hash", "farm_fingerprint",
)  # fmt: skip
MASKING_VAR = "catalog_masking_functions"

_OPENING = re.compile(r"\s*(?:(?:try_)?cast\s*\(\s*|\(\s*)*([\w.$]+)\s*\(", re.IGNORECASE)


def project_masking_functions(project_dir: Path, project: str | None = None) -> tuple[str, ...]:
    """The project's own masking functions: ``vars.catalog_masking_functions`` of
    ``project_dir/dbt_project.yml`` (or ``vars.<project>.catalog_masking_functions``), lower
    case; none when the file or the var is absent."""
    from catalog.artifacts import read_dbt_project

    path = project_dir / "dbt_project.yml"
    doc = read_dbt_project(project_dir)
    variables = doc.get("vars") if isinstance(doc, dict) else None
    if not isinstance(variables, dict):
        return ()
    scoped = variables.get(project) if project and isinstance(variables.get(project), dict) else {}
    listed = scoped.get(MASKING_VAR, variables.get(MASKING_VAR))
    if listed is None:
        return ()
    if isinstance(listed, str):
        listed = [listed]
    if not isinstance(listed, list) or not all(isinstance(f, str) and f.strip() for f in listed):
        raise ArtifactError(f"{path}: vars.{MASKING_VAR} must be a list of function names, not {listed!r}")
    return tuple(sorted({f.strip().lower() for f in listed}))


def masking_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """:data:`MASKING_FUNCTIONS` and ``extra``, lower case."""
    return frozenset(MASKING_FUNCTIONS) | {f.lower() for f in extra}


def is_masked(expr: str | None, dialect: str | None, functions: frozenset[str]) -> bool:
    """Whether ``expr``'s outermost function (casts and parentheses aside) is one of
    ``functions`` (lower-case names; a schema-qualified name matches by its last part too)."""
    if not expr:
        return False
    first = _OPENING.match(expr)
    if first is None or not _named(first.group(1), functions):
        return False  # the common case, without parsing
    import sqlglot
    from sqlglot import exp

    try:
        node: Any = sqlglot.parse_one(expr, read=dialect or None)
    except sqlglot.errors.SqlglotError:
        return False
    while isinstance(node, (exp.Cast, exp.Paren, exp.Alias, exp.Dot)):
        node = node.expression if isinstance(node, exp.Dot) else node.this  # util.mask(x): the call
    if not isinstance(node, exp.Func):
        return False
    written = _OPENING.match(node.sql(dialect=dialect or None))
    names = {type(node).__name__, node.name if isinstance(node, exp.Anonymous) else node.sql_name()}
    if written is not None:
        names.add(written.group(1))
    return any(_named(n, functions) for n in names if n)


def _named(name: str, functions: frozenset[str]) -> bool:
    low = name.lower()
    return low in functions or low.rsplit(".", 1)[-1] in functions
