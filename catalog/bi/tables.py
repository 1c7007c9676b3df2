"""A BI tool's table (a LookML view's ``sql_table_name``, a Metabase table) matched to the dbt
node whose relation it is: as a table in a model's SQL is matched (the full relation name, schema
and name), else by a name only one node has."""

from __future__ import annotations

from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtProject


class Tables:
    def __init__(self, project: DbtProject):
        self.relations = RelationIndex.for_project(project)
        self.by_name: dict[str, set[str]] = {}
        for node in project.nodes.values():
            if node.identifier:
                self.by_name.setdefault(node.identifier.lower(), set()).add(node.unique_id)

    def node(self, parts: tuple[str, ...]) -> str | None:
        """The unique id of the node ``parts`` (lower-case, as :func:`split_relation` gives) name, if one does."""
        uid = self.relations.lookup(parts)
        if uid is None and parts and len(self.by_name.get(parts[-1], ())) == 1:
            uid = next(iter(self.by_name[parts[-1]]))
        return uid
