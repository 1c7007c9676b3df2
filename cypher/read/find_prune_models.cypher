// Pruning: the models to rebuild when the given columns change, with one reason each.
// A change spreads along three relationships, all read as of the build: a column FEEDS the
// columns computed from it; a column that CONDITIONS a model (WHERE, JOIN, GROUP BY, ...)
// changes that model's rows, so every column the model HAS changes too, and so on to any
// depth. The reason of a model is, in this order of preference: it owns a changed column
// (lineage 'changed', depth 0); a column of it is reached through FEEDS alone ('value');
// else it is reached only through a condition ('condition'). Ties go to the shortest path,
// then to the first changed column and reached node by key. `path` is one shortest path
// (FEEDS only for 'value'); depth counts every hop, HAS included.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null: the active build)
// Returns: unique_id, model, resource_type, materialized, lineage, via, reached, depth, path (list of {kind, from, to, type, expr, clause}), columns
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS start_key
MATCH (start:Column {key: start_key})
CALL (start, b) {
  MATCH reach = (start)-[fs:FEEDS*0..]->(x:Column)
  WHERE all(r IN fs WHERE r.since <= b AND (r.until IS NULL OR r.until > b))
  WITH x, min(length(reach)) AS depth
  RETURN x, depth, CASE depth WHEN 0 THEN 0 ELSE 1 END AS rank
  UNION
  MATCH reach = (start)-[rs:FEEDS|CONDITIONS|HAS*1..]->(x)
  WHERE all(r IN rs WHERE r.since <= b AND (r.until IS NULL OR r.until > b))
  WITH x, min(length(reach)) AS depth
  RETURN x, depth, 2 AS rank
}
WITH b, start, x, depth, rank
ORDER BY rank, depth, start.key, x.key
WITH b, x.unique_id AS unique_id,
     collect({start: start, x: x, depth: depth, rank: rank})[0] AS best,
     collect(DISTINCT CASE WHEN x:Column THEN x.name END) AS columns
WITH b, unique_id, best, columns, best.start AS s, best.x AS t
CALL (b, best, s, t) {
  WITH b, best, s, t WHERE best.rank = 1
  MATCH path = ANY SHORTEST (s)(()-[r:FEEDS WHERE r.since <= b AND (r.until IS NULL OR r.until > b)]->()){1,}(t)
  RETURN relationships(path) AS rels
  UNION
  WITH b, best, s, t WHERE best.rank = 2
  MATCH path = ANY SHORTEST (s)(()-[r:FEEDS|CONDITIONS|HAS WHERE r.since <= b AND (r.until IS NULL OR r.until > b)]->()){1,}(t)
  RETURN relationships(path) AS rels
  UNION
  WITH best WHERE best.rank = 0
  RETURN [] AS rels
}
MATCH (m:Model {key: $project + '/' + unique_id})
OPTIONAL MATCH (:Project {name: $project})-[ms:CONTAINS]->(m)
WHERE ms.since <= b AND (ms.until IS NULL OR ms.until > b)
RETURN m.unique_id AS unique_id, m.name AS model, m.resource_type AS resource_type, ms.materialized AS materialized,
       CASE best.rank WHEN 0 THEN 'changed' WHEN 1 THEN 'value' ELSE 'condition' END AS lineage,
       s.key AS via, t.key AS reached, best.depth AS depth,
       [rel IN rels | {kind: toLower(type(rel)), from: startNode(rel).key, to: endNode(rel).key,
                       type: rel.type, expr: rel.expr, clause: rel.clause}] AS path,
       COLLECT { UNWIND columns AS c RETURN c ORDER BY c } AS columns
ORDER BY unique_id
