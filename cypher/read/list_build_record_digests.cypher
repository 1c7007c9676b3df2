// What a build read of each node, without the record itself: the record's digest
// (sha256 of "<position>:<digest of the record's fields>") and its place in the manifest. A
// reader compares them with the nodes it has, and reads the records of only those that differ
// (list_build_records_of). As of build $build_id, or the project's active build when null.
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $project, $build_id (int or null)
// Returns: unique_id, sha256, position
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[r:RECORDS]->(m:Model)
WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
WITH m, r
ORDER BY r.position, m.unique_id
RETURN collect({unique_id: m.unique_id, sha256: r.sha256, position: r.position}) AS rows
