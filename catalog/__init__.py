"""Column-level lineage catalog for dbt projects, stored as versioned builds in Neo4j."""

__version__ = "0.1.0"
