// The active build of a project.
// Parameters: $project
// Returns: build (map of the Build node's properties), or no row
MATCH (:Project {name: $project})-[:ACTIVE]->(b:Build)
RETURN b {.*} AS build
