"""Errors of every stage. The CLI turns a CatalogError into one line on stderr."""


class CatalogError(Exception):
    """Base of every error the catalog raises on purpose."""


class ArtifactError(CatalogError):
    """A dbt artifact is missing, unreadable or of an unsupported shape."""


class AnalysisError(CatalogError):
    """A model's SQL could not be analyzed."""


class StoreError(CatalogError):
    """Neo4j could not be reached or refused a write."""


class ConnectionLost(StoreError):
    """Neo4j stopped answering in the middle of a command (the server died or the network failed)."""


class NotFound(CatalogError):
    """A model, column or build named by the user does not exist."""


class Ambiguous(NotFound):
    """A name the user gave means several columns."""


class ServerError(CatalogError):
    """The local Neo4j server could not be installed, started or stopped."""
