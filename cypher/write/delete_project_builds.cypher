// Forget a project, last step: its builds and the project node itself.
// Parameters: $project
// Returns: deleted (builds deleted)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (b:Build {project: $project})
WITH p, collect(b) AS builds
FOREACH (b IN builds | DETACH DELETE b)
DETACH DELETE p
RETURN size(builds) AS deleted
