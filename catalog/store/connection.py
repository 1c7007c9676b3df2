"""Open the Neo4j driver from settings; turn connection failures into one clear error.

Every wait is bounded by the settings' timeout: connecting (TCP and the Bolt handshake),
each transaction (the server ends a longer one) and the retries after a lock conflict
(see :class:`catalog.store.graph.Graph`). A lost connection is not retried for long: the
driver tries once more on a fresh connection, then the command stops with one line.
The driver's own log lines (retries, defunct connections) are not printed.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import AuthError, ConfigurationError, DriverError, Neo4jError

from catalog.errors import StoreError
from catalog.settings import Neo4jSettings

if TYPE_CHECKING:
    from catalog.local_neo4j import Progress, ServerStatus

# A handler of its own keeps the driver's warnings off stderr (Python prints records of a
# logger without handlers); an application that configures logging still gets them.
logging.getLogger("neo4j").addHandler(logging.NullHandler())


def why_unreachable(error: BaseException, timeout: float) -> str:
    """The driver's (multi-line) connection error in a few words."""
    text = f"{error} {error.__cause__ or ''}".lower()
    if "refused" in text:
        return "connection refused"
    if "timed out" in text or "deadline" in text or "timeout" in text:
        return f"no answer within {timeout:g} s"
    if "defunct" in text or "no data" in text or "reset" in text or "broken pipe" in text or "closed" in text:
        return "the server closed the connection"
    if "resolve" in text or "name or service" in text:
        return "unknown host"
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def why_refused(settings: Neo4jSettings, error: Neo4jError) -> str:
    """One line: authentication failed at the URI, with which password (never the password
    itself) and what to do."""
    from catalog.settings import is_local_server

    where = f"authentication failed at Neo4j {settings.uri} for user {settings.user!r}"
    if getattr(error, "code", "") == "Neo.ClientError.Security.AuthenticationRateLimit":
        why = "too many wrong passwords in a row; the server refuses logins for a few seconds"
    elif settings.password_from:
        why = f"it refused the password from {settings.password_from}"
    else:
        why = "it requires a password and none was given"
    todo = "give the password with --password or NEO4J_PASSWORD"
    if is_local_server(settings.uri) and not settings.password_from.startswith("the local server's"):
        from catalog import local_neo4j

        todo += f" (the local server keeps its own in {local_neo4j.layout().password_file}, see `catalog neo4j status`)"
    return f"{where}: {why}; {todo}"


@contextlib.contextmanager
def open_driver(settings: Neo4jSettings) -> Iterator[Driver]:
    hint = (
        "start the local server with `catalog neo4j start`"
        if settings.is_default_local
        else "check NEO4J_URI / --uri, NEO4J_USER and NEO4J_PASSWORD"
    )
    try:
        driver = GraphDatabase.driver(
            settings.uri,
            auth=settings.auth(),
            notifications_min_severity="OFF",
            connection_timeout=settings.timeout,  # TCP connect
            connection_acquisition_timeout=settings.timeout,  # connect + Bolt handshake, or a pooled connection
            max_transaction_retry_time=0,  # one retry on a fresh connection; Graph retries lock conflicts
        )
    except (ValueError, ConfigurationError) as e:
        raise StoreError(f"bad Neo4j URI {settings.uri!r}: {e}") from e
    try:
        try:
            driver.verify_connectivity()
        except AuthError as e:
            raise StoreError(why_refused(settings, e)) from None
        except Neo4jError as e:
            if not str(getattr(e, "code", "")).startswith("Neo.ClientError.Security."):
                raise
            raise StoreError(why_refused(settings, e)) from None
        except (DriverError, OSError) as e:
            reason = why_unreachable(e, settings.timeout)
            raise StoreError(f"cannot reach Neo4j at {settings.uri}: {reason} ({hint})") from e
        yield driver
    finally:
        driver.close()


# --------------------------------------------------------------------------- the local server
def set_password(uri: str, user: str, old: str, new: str) -> None:
    """Change ``user``'s password from ``old`` to ``new`` on the server at ``uri`` (the system
    database's ``ALTER CURRENT USER``); raises neo4j's AuthError when ``old`` is refused."""
    from catalog.store.cypher import load

    with GraphDatabase.driver(uri, auth=(user, old), connection_timeout=10) as driver:
        driver.execute_query(load("system/change_own_password"), old=old, new=new, database_="system")


def start_local_server(timeout: float = 120, progress: Progress | None = None, auth: bool = True) -> ServerStatus:
    """:func:`catalog.local_neo4j.start`, with the store setting the password of its user."""
    from catalog import local_neo4j

    return local_neo4j.start(timeout=timeout, progress=progress, auth=auth, set_password=set_password)
