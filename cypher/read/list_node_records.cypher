// The open records of a project's nodes (until not set), by model key, with their hash:
// what a build compares with the records it read (sha256 digests "<position>:<digest of the record's fields>").
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $project
// Returns: id, key, sha256, position
MATCH (:Project {name: $project})-[r:RECORDS]->(m:Model)
WHERE r.until IS NULL
WITH r, m
ORDER BY m.key
RETURN collect({id: elementId(r), key: m.key, sha256: r.sha256, position: r.position}) AS rows
