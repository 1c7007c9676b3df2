// One step down a build's column lineage: the FEEDS edges out of some columns, as of a build,
// each with the type of the column it feeds (for a walk made one step at a time, the set of
// columns reached kept by the caller: `catalog check`'s region against a build).
// Parameters: $project, $column_keys (list of column keys, as stored), $build_id (int or null: the active build)
// Returns: up_key, down_key, down_unique_id, down_column, type
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS key
MATCH (c:Column {key: key})-[f:FEEDS]->(d:Column)
WHERE f.since <= b AND (f.until IS NULL OR f.until > b)
RETURN c.key AS up_key, d.key AS down_key, d.unique_id AS down_unique_id, d.name AS down_column, f.type AS type
