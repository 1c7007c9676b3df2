// The most depended-on columns of a build: for every column with a downstream edge, its direct
// fan-out (outgoing FEEDS), the distinct columns and models it reaches at any depth, and the
// models whose rows it filters, joins, groups or orders (CONDITIONS). The $limit columns that
// reach the most columns, ties broken by fan-out and then by key.
// Parameters: $project, $build_id (int or null: the active build), $limit (int)
// Returns: key, unique_id, model, column, description, pii, fanout, reach, models_reached, conditions
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
MATCH (m)-[h:HAS]->(c:Column)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
WITH b, m, c, h, COUNT { (c)-[f:FEEDS]->(:Column) WHERE f.since <= b AND (f.until IS NULL OR f.until > b) } AS fanout
WHERE fanout > 0
CALL (c, b) {
  MATCH (c)(()-[r:FEEDS WHERE r.since <= b AND (r.until IS NULL OR r.until > b)]->()){1,}(d:Column)
  WITH DISTINCT d
  RETURN count(d) AS reach, count(DISTINCT d.unique_id) AS models_reached
}
WITH b, m, c, h, fanout, reach, models_reached
ORDER BY reach DESC, fanout DESC, c.key
LIMIT $limit
RETURN c.key AS key, m.unique_id AS unique_id, c.model_name AS model, c.name AS column, h.description AS description,
       coalesce(h.pii, false) AS pii, fanout, reach, models_reached,
       COUNT { (c)-[k:CONDITIONS]->(:Model) WHERE k.since <= b AND (k.until IS NULL OR k.until > b) } AS conditions
ORDER BY reach DESC, fanout DESC, key
