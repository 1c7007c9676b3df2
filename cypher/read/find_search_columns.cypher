// The columns of a build's dbt nodes that a search matches, chosen by the caller from the
// build's node names and the project's column names (catalog/mcp/questions.py): for each of
// $asks, the columns of its nodes named one of its names (every column when its names are
// null), found from the index on (project, name) when it says so (`by_name`), else from its
// nodes. The names and the nodes are the keys of maps, looked up as such (a list would be
// scanned for each column). The caller ranks them (catalog/mcp/view.py).
// A node's columns are those the analysis gave it when it has any, else those it declares (as
// find_search_candidates). As of build $build_id, or the project's active build when null.
// One row, `rows`: one list per node, [its unique id, its columns' keys, their names] (a node's
// name is the caller's already; a list per node decodes faster than a map per column).
// Parameters: $project, $build_id (int or null), $asks (list of {names, nodes, by_name}: a map whose keys are column names, or null; a map whose keys are the nodes' unique ids; whether to start from the names)
// Returns: rows (list of [unique_id, list of keys, list of names])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
UNWIND $asks AS ask
CALL (b, ask) {
  WITH ask WHERE ask.by_name
  UNWIND keys(ask.names) AS name
  MATCH (c:Column)
  WHERE c.project = $project AND c.name = name AND ask.nodes[c.unique_id] IS NOT NULL
  MATCH (m:Model {key: $project + '/' + c.unique_id})-[h:HAS]->(c)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
  RETURN m, h, c
  UNION ALL
  WITH ask WHERE NOT ask.by_name
  UNWIND keys(ask.nodes) AS uid
  MATCH (m:Model {key: $project + '/' + uid})-[h:HAS]->(c:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND (ask.names IS NULL OR ask.names[c.name] IS NOT NULL)
  RETURN m, h, c
}
WITH p, b, m, collect([h.kind, c.key, c.name]) AS found
WHERE EXISTS { MATCH (p)-[s:CONTAINS]->(m) WHERE s.since <= b AND (s.until IS NULL OR s.until > b) }
WITH m, found, EXISTS {
  MATCH (m)-[h:HAS]->(:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND h.kind IS NOT NULL AND h.kind <> ''
} AS analyzed
WITH m, [f IN found WHERE NOT analyzed OR (f[0] IS NOT NULL AND f[0] <> '')] AS found
WHERE found <> []
RETURN collect([m.unique_id, [f IN found | f[1]], [f IN found | f[2]]]) AS rows
