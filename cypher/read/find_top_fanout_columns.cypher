// The columns with the most direct downstream column edges (the hubs of the lineage).
// Parameters: $project, $build_id (int or null), $limit
// Returns: key, unique_id, name, fanout
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (c:Column {project: $project})-[r:FEEDS]->()
WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
WITH c, count(r) AS fanout
ORDER BY fanout DESC, c.key
LIMIT $limit
RETURN c.key AS key, c.unique_id AS unique_id, c.name AS name, fanout
