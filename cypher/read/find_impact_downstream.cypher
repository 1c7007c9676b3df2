// Impact analysis: every column downstream of the start columns, at any depth (or up to
// $max_depth hops), with one shortest path to it and the type of each hop. Answers as of
// build $build_id, or the project's active build when $build_id is null.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $max_depth (int or null)
// Returns: start, column, unique_id, model, name, depth, hops (list of {from, to, type, expr, resolved})
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS start_key
MATCH (start:Column {key: start_key})
CALL (start, b) {
  // in a subquery, the search starts at its one column (see find_root_cause_subgraph)
  MATCH path = ANY SHORTEST (start)(()-[r:FEEDS WHERE r.since <= b AND (r.until IS NULL OR r.until > b)]->()){1,}(d:Column)
  WHERE $max_depth IS NULL OR length(path) <= $max_depth
  RETURN path, d
}
RETURN start.key AS start, d.key AS column, d.unique_id AS unique_id, d.model_name AS model, d.name AS name,
       length(path) AS depth,
       [rel IN relationships(path) | {from: startNode(rel).key, to: endNode(rel).key, type: rel.type,
                                      expr: rel.expr, resolved: rel.resolved}] AS hops
ORDER BY depth, column, start
