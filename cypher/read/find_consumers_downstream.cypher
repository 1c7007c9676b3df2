// The semantic-model columns (entities, dimensions, measures), metrics, exposures and saved
// queries that read the given columns, at any depth (model column -> measure -> metric ->
// derived metric -> saved query / exposure), with one shortest path.
// As of build $build_id, or the project's active build when null.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: start, key, project, unique_id, name, kind, depth, hops (list of {from, to, type, expr}),
//   precision (an exposure's: column when it lists the columns it reads, model; else null),
//   owner (an exposure's owner, name or email; else null)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS start_key
MATCH (start:Column {key: start_key})
CALL (start, b) {
  // in a subquery, the search starts at its one column (see find_consumer_inputs)
  MATCH path = ANY SHORTEST (start)((x)-[r:INPUT_OF]->(y) WHERE r.since <= coalesce($builds[y.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[y.project], b))){1,}(d)
  RETURN path, d
}
OPTIONAL MATCH (:Project {name: d.project})-[def:DEFINES]->(d)
WHERE def.since <= coalesce($builds[d.project], b) AND (def.until IS NULL OR def.until > coalesce($builds[d.project], b))
RETURN start.key AS start, d.key AS key, d.project AS project, d.unique_id AS unique_id,
       CASE WHEN d:Column THEN split(d.model_name, ':')[-1] + '.' + d.name ELSE d.name END AS name,
       CASE WHEN d:Column THEN 'semantic_model' ELSE d.resource_type END AS kind,
       length(path) AS depth,
       [rel IN relationships(path) | {from: startNode(rel).key, to: endNode(rel).key, type: rel.type, expr: rel.expr}] AS hops,
       CASE WHEN d.resource_type = 'exposure' THEN coalesce(def.precision, 'model') END AS precision,
       CASE WHEN d.resource_type = 'exposure' THEN def.owner END AS owner
ORDER BY depth, key, start
