"""Every read and write of the catalog graph, one method per Cypher file.

The only module that runs Cypher. Writes are batched ``UNWIND $rows`` statements, each
batch in its own write transaction: a build's rows are invisible to readers until the
build is made active (see ``write/set_active_build``), so a crash between batches leaves
nothing half-visible, and the next build undoes it (``write/delete_build_relationships``,
``write/reopen_build_relationships``).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, NoReturn, TypeVar

from neo4j import READ_ACCESS, Driver, ManagedTransaction, Query, RoutingControl, unit_of_work
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from catalog.errors import ConnectionLost, StoreError
from catalog.settings import DEFAULT_TIMEOUT, Neo4jSettings
from catalog.store import cypher
from catalog.store.connection import open_driver, why_unreachable

BATCH_SIZE = 2500
STREAM_FETCH = 100  # rows a streamed read asks Neo4j for at a time (a row may be a whole model)
WRITERS = 2  # write transactions in flight at once
TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"  # ...ClientConfiguration in Neo4j 5
# a transaction ended while it waited for a lock: past its timeout, by an operator, or at shutdown
LOCK_CLIENT_STOPPED = "Neo.ClientError.Transaction.LockClientStopped"
DATABASE_NOT_FOUND = "Neo.ClientError.Database.DatabaseNotFound"
SCHEMA_VERSION = 6  # bump when cypher/schema changes
T = TypeVar("T")


def batched(rows: list[T], size: int = BATCH_SIZE) -> Iterator[list[T]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


def grouped_batches(groups: list[T], weight: Callable[[T], int], size: int = BATCH_SIZE) -> Iterator[list[T]]:
    """Groups of rows (say, a model's columns) in batches of about ``size`` rows; a group is
    never split, so a batch of one large group may hold more."""
    batch: list[T] = []
    total = 0
    for group in groups:
        batch.append(group)
        total += weight(group)
        if total >= size:
            yield batch
            batch, total = [], 0
    if batch:
        yield batch


_PLAIN = frozenset({str, int, float, bool, type(None)})  # values data() leaves as they are


def _dicts(records: list[Any]) -> list[dict[str, Any]]:
    """Records as dicts, as the driver's ``data()`` makes them. A row of plain values (strings,
    numbers, booleans, nulls) is zipped with the keys: ``data()`` walks every value looking
    for nodes, relationships and paths, and on a build's read of its model states that walk
    took longer than Neo4j took to answer. Any other row still goes through ``data()``."""
    if not records:
        return []
    keys = records[0].keys()
    return [dict(zip(keys, r)) if all(type(v) in _PLAIN for v in r) else r.data() for r in records]


PROFILED = re.compile(r"\s*(CYPHER\b[^\n]*?\s)?PROFILE\b", re.IGNORECASE)
# a query's CYPHER options (version, planner settings), then its EXPLAIN or PROFILE if any
_OPTIONS = re.compile(r"\s*((?:CYPHER\b(?:\s+(?:\d+(?:\.\d+)?|\w+\s*=\s*[\w.]+))*\s+)?)(?:(?:EXPLAIN|PROFILE)\b)?", re.IGNORECASE)


def _explained(text: str) -> str:
    """``text`` to be planned, not run: ``EXPLAIN`` after its options, instead of its own
    ``EXPLAIN`` or ``PROFILE``."""
    options = _OPTIONS.match(text)
    assert options is not None  # every part is optional
    return f"{options.group(1)}EXPLAIN {text[options.end():]}"


class AnyRead(NamedTuple):
    """The answer of :meth:`Graph.read_any`: its column names, the rows kept, how many it had
    (None when it has more than were read: not counted), and whether rows follow the ones kept."""

    columns: list[str]
    rows: list[dict[str, Any]]
    total: int | None
    more: bool


class Graph:
    """The catalog graph in one Neo4j database."""

    def __init__(self, driver: Driver, database: str = "neo4j", timeout: float | None = None, uri: str | None = None):
        self.driver = driver
        self.database = database
        # seconds one transaction may run (the server ends it), and may be retried after lock
        # conflicts; None: no limit on the server, DEFAULT_TIMEOUT of retries
        self.timeout = timeout
        self.uri = uri  # named in errors

    # ------------------------------------------------------------------ plumbing
    def read(self, name: str, /, *, timeout_: float | None = None, **params: Any) -> list[dict[str, Any]]:
        """Run ``cypher/<name>.cypher`` read-only; rows as dicts. ``params`` are the query's.

        A query whose one column is ``rows`` returns its rows collected into one list of maps
        (the driver spends tens of microseconds on each record it receives, more than Neo4j
        spends on a row of a build's state read): those maps are the rows."""
        records = self._read_records(name, timeout_, params)
        if len(records) == 1 and records[0].keys() == ["rows"]:
            return list(records[0][0])
        return _dicts(records)

    def read_values(self, name: str, /, *, timeout_: float | None = None, **params: Any) -> list[tuple[Any, ...]]:
        """Like :meth:`read`, rows as tuples of plain values in the query's column order, left
        as the driver decoded them: for large results of lists, strings and numbers only."""
        return [tuple(r) for r in self._read_records(name, timeout_, params)]

    def stream_values(self, name: str, /, *, fetch_size: int = STREAM_FETCH, **params: Any) -> Iterator[tuple[Any, ...]]:
        """Like :meth:`read_values`, each row yielded as the driver receives it (``fetch_size``
        rows at a time) instead of the whole answer held at once: for a read of every model of
        a large build, folded row by row. The transaction stays open until the last row is read
        or the iterator is closed; unlike :meth:`read`, it is not retried once rows came."""
        timeout = self.timeout
        try:
            with self.driver.session(database=self.database, default_access_mode=READ_ACCESS, fetch_size=fetch_size) as session:
                with session.begin_transaction(timeout=timeout) as tx:
                    for record in tx.run(cypher.load(name), params):
                        yield tuple(record)
        except (Neo4jError, DriverError, OSError) as e:
            self._failed(name, e, timeout)

    def _read_records(self, name: str, timeout_: float | None, params: dict[str, Any]) -> list[Any]:
        timeout = timeout_ if timeout_ is not None else self.timeout
        query = Query(cypher.load(name), timeout=timeout)
        try:
            records, _, _ = self.driver.execute_query(
                query, params, routing_=RoutingControl.READ, database_=self.database
            )
        except (Neo4jError, DriverError, OSError) as e:
            self._failed(name, e, timeout)
        return records

    def read_any(self, text: str, params: dict[str, Any], skip: int, limit: int, timeout: float | None) -> AnyRead:
        """A user's Cypher (``catalog mcp``'s ``cypher`` tool), read-only by construction: refused
        before Neo4j sees it when :func:`catalog.store.readonly.refusal` finds a clause that
        reads outside the graph or ends others' work, then planned (``EXPLAIN``, which runs
        nothing) and refused unless :func:`~catalog.store.readonly.plan_refusal` finds it reads
        the catalog graph only, then run in a READ access-mode transaction (Neo4j refuses any
        write in it) that is rolled back, never committed. Rows ``skip`` to ``skip + limit``
        are kept as plain data, within ``timeout`` seconds; one more row is read to know whether
        others follow, and no further one: a query with more rows than that is not counted
        (``total`` None), so that a page of a large answer costs a page. A ``PROFILE`` is read
        to its end and counted."""
        from catalog.store.readonly import QueryRefused, plan_refusal, refusal

        why = refusal(text)
        if why:
            raise QueryRefused(why)
        try:
            with self.driver.session(database=self.database, default_access_mode=READ_ACCESS,
                                     fetch_size=min(skip + limit + 1, 1000)) as session:  # fmt: skip
                tx = session.begin_transaction(timeout=timeout)
                try:
                    planned = tx.run(_explained(text), params).consume()  # type: ignore[arg-type]  # the user's query, planned only
                    why = plan_refusal(planned.query_type, planned.plan)
                    if why:
                        raise QueryRefused(why)
                    result = tx.run(text, params)  # type: ignore[arg-type]  # the user's query, run as given
                    keys = list(result.keys())
                    rows: list[dict[str, Any]] = []
                    # a profiled query is read to its end: Neo4j does not drop the rest of one
                    stop = None if PROFILED.match(text) else skip + limit
                    seen = 0
                    for record in result:
                        if seen == stop:  # one row past the page: there are more
                            break
                        if skip <= seen < skip + limit:
                            rows.append(record.data())
                        seen += 1
                    else:
                        return AnyRead(keys, rows, seen, seen > skip + limit)
                    return AnyRead(keys, rows, None, True)
                finally:
                    tx.close()  # rolled back: the rows not read are never made
        except (Neo4jError, DriverError, OSError) as e:
            if isinstance(e, Neo4jError) and (e.code or "").endswith(("Statement.AccessMode", "Security.Forbidden")):
                raise QueryRefused(f"the query writes to the graph or the server (Neo4j: {e.message}); the cypher tool runs read-only queries only") from e
            self._failed("the query", e, timeout)

    def write(self, name: str, /, *, timeout_: float | None = None, **params: Any) -> list[dict[str, Any]]:
        """Run ``cypher/<name>.cypher`` in a write transaction. ``timeout_`` overrides the
        graph's transaction timeout (0: no limit)."""
        text = cypher.load(name)

        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [r.data() for r in tx.run(text, params)]

        return self._execute_write(name, work, timeout_)

    def write_batches(
        self,
        name: str,
        /,
        rows: list[dict[str, Any]],
        on_batch: Callable[[int], None] | None = None,
        parallel: int = WRITERS,
        weight: Callable[[Any], int] | None = None,
        **params: Any,
    ) -> int:
        """``UNWIND $rows`` in batches, each its own transaction, ``parallel`` at a time.

        The server, not Python, is the bottleneck of large writes; two transactions at once
        keep it busy. Lock conflicts between batches are retried by ``execute_write``.
        With ``weight``, each row is a group of rows the statement unwinds again (a model
        and its columns): batches hold about ``BATCH_SIZE`` inner rows, ``on_batch`` is told
        how many rows (groups) each held.
        """
        chunks = list(grouped_batches(rows, weight) if weight else batched(rows))
        if not chunks:
            return 0

        def one(chunk: list[dict[str, Any]]) -> int:
            result = self.write(name, rows=chunk, **params)
            if on_batch:
                on_batch(len(chunk))
            return int(result[0]["count"]) if result else 0

        if parallel <= 1 or len(chunks) == 1:
            return sum(one(c) for c in chunks)
        pool = ThreadPoolExecutor(max_workers=parallel)
        try:
            return sum(pool.map(one, chunks))
        finally:  # after a failure or an interrupt, batches not started are not written
            pool.shutdown(wait=True, cancel_futures=True)

    def run_autocommit(self, name: str, /, *, timeout_: float | None = None, **params: Any) -> list[dict[str, Any]]:
        """Statements with ``CALL { ... } IN TRANSACTIONS`` must run outside a transaction
        function. ``timeout_``: seconds for the whole statement (default or 0: no limit)."""
        timeout = timeout_ or None
        started = time.monotonic()
        try:
            with self.driver.session(database=self.database) as session:
                result = session.run(Query(cypher.load(name), timeout=timeout), params)
                rows = [r.data() for r in result]
                result.consume()
                return rows
        except (Neo4jError, DriverError, OSError) as e:
            self._failed(name, e, timeout, ran=time.monotonic() - started)

    def transaction(self, name: str, work: Callable[[ManagedTransaction], T]) -> T:
        """Several statements in one write transaction (``work`` may be retried)."""
        return self._execute_write(name, work)

    def build_start(self, work: Callable[[BuildStart], T]) -> T:
        """A build's start in one write transaction: ``work`` gets the statements it may run
        (:class:`BuildStart`) and decides between them; it may be retried."""
        return self._execute_write("write/lock_project", lambda tx: work(BuildStart(tx)))

    def _execute_write(self, name: str, work: Callable[[ManagedTransaction], T], timeout_: float | None = None) -> T:
        """``work`` in a write transaction, retried after lock conflicts (deadlocks between
        concurrent writers) for up to the timeout; a lost connection is not waited for."""
        timeout = timeout_ if timeout_ is not None else self.timeout
        bounded = unit_of_work(timeout=timeout)(work) if timeout is not None else work
        deadline = time.monotonic() + (self.timeout or DEFAULT_TIMEOUT)
        delay = 0.2
        while True:
            started = time.monotonic()
            try:
                with self.driver.session(database=self.database) as session:
                    return session.execute_write(bounded)
            except (Neo4jError, DriverError, OSError) as e:
                if not isinstance(e, Neo4jError) or not e.is_retryable() or time.monotonic() + delay > deadline:
                    self._failed(name, e, timeout, ran=time.monotonic() - started)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)

    def _failed(self, name: str, error: Exception, timeout: float | None, ran: float | None = None) -> NoReturn:
        """One StoreError for what went wrong running ``name``: a lost connection, a transaction
        past its timeout, or a statement Neo4j refused. ``ran``: seconds the transaction ran
        (a transaction ended while it waited for a lock was ended by its timeout when it ran
        that long; Neo4j names the lock, not the timeout)."""
        if isinstance(error, (ServiceUnavailable, SessionExpired, OSError)):
            where = f" at {self.uri}" if self.uri else ""
            reason = why_unreachable(error, self.timeout or DEFAULT_TIMEOUT)
            raise ConnectionLost(f"lost the connection to Neo4j{where} while running {name} ({reason})") from error
        if not isinstance(error, Neo4jError):
            raise StoreError(f"the Neo4j driver failed on {name}: {error}") from error
        code = error.code or ""
        waited_too_long = code == LOCK_CLIENT_STOPPED and bool(timeout) and ran is not None and ran >= timeout
        if code.startswith(TIMED_OUT) or waited_too_long:
            after = f"after the {timeout:g} s timeout" if timeout else "at the server's transaction timeout"
            waiting = " while it waited for a lock another transaction held" if waited_too_long else ""
            raise StoreError(f"Neo4j ended {name} {after}{waiting}; allow longer with --timeout or NEO4J_TIMEOUT") from error
        if error.code == DATABASE_NOT_FOUND:
            where = f" at {self.uri}" if self.uri else ""
            raise StoreError(
                f"Neo4j{where} has no database '{self.database}'; name one it has with --database or NEO4J_DATABASE"
            ) from error
        raise StoreError(f"Neo4j refused {name}: {error.message or error}") from error

    # ------------------------------------------------------------------ schema
    def create_constraints(self) -> None:
        with self.driver.session(database=self.database) as session:
            for statement in cypher.statements("schema/create_constraints"):
                session.run(statement).consume()
        self.write("write/set_schema_version", version=SCHEMA_VERSION)

    def ensure_schema(self) -> None:
        """Create constraints and indexes unless this database already has this version's."""
        rows = self.read("read/find_schema_version")
        if not rows or rows[0]["version"] != SCHEMA_VERSION:
            self.create_constraints()

    # ------------------------------------------------------------------ builds
    def find_active_build(self, project: str) -> dict[str, Any] | None:
        rows = self.read("read/find_active_build", project=project)
        return rows[0]["build"] if rows else None

    def list_model_states(self, project: str, build_id: int) -> list[dict[str, Any]]:
        return self.read("read/list_model_states", project=project, build_id=build_id)

    def list_model_relationships(self, keys: Iterable[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for chunk in batched(list(keys), 500):
            out.extend(self.read("read/list_model_relationships", keys=chunk))
        return out

    def close_relationships(self, build_id: int, ids: list[str]) -> int:
        closed = 0
        for chunk in batched(ids):
            result = self.write("write/close_relationships", build_id=build_id, ids=chunk)
            closed += int(result[0]["count"]) if result else 0
        return closed

    def set_build_failed(self, ids: list[int], reason: str, now: str) -> None:
        self.write("write/set_build_failed", ids=ids, reason=reason, now=now)

    def delete_build_changes(self, build_id: int, timeout_: float | None = None) -> dict[str, int]:
        """Undo a dead build's writes, in batches of their own transactions: a large build's
        relationships do not fit in one. Readers never see them; run again, it finishes. Its
        names go too (a build gets them as it becomes active, so a failed one has none)."""
        timeout = self.timeout if timeout_ is None else timeout_  # 0: no limit
        deleted = self.run_autocommit("write/delete_build_relationships", timeout_=timeout, build_id=build_id)
        reopened = self.run_autocommit("write/reopen_build_relationships", timeout_=timeout, build_id=build_id)
        self.write("write/delete_build_names", timeout_=timeout, build_id=build_id)
        return {"deleted": int(deleted[0]["deleted"]) if deleted else 0, "reopened": int(reopened[0]["reopened"]) if reopened else 0}

    def heartbeat(self, build_id: int, now: str) -> None:
        self.write("write/set_build_heartbeat", build_id=build_id, now=now)

    def activate_build(self, project: str, build_id: int, summary: dict[str, Any], now: str) -> dict[str, Any] | None:
        """Make a finished build active with its names, in one transaction (:func:`_activated`);
        None when the build is no longer running (another process marked it failed)."""
        return self._execute_write("write/set_active_build", lambda tx: _activated(tx, project, build_id, summary, now, copy_names=False))


class BuildStart:
    """The statements of a build's start, run in the one transaction of :meth:`Graph.build_start`:
    the project is locked (other builds of it wait), the build is created, and a build with
    the active build's inputs is made active at once."""

    def __init__(self, tx: ManagedTransaction):
        self._tx = tx

    def lock_project(self, project: str, now: str) -> dict[str, Any]:
        """The project's state: ``active`` build, ``running`` builds, ``next_id``, ``schema_version``."""
        return dict(self._tx.run(cypher.load("write/lock_project"), project=project, now=now).single())

    def create_build(self, project: str, build: dict[str, Any]) -> None:
        self._tx.run(cypher.load("write/create_build"), project=project, build=build).consume()

    def activate(self, project: str, build_id: int, summary: dict[str, Any], now: str) -> dict[str, Any]:
        """Make the no-change build active, with the names of the build it replaces; the row
        names that build (``previous_id``)."""
        row = _activated(self._tx, project, build_id, summary, now, copy_names=True)
        assert row is not None  # created running in this very transaction
        return row


NAMES_UPDATE_SHARE = 0.25
"""The share of the previous build's models, and of its column names, a build may change and
still have its names made from that build's (``write/update_build_names``); past it, the
lookups of each changed name cost more than making them over the whole build."""


def _activated(tx: ManagedTransaction, project: str, build_id: int, summary: dict[str, Any], now: str, copy_names: bool) -> dict[str, Any] | None:
    """Make the build active (``write/set_active_build``) and store its names beside it:
    readers of the build see both or neither. The names are those of the build it replaces
    changed by what this build changed (``write/update_build_names``; with ``copy_names``, a
    no-change build's, those names as they are: ``write/copy_build_names``), or, when that
    build has none or this one changed much, made over the whole build
    (``write/create_build_names``). The row names the build replaced (``previous_id``) and how
    its names were made (``names``: copied, updated or created); None when the build is no
    longer running."""
    row = tx.run(cypher.load("write/set_active_build"), project=project, build_id=build_id, summary=summary, now=now).single()
    if row is None:
        return None
    previous = row["previous_id"]
    names = "created"
    if previous is not None:
        if copy_names:
            made = tx.run(cypher.load("write/copy_build_names"), project=project, build_id=build_id, previous_id=previous).single()
            names = "copied"
        else:
            made = tx.run(
                cypher.load("write/update_build_names"), project=project, build_id=build_id, previous_id=previous, share=NAMES_UPDATE_SHARE
            ).single()
            names = "updated"
        if made is None:
            names = "created"
    if names == "created":
        tx.run(cypher.load("write/create_build_names"), project=project, build_id=build_id).consume()
    return {**dict(row), "names": names}


@contextlib.contextmanager
def open_graph(settings: Neo4jSettings, timeout: float | None) -> Iterator[Graph]:
    """The graph of the server ``settings`` names, open for the length of a ``with`` block;
    ``timeout``: seconds one transaction may run (None: as long as it takes)."""
    with open_driver(settings) as driver:
        yield Graph(driver, settings.database, timeout=timeout, uri=settings.uri)
