"""Column-level lineage catalog for dbt projects, stored as versioned builds in Neo4j."""

__version__ = "0.1.0"

# The Neo4j the local server runs (catalog.local_neo4j); here so `catalog --help` can name it cheaply.
NEO4J_VERSION = "5.26.30"

# Seconds Neo4j waits are bounded by (connecting, one transaction, retrying one after a lock
# conflict) unless --timeout / NEO4J_TIMEOUT say otherwise; here so command options can name it cheaply.
DEFAULT_TIMEOUT = 30.0
