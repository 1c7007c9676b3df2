// The column edges into and out of some columns, as of a build, with both ends described:
// one step of a walk that draws the lineage around a column.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null: the active build)
// Returns: direction (in|out, relative to the given column), up_key, up_unique_id, up_model, up_column, up_pii,
//          down_key, down_unique_id, down_model, down_column, down_pii, type, expr, resolved
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS key
MATCH (c:Column {key: key})
CALL (c, b) {
  MATCH (c)-[f:FEEDS]->(o:Column)
  WHERE f.since <= b AND (f.until IS NULL OR f.until > b)
  RETURN 'out' AS direction, c AS up, o AS down, f
  UNION ALL
  MATCH (c)<-[f:FEEDS]-(o:Column)
  WHERE f.since <= b AND (f.until IS NULL OR f.until > b)
  RETURN 'in' AS direction, o AS up, c AS down, f
}
RETURN direction, up.key AS up_key, up.unique_id AS up_unique_id, up.model_name AS up_model, up.name AS up_column,
       coalesce(head([(:Model)-[h:HAS]->(up) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) | h.pii]), false) AS up_pii,
       down.key AS down_key, down.unique_id AS down_unique_id, down.model_name AS down_model, down.name AS down_column,
       coalesce(head([(:Model)-[h:HAS]->(down) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) | h.pii]), false) AS down_pii,
       f.type AS type, f.expr AS expr, f.resolved AS resolved
ORDER BY direction, up_key, down_key
