"""Neo4j connection settings, from options and environment. The password is never printed."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr

from catalog import DEFAULT_TIMEOUT  # connecting, one transaction, retrying one after a lock conflict
from catalog.errors import StoreError

DEFAULT_URI = "bolt://127.0.0.1:7687"
SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def check_uri(uri: str) -> str:
    """The URI when the driver can use it for Bolt, else a StoreError that says what is wrong."""
    bad = f"bad Neo4j URI {uri!r} (--uri or NEO4J_URI)"
    try:
        parts = urlsplit(uri)
    except ValueError as e:  # an unclosed [ or ], a bracketed host that is no IP address, ...
        raise StoreError(f"{bad}: the host is not valid ({e}); an IPv6 address goes in brackets, e.g. bolt://[::1]:7687") from None
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        raise StoreError(f"{bad}: {scheme}:// is the HTTP port of Neo4j Browser; give the Bolt URI, e.g. bolt://host:7687")
    if scheme not in SCHEMES:
        raise StoreError(f"{bad}: the scheme must be one of {', '.join(s + '://' for s in SCHEMES)}")
    try:
        port = parts.port
    except ValueError:
        raise StoreError(f"{bad}: the port must be a number from 1 to 65535") from None
    if port == 0:
        raise StoreError(f"{bad}: the port must be a number from 1 to 65535")
    if not parts.hostname:
        raise StoreError(f"{bad}: no host name")
    return uri


def check_timeout(raw: str | float, where: str) -> float:
    """Seconds as a positive number, else a StoreError naming where the value came from."""
    try:
        seconds = float(raw)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise StoreError(f"bad Neo4j timeout {raw!r} ({where}): give a number of seconds above 0, e.g. 30")
    return seconds


def local_uri() -> str:
    """The local server's Bolt URI (``catalog neo4j start``), on CATALOG_NEO4J_BOLT_PORT if set."""
    port = os.environ.get("CATALOG_NEO4J_BOLT_PORT", "").strip()
    return f"bolt://127.0.0.1:{port}" if port.isdigit() else DEFAULT_URI


def is_local_server(uri: str) -> bool:
    """``uri`` reaches the local server's Bolt port on this machine (bolt:// or neo4j://)."""
    mine, other = urlsplit(local_uri()), urlsplit(uri)
    try:
        port = other.port or 7687
    except ValueError:
        return False
    return (
        other.scheme.lower() in ("bolt", "neo4j")
        and (other.hostname or "") in ("127.0.0.1", "localhost")
        and port == mine.port
    )


def _password(given: str | None, uri: str) -> tuple[str, str]:
    """The password and where it came from: --password, else $NEO4J_PASSWORD, else the local
    server's password file when ``uri`` is the local server's. Empty means not given."""
    if given:
        return given, "--password"
    if os.environ.get("NEO4J_PASSWORD"):
        return os.environ["NEO4J_PASSWORD"], "NEO4J_PASSWORD"
    if is_local_server(uri):
        from catalog import local_neo4j
        from catalog.errors import ServerError

        try:
            where = local_neo4j.layout()
            stored = local_neo4j.read_password(where)
        except ServerError as e:
            raise StoreError(str(e)) from None
        if stored:
            return stored, f"the local server's password file {where.password_file}"
    return "", ""


class Neo4jSettings(BaseModel):
    """Where the catalog's graph lives.

    Works with ``bolt://``, ``neo4j://`` and ``neo4j+s://`` URIs. An empty password means
    no authentication. ``password_from`` says where the password came from (for messages;
    the password itself is never printed).
    ``timeout`` bounds, in seconds, connecting (TCP and the Bolt handshake), each transaction
    (the server ends a longer one) and the retries of a transaction that met a lock conflict.
    """

    model_config = ConfigDict(frozen=True)

    uri: str = DEFAULT_URI
    user: str = "neo4j"
    password: SecretStr = SecretStr("")
    password_from: str = ""
    database: str = "neo4j"
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def from_env(
        cls,
        uri: str | None = None,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        timeout: float | None = None,
    ) -> "Neo4jSettings":
        """Options win over ``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``,
        ``NEO4J_TIMEOUT``. Without a password from either, the local server's URI gets the
        password of its password file (``catalog neo4j start``)."""
        env = os.environ
        if timeout is not None:
            seconds = check_timeout(timeout, "--timeout")
        elif env.get("NEO4J_TIMEOUT", "").strip():
            seconds = check_timeout(env["NEO4J_TIMEOUT"].strip(), "NEO4J_TIMEOUT")
        else:
            seconds = DEFAULT_TIMEOUT
        checked = check_uri(uri or env.get("NEO4J_URI") or local_uri())
        secret, source = _password(password, checked)
        return cls(
            uri=checked,
            user=user or env.get("NEO4J_USER") or "neo4j",
            password=SecretStr(secret),
            password_from=source,
            database=database or env.get("NEO4J_DATABASE") or "neo4j",
            timeout=seconds,
        )

    @property
    def is_default_local(self) -> bool:
        """True when nothing was configured and the local server is meant."""
        return is_local_server(self.uri)

    def auth(self) -> tuple[str, str] | None:
        secret = self.password.get_secret_value()
        return (self.user, secret) if secret else None
