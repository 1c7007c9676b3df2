// What a consumer reads, from this build on: a model column INPUT_OF an entity, dimension or
// measure (a semantic model's column; type and expr as analyzed) or of an exposure; a measure
// INPUT_OF a metric; a metric INPUT_OF a metric, an exposure or a saved query.
// Parameters: $build_id, $rows (list of {up, down, type, expr})
// Returns: count
UNWIND $rows AS row
MATCH (u {key: row.up}) WHERE u:Column OR u:Metric
MATCH (d {key: row.down}) WHERE d:Column OR d:Metric OR d:Exposure OR d:SavedQuery
CREATE (u)-[:INPUT_OF {since: $build_id, type: row.type, expr: row.expr}]->(d)
RETURN count(*) AS count
