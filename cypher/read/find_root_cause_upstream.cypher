// Root cause: every column upstream of the target columns, back to sources and seeds, with
// one shortest path from it and the expression at each hop (read top to bottom: how the
// target is computed). As of build $build_id, or the active build when null.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $max_depth (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: target, column, project, unique_id, model, name, resource_type, depth, hops (list of {from, to, type, expr, resolved})
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS target_key
MATCH (target:Column {key: target_key})
CALL (target, b) {
  // in a subquery, the search starts at its one target: outside one, the planner may try
  // every Column node of the database as a path's end instead (see find_consumer_inputs)
  MATCH path = ANY SHORTEST (target)((y)<-[r:FEEDS]-(x) WHERE r.since <= coalesce($builds[y.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[y.project], b))){1,}(u:Column)
  WHERE $max_depth IS NULL OR length(path) <= $max_depth
  RETURN path, u
}
OPTIONAL MATCH (m:Model {key: u.project + '/' + u.unique_id})
RETURN target.key AS target, u.key AS column, u.project AS project, u.unique_id AS unique_id, u.model_name AS model, u.name AS name,
       m.resource_type AS resource_type, length(path) AS depth,
       [rel IN reverse(relationships(path)) | {from: startNode(rel).key, to: endNode(rel).key, type: rel.type,
                                      expr: rel.expr, resolved: rel.resolved}] AS hops
ORDER BY depth, column, target
