// A model has a column from this build on.
// Parameters: $build_id, $rows (list of {model, column}: node keys)
// Returns: count
UNWIND $rows AS row
MATCH (m:Model {key: row.model})
MATCH (c:Column {key: row.column})
CREATE (m)-[:HAS {since: $build_id}]->(c)
RETURN count(*) AS count
