// Column edges from this build on: upstream column FEEDS downstream column. One row per
// downstream column, with its upstream columns: each column is found once.
// Parameters: $build_id, $rows (list of {down, ups, expr, type, resolved, model}: downstream
//             column key, upstream column keys, the downstream column's expression, lineage
//             type and resolved flag, its model's key)
// Returns: count
UNWIND $rows AS row
MATCH (d:Column {key: row.down})
UNWIND row.ups AS up
MATCH (u:Column {key: up})
CREATE (u)-[:FEEDS {since: $build_id, expr: row.expr, type: row.type, resolved: row.resolved, model: row.model}]->(d)
RETURN count(*) AS count
