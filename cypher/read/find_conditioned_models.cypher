// Condition lineage: the models whose rows the given columns filter, join, group or order
// (WHERE, JOIN ON, GROUP BY, HAVING, QUALIFY, window PARTITION/ORDER BY), as of a build.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: column, model_key, unique_id, model, clause
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS key
MATCH (c:Column {key: key})-[r:CONDITIONS]->(m:Model)
WHERE r.since <= coalesce($builds[m.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[m.project], b))
RETURN c.key AS column, m.key AS model_key, m.unique_id AS unique_id, m.name AS model, r.clause AS clause
ORDER BY model_key, clause, column
