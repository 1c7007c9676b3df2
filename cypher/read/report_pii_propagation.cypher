// Where PII flows: every column tagged PII in dbt (meta contains_pii or tag pii) in a build,
// with every column downstream of it at any depth through FEEDS, one shortest path each
// (its depth and the type of each hop), whether that column is tagged PII itself in that build,
// and whether it is masked: every path to it passes through a column whose value is a hash or
// mask (HAS.masked in that build).
// Parameters: $project, $build_id (int or null: the active build)
// Returns: key, unique_id, model, column, tags, meta, reaches (list of {key, unique_id, model, column, pii, depth, types, masked})
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
MATCH (m)-[h:HAS]->(c:Column)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND h.pii = true
RETURN c.key AS key, m.unique_id AS unique_id, c.model_name AS model, c.name AS column, h.tags AS tags, h.meta AS meta,
       COLLECT {
         MATCH path = ANY SHORTEST (c)(()-[r:FEEDS WHERE r.since <= b AND (r.until IS NULL OR r.until > b)]->()){1,}(d:Column)
         RETURN {key: d.key, unique_id: d.unique_id, model: d.model_name, column: d.name, pii: coalesce(head([(:Model)-[dh:HAS]->(d) WHERE dh.since <= b AND (dh.until IS NULL OR dh.until > b) | dh.pii]), false),
                 depth: length(path), types: [rel IN relationships(path) | rel.type],
                 masked: NOT EXISTS {
                   MATCH ANY SHORTEST (c)(()-[q:FEEDS WHERE q.since <= b AND (q.until IS NULL OR q.until > b)]->
                             (x:Column WHERE NOT EXISTS { (:Model)-[xh:HAS]->(x) WHERE xh.since <= b AND (xh.until IS NULL OR xh.until > b)
                                                                                 AND xh.masked = true })){1,}(d)
                 }} AS reached
         ORDER BY reached.depth, reached.model, reached.column, reached.key
       } AS reaches
ORDER BY model, column, key
