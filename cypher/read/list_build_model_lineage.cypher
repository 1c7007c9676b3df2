// The analysis's lineage of every model of a build, one row per model (in unique id order, so
// that a reader folds it model by model instead of holding the whole build's rows): its status
// and reason, its analyzed columns (those with a kind) with their upstream columns (FEEDS) and
// the columns its conditions use (CONDITIONS). Read by `catalog export` and `catalog explore` to
// rebuild the analysis's records of a stored build; with $unique_ids, of those models only
// (`catalog mcp`'s model and column_lineage); with $column_keys, of those columns only (the
// lineage around a column).
// Parameters: $project, $build_id (int or null: the active build), $unique_ids (list of unique ids, or null: every model), $column_keys (list of column keys, or null: every column)
// Returns: unique_id, resource_type, status, reason,
//          columns (list of [name, kind, expr, resolved, reason, position, sources]; sources: list of [up unique_id, up column];
//                   in position order, then key),
//          conditions (list of [up unique_id, up column, clause])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
CALL (p, b) {
  MATCH (p)-[s:CONTAINS]->(m:Model)
  WHERE $unique_ids IS NULL AND s.since <= b AND (s.until IS NULL OR s.until > b)
  RETURN m, s
  UNION
  UNWIND coalesce($unique_ids, []) AS uid
  MATCH (p)-[s:CONTAINS]->(m:Model {key: $project + '/' + uid})
  WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
  RETURN m, s
}
WITH b, m, s
ORDER BY m.unique_id
RETURN m.unique_id AS unique_id, m.resource_type AS resource_type, s.status AS status, s.reason AS reason,
       COLLECT {
         MATCH (m)-[h:HAS]->(c:Column)
         WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND h.kind IS NOT NULL
           AND ($column_keys IS NULL OR c.key IN $column_keys)
         WITH b, c, h ORDER BY h.position, c.key
         RETURN [c.name, h.kind, h.expr, h.resolved, h.reason, h.position,
                 COLLECT {
                   MATCH (u:Column)-[r:FEEDS]->(c)
                   WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
                   RETURN [u.unique_id, u.name]
                 }]
       } AS columns,
       COLLECT {
         MATCH (u:Column)-[r:CONDITIONS]->(m)
         WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
         RETURN [u.unique_id, u.name, r.clause]
       } AS conditions
