// The columns a BI field reads, from this build on: model column FEEDS BI field, with the
// field's lineage type (passthrough: the column itself; derived) and its SQL as the tool writes it.
// Parameters: $build_id, $rows (list of {up, down, type, expr}: column key, BI field key)
// Returns: count
UNWIND $rows AS row
MATCH (u:Column {key: row.up})
MATCH (d:BIField {key: row.down})
CREATE (u)-[:FEEDS {since: $build_id, type: row.type, expr: row.expr}]->(d)
RETURN count(*) AS count
