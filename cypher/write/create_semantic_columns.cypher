// The entities, dimensions and measures of a semantic model, as its columns, from this build
// on, with their properties in that build: kind, type, expr, agg, description, position.
// Parameters: $build_id, $rows (list of {model, column, props})
// Returns: count
UNWIND $rows AS row
MATCH (s:SemanticModel {key: row.model})
MATCH (c:Column {key: row.column})
CREATE (s)-[r:HAS]->(c)
SET r = row.props, r.since = $build_id
RETURN count(*) AS count
