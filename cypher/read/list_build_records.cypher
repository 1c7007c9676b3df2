// The records of a build: every node as the build read it, and every consumer (semantic
// model, metric, exposure, saved query) with its record, as JSON. As of build $build_id, or
// the project's active build when null. With $unique_ids, only the records of those dbt nodes,
// of every consumer, and of the tests that read a column of those nodes: what a question
// about a few nodes needs (`catalog mcp`'s model and column_lineage).
// Parameters: $project, $build_id (int or null), $unique_ids (list of dbt node unique ids, or null: every node)
// Returns: kind, record, position (a node's place in the manifest; 0 for consumers)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
CALL (p, b) {
  MATCH (p)-[r:RECORDS]->(:Model)
  WHERE $unique_ids IS NULL AND r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'node' AS kind, r.record AS record, r.position AS position
  UNION ALL
  UNWIND coalesce($unique_ids, []) AS uid
  MATCH (p)-[r:RECORDS]->(:Model {key: $project + '/' + uid})
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'node' AS kind, r.record AS record, r.position AS position
  UNION ALL
  MATCH (p)-[r:DEFINES]->(n)
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b) AND ($unique_ids IS NULL OR NOT n:Test)
  RETURN n.resource_type AS kind, r.record AS record, 0 AS position
  UNION ALL
  UNWIND coalesce($unique_ids, []) AS uid
  MATCH (:Model {key: $project + '/' + uid})-[h:HAS]->(:Column)<-[t:TESTS]-(n:Test)<-[r:DEFINES]-(p)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND t.since <= b AND (t.until IS NULL OR t.until > b)
    AND r.since <= b AND (r.until IS NULL OR r.until > b)
  WITH DISTINCT n, r
  RETURN n.resource_type AS kind, r.record AS record, 0 AS position
}
RETURN kind, record, position
ORDER BY position, kind, record
