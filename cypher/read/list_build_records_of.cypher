// The records of a build of the given nodes ($unique_ids), and every consumer's (semantic
// model, metric, exposure, saved query, test, BI definition), as JSON: what a reader that has
// the other nodes' records already (list_build_record_digests) still needs. As of build
// $build_id, or the project's active build when null.
// Parameters: $project, $build_id (int or null), $unique_ids (list of node unique ids)
// Returns: kind, record, position (a node's place in the manifest; 0 for consumers)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
CALL (p, b) {
  MATCH (p)-[r:RECORDS]->(m:Model)
  WHERE m.unique_id IN $unique_ids AND r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'node' AS kind, r.record AS record, r.position AS position
  UNION ALL
  MATCH (p)-[r:DEFINES]->(n)
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN n.resource_type AS kind, r.record AS record, 0 AS position
}
RETURN kind, record, position
ORDER BY position, kind, record
