// Lineage coverage per dbt node of a build: the analysis status and reason of every model,
// snapshot, seed and source, its access and whether its contract is enforced, and how many of
// its columns have only resolved upstream edges, at least one unproved edge (resolved = false),
// or no upstream edge at all.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: unique_id, name, resource_type, materialized, access, contract, status, reason, carried_over, columns, fed_resolved,
//          fed_unresolved, unfed
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
CALL (m, b) {
  OPTIONAL MATCH (m)-[h:HAS]->(c:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
  WITH c, [(c)<-[f:FEEDS]-(:Column) WHERE f.since <= b AND (f.until IS NULL OR f.until > b) | f.resolved] AS ins
  RETURN count(c) AS columns,
         count(CASE WHEN size(ins) > 0 AND none(x IN ins WHERE x = false) THEN 1 END) AS fed_resolved,
         count(CASE WHEN any(x IN ins WHERE x = false) THEN 1 END) AS fed_unresolved,
         count(CASE WHEN c IS NOT NULL AND size(ins) = 0 THEN 1 END) AS unfed
}
RETURN m.unique_id AS unique_id, m.name AS name, m.resource_type AS resource_type, s.materialized AS materialized,
       s.access AS access, coalesce(s.contract, false) AS contract, s.status AS status, s.reason AS reason,
       coalesce(s.carried_over, false) AS carried_over, columns, fed_resolved, fed_unresolved, unfed
ORDER BY unique_id
