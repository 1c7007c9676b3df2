// The record of a model, seed, snapshot or source as a build read it from the artifacts (its
// SQL, columns, types, documentation, config; JSON), from this build on: what `catalog check`
// compares a change with, without the build's target folder.
// position: the node's place in the manifest (relations are matched in that order).
// Parameters: $project, $build_id, $rows (list of {key, record, position, sha256})
// Returns: count
MATCH (p:Project {name: $project})
UNWIND $rows AS row
MATCH (m:Model {key: row.key})
CREATE (p)-[:RECORDS {since: $build_id, record: row.record, position: row.position, sha256: row.sha256}]->(m)
RETURN count(*) AS count
