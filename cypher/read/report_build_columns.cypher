// Every column of a build, one row per model, with what the report computes over the whole
// lineage: each column's names, whether it is documented (and its description when it is)
// and tagged PII in that build, and the column edges (FEEDS) out of it. The report walks
// these edges in memory (reach, PII flow, inheritable descriptions) instead of one any-depth
// search per column.
// The models in unique id order from the $skip-th, at most $limit of them: a caller may read a
// large build in parts, side by side.
// Parameters: $project, $build_id (int or null: the active build), $skip (int), $limit (int)
// Rows, columns and edges in a fixed order (model, then key).
// masked: the column's value is a hash or mask of its inputs (HAS.masked, see the README).
// Returns: unique_id, resource_type, columns (list of [key, unique_id, model, column, documented, description, pii, feeds, masked]; feeds: list of [downstream key, type])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
WITH b, m
ORDER BY m.unique_id
SKIP $skip LIMIT $limit
RETURN m.unique_id AS unique_id, m.resource_type AS resource_type,
       COLLECT {
         MATCH (m)-[h:HAS]->(c:Column)
         WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
         WITH b, c, h, trim(coalesce(h.description, '')) <> '' AS documented
         RETURN [c.key, c.unique_id, c.model_name, c.name, documented, CASE WHEN documented THEN h.description END,
                 coalesce(h.pii, false),
                 COLLECT {
                   MATCH (c)-[f:FEEDS]->(d:Column)
                   WHERE f.since <= b AND (f.until IS NULL OR f.until > b)
                   RETURN [d.key, f.type] AS feed ORDER BY d.key, f.type
                 },
                 coalesce(h.masked, false)] AS column
         ORDER BY c.key
       } AS columns
ORDER BY unique_id
