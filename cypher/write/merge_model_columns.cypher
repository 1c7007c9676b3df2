// Upsert columns with their type and documentation, and record that their model has them
// from this build on (one statement for both: one lookup of each node).
// Parameters: $build_id, $rows (list of {model, key, props}: model key, column key, column properties)
// Returns: count
UNWIND $rows AS row
MATCH (m:Model {key: row.model})
MERGE (c:Column {key: row.key})
SET c += row.props
CREATE (m)-[:HAS {since: $build_id}]->(c)
RETURN count(*) AS count
