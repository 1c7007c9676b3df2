// The columns of a build's dbt nodes whose label (the node's name, a dot, the column's name)
// matches $pattern: the candidates of a search, which the caller ranks (catalog/mcp/view.py).
// A node's columns are those the analysis gave it when it has any, else those it declares.
// The label is matched first, the build of the column after (the fewer relationships read).
// As of build $build_id, or the project's active build when null.
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $project, $build_id (int or null), $pattern (a regular expression the whole label must match)
// Returns: key, unique_id, model, name
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
WITH b, m, m.name + '.' AS label, EXISTS {
  MATCH (m)-[h:HAS]->(:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND h.kind IS NOT NULL AND h.kind <> ''
} AS analyzed
MATCH (m)-[h:HAS]->(c:Column)
WHERE label + c.name =~ $pattern
WITH b, m, analyzed, h, c
WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND (NOT analyzed OR (h.kind IS NOT NULL AND h.kind <> ''))
RETURN collect({key: c.key, unique_id: m.unique_id, model: m.name, name: c.name}) AS rows
