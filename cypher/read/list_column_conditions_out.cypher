// One step down a build's condition lineage: the models whose conditions (WHERE, JOIN, GROUP BY,
// ...) read some columns, as of a build (a condition changes the rows of every column of its
// model; for a walk made one step at a time, the set reached kept by the caller: `catalog
// check`'s region against a build).
// Parameters: $project, $column_keys (list of column keys, as stored), $build_id (int or null: the active build)
// Returns: up_key, model_key, unique_id, clause
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS key
MATCH (c:Column {key: key})-[r:CONDITIONS]->(m:Model)
WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
RETURN c.key AS up_key, m.key AS model_key, m.unique_id AS unique_id, r.clause AS clause
