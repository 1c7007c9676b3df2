"""Local Neo4j servers of the tests' own: a home and ports apart from every other server."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from catalog import local_neo4j


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def own_local_server_env(env: pytest.MonkeyPatch, home: Path, lib: Path) -> None:
    """Point ``catalog.local_neo4j`` at a server of its own: ``home``, the jars of ``lib``, two
    free ports, a small heap; and unset every NEO4J_ variable but the timeout, so that the
    commands find that server as they find the local one."""
    for key in [k for k in os.environ if k.startswith("NEO4J_") and k != "NEO4J_TIMEOUT"]:
        env.delenv(key)
    env.setenv(local_neo4j.ENV_HOME, str(home))
    env.setenv(local_neo4j.ENV_LIB, str(lib))
    env.setenv(local_neo4j.ENV_BOLT_PORT, str(free_port()))
    env.setenv(local_neo4j.ENV_HTTP_PORT, str(free_port()))
    env.setenv(local_neo4j.ENV_HEAP, "256m")
    env.setenv(local_neo4j.ENV_PAGECACHE, "128m")
