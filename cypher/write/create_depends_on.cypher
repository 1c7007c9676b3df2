// Model-level dependencies from this build on: child DEPENDS_ON parent.
// Parameters: $build_id, $rows (list of {child, parent}: model keys)
// Returns: count
UNWIND $rows AS row
MATCH (c:Model {key: row.child})
MATCH (p:Model {key: row.parent})
CREATE (c)-[:DEPENDS_ON {since: $build_id}]->(p)
RETURN count(*) AS count
