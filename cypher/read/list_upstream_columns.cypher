// The models, seeds and snapshots of a producer's build that a consumer's foreign nodes name
// (dbt Mesh), by unique id or by the last part of their relation name (both compared lower
// case; the caller compares the whole relation names), with their columns in that build in
// position order.
// Parameters: $project, $build_id (int or null: the active build), $unique_ids (list, lower case), $identifiers (list, lower case, unquoted: the relation names' last parts)
// Returns: key, unique_id, relation_name, resource_type, columns (list of {name, data_type, description})
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
  AND (toLower(m.unique_id) IN $unique_ids OR toLower(s.identifier) IN $identifiers)
CALL (m, b) {
  MATCH (m)-[h:HAS]->(c:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
  WITH c, h
  ORDER BY h.position
  RETURN collect({name: c.name, data_type: h.data_type, description: h.description}) AS columns
}
RETURN m.key AS key, m.unique_id AS unique_id, s.relation_name AS relation_name, m.resource_type AS resource_type, columns
ORDER BY key
