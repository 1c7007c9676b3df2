// Undocumented columns (empty or missing description) of the dbt models of a build, only
// those of public models (access = 'public') when $public_only is true.
// Parameters: $project, $build_id (int or null: the active build), $public_only (bool)
// Returns: unique_id, model, access, column, data_type, declared
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND m.resource_type = 'model'
  AND (NOT $public_only OR s.access = 'public')
MATCH (m)-[h:HAS]->(c:Column)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND trim(coalesce(h.description, '')) = ''
RETURN m.unique_id AS unique_id, m.name AS model, s.access AS access, c.name AS column, h.data_type AS data_type,
       coalesce(h.declared, false) AS declared
ORDER BY model, unique_id, column
