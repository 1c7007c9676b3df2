// A model's analysis state from this build on: status, reason and the hashes that decide
// whether the next build may reuse it.
// Parameters: $project, $build_id, $rows (list of {model, status, reason, lineage_hash,
//             sql_hash, carried_over, error})
// Returns: count
MATCH (p:Project {name: $project})
UNWIND $rows AS row
MATCH (m:Model {key: row.model})
CREATE (p)-[:CONTAINS {since: $build_id, status: row.status, reason: row.reason,
                       lineage_hash: row.lineage_hash, sql_hash: row.sql_hash,
                       carried_over: row.carried_over, error: row.error}]->(m)
RETURN count(*) AS count
