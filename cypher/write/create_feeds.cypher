// Column edges from this build on: upstream column FEEDS downstream column.
// Parameters: $build_id, $rows (list of {up, down, expr, type, resolved, model})
// Returns: count
UNWIND $rows AS row
MATCH (u:Column {key: row.up})
MATCH (d:Column {key: row.down})
CREATE (u)-[:FEEDS {since: $build_id, expr: row.expr, type: row.type, resolved: row.resolved, model: row.model}]->(d)
RETURN count(*) AS count
