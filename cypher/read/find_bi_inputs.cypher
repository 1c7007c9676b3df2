// The columns a BI field, chart or dashboard reads: a dashboard HOLDS charts and SHOWS fields, a
// chart SHOWS fields, columns FEED each field; with the path from each column to it. As of
// build $build_id, or the project's active build when null.
// Parameters: $project, $key (the BI node's key), $build_id (int or null)
// Returns: column, project, unique_id, model, name, resource_type (of the column's model or source), depth, hops (list of {from, to, type, expr}, in data-flow order)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (target {key: $key}) WHERE target:BIField OR target:Chart OR target:Dashboard
CALL (target, b) {
  MATCH (target:BIField)
  RETURN target AS field, [] AS rest
  UNION ALL
  MATCH (target)-[s:SHOWS]->(field:BIField)
  WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
  RETURN field, [{from: field.key, to: target.key, type: 'shows', expr: s.role}] AS rest
  UNION ALL
  MATCH (target:Dashboard)-[h:HOLDS]->(c:Chart)-[s:SHOWS]->(field:BIField)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND s.since <= b AND (s.until IS NULL OR s.until > b)
  RETURN field, [{from: field.key, to: c.key, type: 'shows', expr: s.role}, {from: c.key, to: target.key, type: 'holds', expr: null}] AS rest
}
MATCH (u:Column)-[f:FEEDS]->(field)
WHERE f.since <= b AND (f.until IS NULL OR f.until > b)
OPTIONAL MATCH (m:Model {key: u.project + '/' + u.unique_id})
RETURN u.key AS column, u.project AS project, u.unique_id AS unique_id, u.model_name AS model, u.name AS name,
       m.resource_type AS resource_type, 1 + size(rest) AS depth,
       [{from: u.key, to: field.key, type: f.type, expr: f.expr}] + rest AS hops
ORDER BY depth, column
