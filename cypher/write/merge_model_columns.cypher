// Record that a model has columns from this build on, with each column's properties in this
// build (type, position, documentation, tags, meta, pii) on the HAS relationship; the column
// node is created if needed and holds only its identity (key, project, unique_id, model_name, name).
// Parameters: $build_id, $rows (list of {model, key, node, props}: model key, column key,
//             column identity, column properties)
// Returns: count
UNWIND $rows AS row
MATCH (m:Model {key: row.model})
MERGE (c:Column {key: row.key})
SET c = row.node
CREATE (m)-[h:HAS {since: $build_id}]->(c)
SET h += row.props
RETURN count(*) AS count
