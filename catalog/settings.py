"""Neo4j connection settings, from options and environment. The password is never printed."""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, SecretStr

DEFAULT_URI = "bolt://127.0.0.1:7687"


def local_uri() -> str:
    """The local server's Bolt URI (``catalog neo4j start``), on CATALOG_NEO4J_BOLT_PORT if set."""
    port = os.environ.get("CATALOG_NEO4J_BOLT_PORT", "").strip()
    return f"bolt://127.0.0.1:{port}" if port.isdigit() else DEFAULT_URI


class Neo4jSettings(BaseModel):
    """Where the catalog's graph lives.

    Works with ``bolt://``, ``neo4j://`` and ``neo4j+s://`` URIs. An empty password means
    no authentication (the local server started by ``catalog neo4j start`` has auth off).
    """

    model_config = ConfigDict(frozen=True)

    uri: str = DEFAULT_URI
    user: str = "neo4j"
    password: SecretStr = SecretStr("")
    database: str = "neo4j"

    @classmethod
    def from_env(
        cls,
        uri: str | None = None,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
    ) -> "Neo4jSettings":
        """Options win over ``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``."""
        env = os.environ
        return cls(
            uri=uri or env.get("NEO4J_URI") or local_uri(),
            user=user or env.get("NEO4J_USER") or "neo4j",
            password=SecretStr(password if password is not None else env.get("NEO4J_PASSWORD", "")),
            database=database or env.get("NEO4J_DATABASE") or "neo4j",
        )

    @property
    def is_default_local(self) -> bool:
        """True when nothing was configured and the local server is meant."""
        return self.uri == local_uri()

    def auth(self) -> tuple[str, str] | None:
        secret = self.password.get_secret_value()
        return (self.user, secret) if secret else None
