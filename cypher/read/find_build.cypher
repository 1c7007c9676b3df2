// One build of a project.
// Parameters: $project, $build_id
// Returns: build (map of the Build node's properties)
MATCH (b:Build {id: $build_id, project: $project})
RETURN b {.*} AS build
