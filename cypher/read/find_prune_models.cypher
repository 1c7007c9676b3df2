// Pruning: the models to rebuild when the given columns change, with one reason each.
// A change spreads along three relationships, all read as of the build: a column FEEDS the
// columns computed from it; a column that CONDITIONS a model (WHERE, JOIN, GROUP BY, ...)
// changes that model's rows, so every column the model HAS changes too, and so on to any
// depth. The reason of a model is, in this order of preference: it owns a changed column
// (lineage 'changed', depth 0); a column of it is reached through FEEDS alone ('value');
// else it is reached only through a condition ('condition'). Ties go to the shortest path,
// then to the first changed column and reached node by key. `path` is one shortest path.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null: the active build)
// Returns: unique_id, model, resource_type, materialized, lineage, via, reached, depth, path (list of {kind, from, to, type, expr, clause}), columns
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS start_key
MATCH (start:Column {key: start_key})
CALL (start, b) {
  MATCH path = ANY SHORTEST (start)(()-[r:FEEDS WHERE r.since <= b AND (r.until IS NULL OR r.until > b)]->()){0,}(x:Column)
  RETURN x, path, CASE length(path) WHEN 0 THEN 0 ELSE 1 END AS rank
  UNION
  MATCH path = ANY SHORTEST (start)(()-[r:FEEDS|CONDITIONS|HAS WHERE r.since <= b AND (r.until IS NULL OR r.until > b)]->()){1,}(x)
  RETURN x, path, CASE WHEN any(rel IN relationships(path) WHERE type(rel) = 'CONDITIONS') THEN 2 ELSE 1 END AS rank
}
WITH start, x, path, rank
ORDER BY rank, length(path), start.key, x.key
WITH x.unique_id AS unique_id,
     collect({rank: rank, via: start.key, reached: x.key, depth: length(path),
              path: [rel IN relationships(path) | {kind: toLower(type(rel)), from: startNode(rel).key, to: endNode(rel).key,
                                                   type: rel.type, expr: rel.expr, clause: rel.clause}]})[0] AS best,
     collect(DISTINCT CASE WHEN x:Column THEN x.name END) AS columns
MATCH (m:Model {key: $project + '/' + unique_id})
RETURN m.unique_id AS unique_id, m.name AS model, m.resource_type AS resource_type, m.materialized AS materialized,
       CASE best.rank WHEN 0 THEN 'changed' WHEN 1 THEN 'value' ELSE 'condition' END AS lineage,
       best.via AS via, best.reached AS reached, best.depth AS depth, best.path AS path,
       COLLECT { UNWIND columns AS c RETURN c ORDER BY c } AS columns
ORDER BY unique_id
