// The columns of a project with a given (lower-case) name, as of a build: the candidates
// for a column a user typed as MODEL.COLUMN.
// Parameters: $project, $column_name, $build_id (int or null)
// Returns: key, unique_id, model, name
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (c:Column {project: $project, name: $column_name})<-[h:HAS]-(m:Model)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
RETURN DISTINCT c.key AS key, m.unique_id AS unique_id, m.name AS model, c.name AS name
ORDER BY key
