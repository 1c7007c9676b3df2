// The dbt nodes the given nodes read (DEPENDS_ON) and those that read them, in a build: the
// parents and children of a node without the rest of the build. As of build $build_id, or the
// project's active build when null. Read by `catalog mcp` and `catalog lsp`.
// Parameters: $project, $keys (list of model keys), $build_id (int or null)
// Returns: unique_id (of a parent or child)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $keys AS key
MATCH (m:Model {key: key})-[d:DEPENDS_ON]-(n:Model)
WHERE d.since <= b AND (d.until IS NULL OR d.until > b)
RETURN DISTINCT n.unique_id AS unique_id
ORDER BY unique_id
