"""docker-compose.yml runs Neo4j as `catalog neo4j start` does: authentication on, this machine only."""

from __future__ import annotations

from pathlib import Path

import yaml

COMPOSE = Path(__file__).resolve().parents[1] / "docker-compose.yml"


def test_compose_neo4j_asks_for_the_password_of_env_and_listens_on_loopback_only():
    neo4j = yaml.safe_load(COMPOSE.read_text())["services"]["neo4j"]
    # compose fills ${NEO4J_PASSWORD} from .env (or the shell) and stops with this message without it
    assert neo4j["environment"]["NEO4J_AUTH"] == (
        "neo4j/${NEO4J_PASSWORD:?set NEO4J_PASSWORD in .env next to docker-compose.yml (8 characters or more)}"
    )
    assert neo4j["ports"] == ["127.0.0.1:7474:7474", "127.0.0.1:7687:7687"]
