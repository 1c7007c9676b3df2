// Undocumented columns (empty or missing description) of the dbt models of a build, only
// those of public models (access = 'public') when $public_only is true: one row per model
// that has some, its columns ordered by name.
// Parameters: $project, $build_id (int or null: the active build), $public_only (bool)
// Returns: unique_id, model, access, columns (list of [column, data_type, declared])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND m.resource_type = 'model'
  AND (NOT $public_only OR s.access = 'public')
WITH m, s, COLLECT {
  MATCH (m)-[h:HAS]->(c:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND trim(coalesce(h.description, '')) = ''
  RETURN [c.name, h.data_type, coalesce(h.declared, false)] AS column ORDER BY column[0]
} AS columns
WHERE size(columns) > 0
RETURN m.unique_id AS unique_id, m.name AS model, s.access AS access, columns
ORDER BY model, unique_id
