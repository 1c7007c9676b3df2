"""The typed records of BI definitions: a field (a dimension, metric, measure, table
calculation, ...) with what it reads, a chart with the fields it shows, a dashboard with its
charts. :mod:`catalog.bi` reads them, :class:`catalog.extract.DbtProject` holds them (a module
of its own, so that extraction needs nothing of the readers). Each is keyed by a unique id ``bi_field.<tool>.<id>``, ``chart.<tool>.<id>``,
``dashboard.<tool>.<id>`` (the tool's own id after the second dot) and knows its file and line.

What a field reads is kept as written, resolved against the project's names when the files are
read (:class:`Read`), and checked against the analyzed columns when the project is linked
(:mod:`catalog.bi.link`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class Read(BaseModel, frozen=True):
    """One thing a field reads: a model column, another field, or something not found."""

    kind: Literal["column", "field", "missing"]
    target: str = ""  # column: "<node unique id>\t<column>"; field: its unique id
    text: str = ""  # as written (``${orders.amount}``, ``amount``)
    reason: str = ""  # missing: why


class BIField(BaseModel, frozen=True):
    unique_id: str  # bi_field.<tool>.<tool id>
    tool: str  # lightdash, looker, metabase
    tool_id: str  # the tool's own id: orders_total_order_amount, orders.total_amount
    name: str  # its name in its table: total_order_amount
    label: str = ""
    kind: str  # dimension, metric, measure, table_calculation, custom_dimension, sql_column, ...
    table: str = ""  # the tool's table (Lightdash table, LookML view)
    node: str | None = None  # the unique id of the dbt node its table reads
    sql: str = ""
    file: str = ""
    line: int | None = None
    reads: tuple[Read, ...] = ()
    unchanged: bool = False  # a SQL chart's column that is an upstream column unchanged (passthrough, renamed)


class BIChart(BaseModel, frozen=True):
    unique_id: str  # chart.<tool>.<tool id>
    tool: str
    tool_id: str  # Lightdash's chart slug, LookML's dashboard/element, Metabase's card id
    name: str
    kind: str = "chart"  # chart, sql_chart, tile
    explore: str = ""
    file: str = ""
    line: int | None = None
    shows: tuple[tuple[str, str], ...] = ()  # (field unique id, role: dimension, metric, filter, ...)
    reason: str = ""  # a chart a dashboard names that no file defines: why it is unresolved


class BIDashboard(BaseModel, frozen=True):
    unique_id: str  # dashboard.<tool>.<tool id>
    tool: str
    tool_id: str
    name: str
    file: str = ""
    line: int | None = None
    holds: tuple[str, ...] = ()  # chart unique ids
    shows: tuple[tuple[str, str], ...] = ()  # its own filters: (field unique id, "filter")


class BIDefinitions(BaseModel, frozen=True):
    """Everything read from the BI sources of one build."""

    fields: dict[str, BIField] = {}
    charts: dict[str, BIChart] = {}
    dashboards: dict[str, BIDashboard] = {}
    sources: tuple[str, ...] = ()  # the folders read, as given
    sha256: str | None = None  # of every file read, in order: what a no-change build compares


def field_uid(tool: str, tool_id: str) -> str:
    return f"bi_field.{tool}.{tool_id}"


def chart_uid(tool: str, tool_id: str) -> str:
    return f"chart.{tool}.{tool_id}"


def dashboard_uid(tool: str, tool_id: str) -> str:
    return f"dashboard.{tool}.{tool_id}"


def column_target(node: str, column: str) -> str:
    return f"{node}\t{column}"
