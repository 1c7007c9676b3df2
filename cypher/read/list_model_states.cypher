// Every dbt node of a project as of a build: its analysis state and, for nodes whose
// columns only the analysis knows (ephemeral models), their column names. As of build
// $build_id, or the project's active build when $build_id is null.
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $project, $build_id (int or null)
// Returns: unique_id, resource_type, status, reason, error, lineage_hash, sql_hash, carried_over, meta_hash, state_id, columns
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
WITH b, m, s
ORDER BY m.unique_id
RETURN collect({
  unique_id: m.unique_id, resource_type: m.resource_type, status: s.status, reason: s.reason,
  error: s.error, lineage_hash: s.lineage_hash, sql_hash: s.sql_hash, carried_over: s.carried_over,
  meta_hash: s.meta_hash, state_id: elementId(s),
  columns: CASE WHEN s.materialized = 'ephemeral'
                THEN COLLECT { MATCH (m)-[h:HAS]->(c:Column)
                               WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
                               RETURN c.name ORDER BY h.position }
                ELSE null END
}) AS rows
