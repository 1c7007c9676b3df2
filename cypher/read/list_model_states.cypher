// Every dbt node of a project as of a build: its analysis state and, for nodes whose
// columns only the analysis knows (ephemeral models), their column names. As of build
// $build_id, or the project's active build when $build_id is null.
// Parameters: $project, $build_id (int or null)
// Returns: unique_id, resource_type, status, reason, error, lineage_hash, sql_hash, carried_over, meta_hash, state_id, columns
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
RETURN m.unique_id AS unique_id, m.resource_type AS resource_type, s.status AS status, s.reason AS reason,
       s.error AS error, s.lineage_hash AS lineage_hash, s.sql_hash AS sql_hash, s.carried_over AS carried_over,
       s.meta_hash AS meta_hash, elementId(s) AS state_id,
       CASE WHEN s.materialized = 'ephemeral'
            THEN COLLECT { MATCH (m)-[h:HAS]->(c:Column)
                           WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
                           RETURN c.name ORDER BY h.position }
            ELSE null END AS columns
ORDER BY unique_id
