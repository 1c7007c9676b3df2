// Garbage collection: delete a project's builds older than the oldest kept build, and its
// failed builds, with their names (write/create_build_names). The active build is never deleted.
// Parameters: $project, $keep_from
// Returns: deleted
MATCH (b:Build {project: $project})
WHERE (b.id < $keep_from OR b.status = 'failed') AND b.status <> 'active' AND b.status <> 'running'
OPTIONAL MATCH (b)-[:NAMES]->(n:BuildNames)
WITH b, collect(n) AS names
FOREACH (n IN names | DETACH DELETE n)
DETACH DELETE b
RETURN count(*) AS deleted
