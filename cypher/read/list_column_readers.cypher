// Every column of a build's models, seeds and snapshots with what reads it, the answer of
// `catalog unused` (made from these rows by catalog/lineage/unused.py): each thing it FEEDS
// (a column; any other node, a BI field, by its label), each model whose WHERE, JOIN, GROUP BY,
// HAVING, QUALIFY, window or ORDER BY uses it (CONDITIONS), each semantic model, metric,
// exposure or saved query it is INPUT_OF, and each dbt test that reads it (TESTS); with the
// nodes that depend on its model and their analysis status in the build. Sources and the nodes
// of other dbt projects (status external) are left out. One row per node, ordered by name. With
// $unique_ids, of those nodes only (`catalog unused MODEL`: the model and all that depends on it).
// Parameters: $project, $build_id (int or null: the active build), $unique_ids (list of unique ids, or null: every node)
// Returns: unique_id, model, resource_type, dependents (list of [name, status]), columns (list of [key, column, data_type, readers]); readers: list of [kind, key, name]
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
CALL (p, b) {
  MATCH (p)-[s:CONTAINS]->(m:Model)
  WHERE $unique_ids IS NULL AND s.since <= b AND (s.until IS NULL OR s.until > b)
  RETURN m, s
  UNION
  UNWIND coalesce($unique_ids, []) AS uid
  MATCH (p)-[s:CONTAINS]->(m:Model {key: $project + '/' + uid})
  WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
  RETURN m, s
}
WITH p, b, m, s
WHERE m.resource_type <> 'source' AND coalesce(s.status, '') <> 'external'
WITH p, b, m, COLLECT {
  MATCH (child:Model)-[d:DEPENDS_ON]->(m)
  WHERE d.since <= b AND (d.until IS NULL OR d.until > b)
  OPTIONAL MATCH (p)-[cs:CONTAINS]->(child)
  WHERE cs.since <= b AND (cs.until IS NULL OR cs.until > b)
  RETURN [child.name, cs.status] AS dependent ORDER BY dependent[0]
} AS dependents
WITH m, dependents, COLLECT {
  MATCH (m)-[h:HAS]->(c:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
  RETURN [c.key, c.name, h.data_type,
    [(c)-[f:FEEDS]->(d) WHERE f.since <= b AND (f.until IS NULL OR f.until > b) |
      [CASE WHEN d:Column THEN 'column' ELSE toLower(head(labels(d))) END, d.key,
       coalesce(d.model_name + '.' + d.name, d.name, d.key)]]
    + [(c)-[k:CONDITIONS]->(x:Model) WHERE k.since <= b AND (k.until IS NULL OR k.until > b) |
      ['condition', x.key, x.name + ' (' + k.clause + ')']]
    + [(c)-[i:INPUT_OF]->(x) WHERE i.since <= b AND (i.until IS NULL OR i.until > b) |
      [CASE WHEN x:Column THEN 'semantic_model' ELSE x.resource_type END, x.key,
       CASE WHEN x:Column THEN split(x.model_name, ':')[-1] + '.' + x.name ELSE x.name END]]
    + [(t:Test)-[r:TESTS]->(c) WHERE r.since <= b AND (r.until IS NULL OR r.until > b) | ['test', t.key, t.name]]
  ] AS column ORDER BY column[1]
} AS columns
RETURN m.unique_id AS unique_id, m.name AS model, m.resource_type AS resource_type, dependents, columns
ORDER BY model, unique_id
