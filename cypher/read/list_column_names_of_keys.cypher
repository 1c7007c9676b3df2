// Of the column nodes $keys, those of a build, by model, one row per model: the labels a
// mistyped column name may be close to. The columns are those of list_column_names_by_model
// (a source's or seed's column that only the SQL reading it names too).
// Parameters: $project, $build_id (int or null), $keys (list of column keys)
// Returns: unique_id, model, names
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
UNWIND $keys AS key
MATCH (c:Column {key: key})
MATCH (m:Model {key: $project + '/' + c.unique_id})
WHERE EXISTS { MATCH (p)-[s:CONTAINS]->(m) WHERE s.since <= b AND (s.until IS NULL OR s.until > b) }
  AND (EXISTS { MATCH (m)-[h:HAS]->(c) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) }
    OR (m.resource_type IN ['source', 'seed'] AND c.key STARTS WITH m.key + '.'
      AND EXISTS { MATCH (c)-[f:FEEDS|CONDITIONS]->() WHERE f.since <= b AND (f.until IS NULL OR f.until > b) }))
RETURN m.unique_id AS unique_id, m.name AS model, collect(c.name) AS names
