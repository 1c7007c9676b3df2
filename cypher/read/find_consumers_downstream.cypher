// The semantic-model columns (entities, dimensions, measures), metrics, exposures and saved
// queries that read the given columns, at any depth (model column -> measure -> metric ->
// derived metric -> saved query / exposure), as a subgraph in one row: every node reached
// through reads (INPUT_OF) from a given column, each with its reads out in that build. The
// caller walks it from each column for one shortest path to each consumer, by the one
// tie-break rule of catalog/walks.py. As of build $build_id, or the project's active
// build when null.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: nodes (list of [key, project, unique_id, name, kind, precision, owner, reads]; reads: list of [reader key, type, expr];
//   the given columns are nodes too; kind: semantic_model for a semantic model's column, else the resource type;
//   precision (an exposure's: column when it lists the columns it reads, model; else null), owner (an exposure's owner, name or email; else null))
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS start_key
MATCH (start:Column {key: start_key})
CALL (start, b) {
  // in a subquery, the search starts at its one column: outside one, the planner may try every
  // node of the database as the expansion's end instead
  MATCH (start)-[rs:INPUT_OF*1..]->(d)
  WHERE all(r IN rs WHERE r.since <= coalesce($builds[endNode(r).project], b) AND (r.until IS NULL OR r.until > coalesce($builds[endNode(r).project], b)))
  RETURN d AS n
  UNION
  RETURN start AS n
}
WITH DISTINCT b, n
OPTIONAL MATCH (:Project {name: n.project})-[def:DEFINES]->(n)
WHERE def.since <= coalesce($builds[n.project], b) AND (def.until IS NULL OR def.until > coalesce($builds[n.project], b))
ORDER BY n.key
RETURN collect([n.key, n.project, n.unique_id,
                CASE WHEN n:Column THEN split(n.model_name, ':')[-1] + '.' + n.name ELSE n.name END,
                CASE WHEN n:Column THEN 'semantic_model' ELSE n.resource_type END,
                CASE WHEN n.resource_type = 'exposure' THEN coalesce(def.precision, 'model') END,
                CASE WHEN n.resource_type = 'exposure' THEN def.owner END,
                [(n)-[r:INPUT_OF]->(d) WHERE r.since <= coalesce($builds[d.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[d.project], b))
                 | [d.key, r.type, r.expr]]]) AS nodes
