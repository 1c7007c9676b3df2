// The columns of a build's sources and seeds that only the SQL reading them names (a source
// without declared columns, such as a CSV file read by the warehouse): column nodes of the
// node that no HAS of the build holds, but that FEED a column or CONDITION a model in it.
// With list_columns, every column an answer about the build can name.
// Parameters: $project, $build_id (int or null)
// Returns: key, unique_id, model, name, resource_type
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND m.resource_type IN ['source', 'seed']
MATCH (c:Column)
WHERE c.key STARTS WITH m.key + '.' AND c.unique_id = m.unique_id
  AND NOT EXISTS { MATCH (m)-[h:HAS]->(c) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) }
  AND EXISTS { MATCH (c)-[f:FEEDS|CONDITIONS]->() WHERE f.since <= b AND (f.until IS NULL OR f.until > b) }
RETURN c.key AS key, m.unique_id AS unique_id, m.name AS model, c.name AS name, m.resource_type AS resource_type
ORDER BY key
