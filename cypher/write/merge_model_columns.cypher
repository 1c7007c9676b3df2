// Record that a model has columns from this build on, with each column's properties in this
// build (type, position, documentation, tags, meta, pii) on the HAS relationship; the column
// node is created if needed and holds only its identity (key, project, unique_id, model_name, name).
// One row per model, with its columns: the model is found once, and an existing column node
// is left as it is unless its identity must be written anew ($rewrite: the graph has another
// layout) or its model's name changed.
// Parameters: $project, $build_id, $rewrite, $rows (list of {model, unique_id, model_name, columns}:
//             model key, the model's unique id and name; columns: list of {key, name, props}:
//             column key, lower-case name, column properties)
// Returns: count
UNWIND $rows AS row
MATCH (m:Model {key: row.model})
UNWIND row.columns AS col
MERGE (c:Column {key: col.key})
  ON CREATE SET c.project = $project, c.unique_id = row.unique_id, c.model_name = row.model_name, c.name = col.name
FOREACH (_ IN CASE WHEN $rewrite OR c.model_name <> row.model_name THEN [1] ELSE [] END |
  SET c = {key: col.key, project: $project, unique_id: row.unique_id, model_name: row.model_name, name: col.name})
CREATE (m)-[h:HAS {since: $build_id}]->(c)
SET h += col.props
RETURN count(*) AS count
