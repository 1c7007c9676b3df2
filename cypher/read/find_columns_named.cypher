// The columns a user means by MODEL.COLUMN, as of a build: MODEL is a model's name
// (`orders`, `shop.orders` for a source) or its unique id, both compared lower-case. A
// source's or seed's column that only the SQL reading it names (no HAS, a FEEDS or
// CONDITIONS of the build, see list_columns_known_from_sql) is one too.
// Parameters: $project, $model, $column_name, $build_id (int or null)
// Returns: key, unique_id, model, name
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (m:Model {project: $project})
WHERE toLower(m.name) = $model OR toLower(m.unique_id) = $model
// the column's key is its model's and its name: one seek of the unique key per model
MATCH (c:Column {key: m.key + '.' + $column_name})
WHERE c.name = $column_name AND c.unique_id = m.unique_id
  AND (EXISTS { MATCH (m)-[h:HAS]->(c) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) }
    OR (m.resource_type IN ['source', 'seed']
      AND EXISTS { MATCH (c)-[f:FEEDS|CONDITIONS]->() WHERE f.since <= b AND (f.until IS NULL OR f.until > b) }))
RETURN DISTINCT c.key AS key, m.unique_id AS unique_id, m.name AS model, c.name AS name
ORDER BY key
