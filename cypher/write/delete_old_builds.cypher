// Garbage collection: delete a project's builds older than the oldest kept build, and its
// failed builds. The active build is never deleted.
// Parameters: $project, $keep_from
// Returns: deleted
MATCH (b:Build {project: $project})
WHERE (b.id < $keep_from OR b.status = 'failed') AND b.status <> 'active' AND b.status <> 'running'
DETACH DELETE b
RETURN count(*) AS deleted
