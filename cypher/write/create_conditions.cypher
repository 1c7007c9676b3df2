// Condition lineage from this build on: a column filters, joins, groups or orders a model's rows.
// Parameters: $build_id, $rows (list of {column, model, clause})
// Returns: count
UNWIND $rows AS row
MATCH (c:Column {key: row.column})
MATCH (m:Model {key: row.model})
CREATE (c)-[:CONDITIONS {since: $build_id, clause: row.clause}]->(m)
RETURN count(*) AS count
