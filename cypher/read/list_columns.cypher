// Every column of a project as of a build, to resolve the names users type.
// Parameters: $project, $build_id (int or null)
// Returns: key, unique_id, model, name, resource_type, source_name
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
MATCH (m)-[h:HAS]->(c:Column)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
RETURN c.key AS key, m.unique_id AS unique_id, m.name AS model, c.name AS name, m.resource_type AS resource_type
ORDER BY key
