// The builds of a project, newest first.
// Parameters: $project
// Returns: build (map of the Build node's properties)
MATCH (b:Build {project: $project})
RETURN b {.*} AS build
ORDER BY b.id DESC
