// Forget a project, last step: its builds, their names (write/create_build_names) and the
// project node itself.
// Parameters: $project
// Returns: deleted (builds deleted)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (b:Build {project: $project})
WITH p, collect(b) AS builds
// by label (a node per build of the database), also one whose build is gone
OPTIONAL MATCH (n:BuildNames {project: $project})
WITH p, builds, collect(n) AS names
FOREACH (n IN names | DETACH DELETE n)
FOREACH (b IN builds | DETACH DELETE b)
DETACH DELETE p
RETURN size(builds) AS deleted
