// Columns of the project's models that feed no other column (the ends of the lineage),
// deepest first by the length of their longest direct upstream chain is not computed here:
// ordered by key for a stable pick.
// Parameters: $project, $build_id (int or null), $limit
// Returns: key, unique_id, name
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (c:Column {project: $project})<-[r:FEEDS]-()
WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  AND NOT EXISTS { MATCH (c)-[o:FEEDS]->() WHERE o.since <= b AND (o.until IS NULL OR o.until > b) }
WITH DISTINCT c
ORDER BY c.key
LIMIT $limit
RETURN c.key AS key, c.unique_id AS unique_id, c.name AS name
