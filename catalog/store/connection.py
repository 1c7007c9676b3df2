"""Open the Neo4j driver from settings; turn connection failures into one clear error."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import AuthError, ConfigurationError, ServiceUnavailable

from catalog.errors import StoreError
from catalog.settings import Neo4jSettings


@contextlib.contextmanager
def open_driver(settings: Neo4jSettings) -> Iterator[Driver]:
    hint = (
        "start the local server with `catalog neo4j start`"
        if settings.is_default_local
        else "check NEO4J_URI / --uri, NEO4J_USER and NEO4J_PASSWORD"
    )
    try:
        driver = GraphDatabase.driver(settings.uri, auth=settings.auth(), notifications_min_severity="OFF")
    except (ValueError, ConfigurationError) as e:
        raise StoreError(f"bad Neo4j URI {settings.uri!r}: {e}") from e
    try:
        try:
            driver.verify_connectivity()
        except AuthError as e:
            raise StoreError(f"Neo4j at {settings.uri} refused the credentials of user {settings.user!r} ({hint})") from e
        except (ServiceUnavailable, OSError) as e:
            raise StoreError(f"cannot reach Neo4j at {settings.uri} ({hint})") from e
        yield driver
    finally:
        driver.close()
