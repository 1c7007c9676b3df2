// Test coverage per dbt node of a build: each model, snapshot, seed and source with its access,
// whether its contract is enforced, and each of its columns with the names of the tests that
// read it in that build (empty: untested).
// Parameters: $project, $build_id (int or null: the active build)
// Returns: unique_id, name, resource_type, access, contract, columns (list of [key, unique_id, model, column, tests]; tests: sorted names)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
RETURN m.unique_id AS unique_id, m.name AS name, m.resource_type AS resource_type, s.access AS access,
       coalesce(s.contract, false) AS contract,
       COLLECT {
         MATCH (m)-[h:HAS]->(c:Column)
         WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
         RETURN [c.key, c.unique_id, c.model_name, c.name,
                 COLLECT {
                   MATCH (t:Test)-[r:TESTS]->(c)
                   WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
                   RETURN DISTINCT t.name AS test ORDER BY test
                 }] AS column
         ORDER BY c.key
       } AS columns
ORDER BY unique_id
