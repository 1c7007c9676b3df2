// The names of the columns of every model of a build, one row per model: what a mistyped
// column name is compared with for its suggestions, without reading each column's other
// properties. The columns are those of list_columns and list_columns_known_from_sql.
// Parameters: $project, $build_id (int or null)
// Returns: unique_id, model, names
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
CALL (m, b) {
  MATCH (m)-[h:HAS]->(c:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
  RETURN collect(c.name) AS held
}
CALL (m, b) {
  // a source's or seed's columns that only the SQL reading them names
  WITH m, b WHERE m.resource_type IN ['source', 'seed']
  MATCH (c:Column)
  WHERE c.key STARTS WITH m.key + '.' AND c.unique_id = m.unique_id
    AND NOT EXISTS { MATCH (m)-[h:HAS]->(c) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) }
    AND EXISTS { MATCH (c)-[f:FEEDS|CONDITIONS]->() WHERE f.since <= b AND (f.until IS NULL OR f.until > b) }
  RETURN collect(c.name) AS read
}
RETURN m.unique_id AS unique_id, m.name AS model, held + read AS names
