// The producer's columns a user means by MODEL.COLUMN where MODEL is a consumer's foreign node
// (dbt Mesh) as the consumer's manifest names it: its name or unique id, compared lower case.
// The consumer's build records the producer's model its node was matched to (`upstream` on
// CONTAINS); the column is that model's in the producer build $builds names for its project.
// Parameters: $project, $build_id (int or null: the consumer's build, the active one when null), $model, $column_name, $builds (map: project -> build id)
// Returns: key, unique_id, model, name, project
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS cb
MATCH (p)-[s:CONTAINS]->(m:Model {project: $project})
WHERE (toLower(m.name) = $model OR toLower(m.unique_id) = $model)
  AND s.since <= cb AND (s.until IS NULL OR s.until > cb) AND s.upstream IS NOT NULL
MATCH (u:Model {key: s.upstream})
WITH u, $builds[u.project] AS b
WHERE b IS NOT NULL
MATCH (u)-[h:HAS]->(c:Column {project: u.project, name: $column_name})
WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
RETURN DISTINCT c.key AS key, u.unique_id AS unique_id, u.name AS model, c.name AS name, u.project AS project
ORDER BY key
