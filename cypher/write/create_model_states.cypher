// A dbt node's state from this build on, on its CONTAINS relationship: the analysis status,
// reason and the hashes that decide whether the next build may reuse it, and the node's
// properties in this build (materialized, relation_name, description, tags, meta, access, ...).
// Parameters: $project, $build_id, $rows (list of {model, state}), state: status, reason,
//             lineage_hash, sql_hash, meta_hash, carried_over, error, materialized, relation_name,
//             description, tags, meta, access, path, language, package
// Returns: count
MATCH (p:Project {name: $project})
UNWIND $rows AS row
MATCH (m:Model {key: row.model})
CREATE (p)-[s:CONTAINS {since: $build_id}]->(m)
SET s += row.state
RETURN count(*) AS count
