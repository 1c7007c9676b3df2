// The tests of a build: every data test and unit test with the columns it reads in that build.
// As of build $build_id, or the project's active build when null.
// Parameters: $project, $build_id (int or null)
// Returns: unique_id, name, kind (generic, singular, unit), test (a generic test's macro), model (the node it is attached to), columns (column keys, sorted)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[d:DEFINES]->(t:Test)
WHERE d.since <= b AND (d.until IS NULL OR d.until > b)
RETURN t.unique_id AS unique_id, t.name AS name, d.kind AS kind, d.test AS test, d.model AS model,
       COLLECT {
         MATCH (t)-[r:TESTS]->(c:Column)
         WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
         RETURN c.key ORDER BY c.key
       } AS columns
ORDER BY unique_id
