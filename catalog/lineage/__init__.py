"""The column graph, walked with :mod:`catalog.walks`: what a column reaches, and from where.

- :mod:`catalog.walks` (beside this package, below every stage: the analysis orders its models
  with it too): the walks, as plain functions over the graph a caller has (shortest paths with
  the one tie-break rule, reach, impact, the nearest of several answers);
- :mod:`catalog.lineage.graph`: a build's columns as numbered parallel lists (streamed from a
  stored build, or made from analyzed records), and the report's and docs' walks over them;
- :mod:`catalog.lineage.records`: a project analyzed in memory (prune, check), with conditions;
- :mod:`catalog.lineage.names`: column names as users type them, resolved with suggestions.

``query``, ``check``, ``prune``, ``report``, ``docs`` and the MCP server call these; none keeps a
walk of its own.
"""
