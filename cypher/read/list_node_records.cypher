// The open records of a project's nodes (until not set), by model key, with their hash:
// what a build compares with the records it read (sha256 digests "<position>:<record>").
// Parameters: $project
// Returns: id, key, sha256, position
MATCH (:Project {name: $project})-[r:RECORDS]->(m:Model)
WHERE r.until IS NULL
RETURN elementId(r) AS id, m.key AS key, r.sha256 AS sha256, r.position AS position
ORDER BY key
