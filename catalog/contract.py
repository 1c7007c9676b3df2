"""What dbt's own state comparison calls a breaking change of a model's enforced contract.

dbt (1.5+) compares a model whose base version enforces its contract (``config.contract.enforced``)
with its new version, and calls breaking exactly:

- the contract no longer enforced;
- a declared column removed (the YAML columns, by name);
- a declared column's ``data_type`` changed (as written in YAML);
- a constraint removed, column- or model-level, when the base was materialized as a table or
  incremental (where constraints apply) and the adapter enforces constraints of its type;
- the materialization changed from table or incremental to one that applies no constraints,
  when the base had constraints.

Anything else, added columns included, changes the contract without breaking it. A model
whose contract was not enforced in the base has no breaking contract change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from catalog.extract import DbtConstraint, DbtContract, DbtContractColumn, DbtNode
from catalog.idents import typed

# where dbt applies constraints (a view or an ephemeral model has none)
CONSTRAINED_MATERIALIZATIONS = ("table", "incremental")
ALL_CONSTRAINTS = frozenset({"check", "not_null", "unique", "primary_key", "foreign_key"})
# the constraint types each adapter enforces (dbt-adapters' CONSTRAINT_SUPPORT, ENFORCED);
# an adapter not listed here has dbt's base adapter's; ``custom`` constraints are never enforced
ENFORCED_CONSTRAINTS: dict[str, frozenset[str]] = {
    "": frozenset({"not_null", "foreign_key"}),
    "postgres": ALL_CONSTRAINTS,
    "duckdb": ALL_CONSTRAINTS,
    "sqlserver": ALL_CONSTRAINTS,
    "snowflake": frozenset({"not_null"}),
    "redshift": frozenset({"not_null"}),
    "bigquery": frozenset({"not_null"}),
    "materialize": frozenset({"not_null"}),
    "databricks": frozenset({"check", "not_null"}),
    "spark": frozenset(),
}

BreakKind = Literal["disabled", "removed", "data_type", "constraint", "materialization"]


class ContractBreak(BaseModel, frozen=True):
    """One breaking change of an enforced contract: of a column, or of the model (``*``)."""

    column: str  # as catalog.idents writes it; "*" for the model
    kind: BreakKind
    detail: str


def contract_breaks(old: DbtNode, new: DbtNode, adapter_type: str) -> list[ContractBreak] | None:
    """The breaking changes of ``old``'s enforced contract in ``new``; None when the base
    enforced no contract (or its record keeps none)."""
    if old.resource_type != "model" or old.contract is None or not old.contract.enforced:
        return None
    was, now = old.contract, new.contract or DbtContract(enforced=new.contract_enforced)
    out: list[ContractBreak] = []
    if not now.enforced:
        out.append(ContractBreak(column="*", kind="disabled", detail="contract no longer enforced"))
        return out
    enforced = ENFORCED_CONSTRAINTS.get(adapter_type.lower(), ENFORCED_CONSTRAINTS[""])
    constrained = old.materialized in CONSTRAINED_MATERIALIZATIONS
    by_name: dict[str, DbtContractColumn] = {}
    for c in now.columns:  # as DbtContract.column finds them, once for all of them
        by_name.setdefault(c.name, c)
    for col in was.columns:
        after = by_name.get(typed(col.name))
        if after is None:
            out.append(ContractBreak(column=col.name, kind="removed", detail="declared column removed"))
            continue
        if col.data_type != after.data_type:
            out.append(ContractBreak(column=col.name, kind="data_type", detail=f"data_type {col.data_type} -> {after.data_type}"))
        if constrained:
            out += [
                ContractBreak(column=col.name, kind="constraint", detail=f"{c.label()} constraint removed")
                for c in _removed(col.constraints, after.constraints, enforced)
            ]
    if constrained:
        out += [
            ContractBreak(column="*", kind="constraint", detail=f"{c.label()} constraint removed")
            for c in _removed(was.constraints, now.constraints, enforced)
        ]
        has_constraints = bool(was.constraints) or any(c.constraints for c in was.columns)
        if has_constraints and new.materialized not in CONSTRAINED_MATERIALIZATIONS:
            out.append(
                ContractBreak(
                    column="*",
                    kind="materialization",
                    detail=f"materialized {old.materialized} -> {new.materialized}: its constraints no longer apply",
                )
            )
    return out


def _removed(before: tuple[DbtConstraint, ...], after: tuple[DbtConstraint, ...], enforced: frozenset[str]) -> list[DbtConstraint]:
    return [c for c in before if c not in after and c.type in enforced]
