// One build of a project: build $build_id, or the project's active build when $build_id is null.
// Parameters: $project, $build_id (int or null)
// Returns: build (map of the Build node's properties)
OPTIONAL MATCH (:Project {name: $project})-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (build:Build {id: b, project: $project})
RETURN build {.*} AS build
