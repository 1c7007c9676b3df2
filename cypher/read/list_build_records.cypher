// The records of a build: every node as the build read it, and every consumer (semantic
// model, metric, exposure, saved query) with its record, as JSON. As of build $build_id, or
// the project's active build when null. With $unique_ids, the records of those nodes alone and
// of every semantic model, metric, exposure and saved query (no test, no BI record): `catalog
// lsp` reads the few nodes around the file it is asked about.
// Parameters: $project, $build_id (int or null), $unique_ids (list of unique ids, or null: every node)
// Returns: kind, record, position (a node's place in the manifest; 0 for consumers)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
CALL (p, b) {
  MATCH (p)-[r:RECORDS]->(:Model)
  WHERE $unique_ids IS NULL AND r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'node' AS kind, r.record AS record, r.position AS position
  UNION ALL
  UNWIND $unique_ids AS uid  // each by its key (indexed), not by a scan of the build's records
  MATCH (p)-[r:RECORDS]->(:Model {key: $project + '/' + uid})
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'node' AS kind, r.record AS record, r.position AS position
  UNION ALL
  MATCH (p)-[r:DEFINES]->(n)
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
    AND ($unique_ids IS NULL OR n.resource_type IN ['semantic_model', 'metric', 'exposure', 'saved_query'])
  RETURN n.resource_type AS kind, r.record AS record, 0 AS position
}
RETURN kind, record, position
ORDER BY position, kind, record
