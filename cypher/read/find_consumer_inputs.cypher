// The columns a consumer (metric, exposure, saved query) reads, at any depth through the
// metrics it reads, with one shortest path from each column to it. As of build $build_id,
// or the project's active build when null.
// Parameters: $project, $key (the consumer's node key), $build_id (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: column, project, unique_id, model, name, resource_type (of the column's model or source; null for a semantic model's), depth, hops (list of {from, to, type, expr}, in data-flow order)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (target {key: $key}) WHERE target:Metric OR target:Exposure OR target:SavedQuery
CALL (target, b) {
  // In a subquery, the search starts at the one target. Outside one, the planner could try
  // every Column node of the database as a path's end, and every node when the end has no
  // label: 1.6 s for a metric on a database of 92,000 columns, instead of 2 ms.
  MATCH path = ANY SHORTEST (target)((y)<-[r:INPUT_OF]-(x) WHERE r.since <= coalesce($builds[y.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[y.project], b))){1,}(u:Column)
  RETURN path, u
}
OPTIONAL MATCH (m:Model {key: u.project + '/' + u.unique_id})
RETURN u.key AS column, u.project AS project, u.unique_id AS unique_id, u.model_name AS model, u.name AS name,
       m.resource_type AS resource_type, length(path) AS depth,
       [rel IN reverse(relationships(path)) | {from: startNode(rel).key, to: endNode(rel).key, type: rel.type, expr: rel.expr}] AS hops
ORDER BY depth, column
