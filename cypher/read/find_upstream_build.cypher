// The build of a producer project that a consumer build reads (dbt Mesh): build $build_id,
// whatever its project (build ids are unique in the database), or the active build of the
// stored project $project when $build_id is null.
// Parameters: $project (string or null), $build_id (int or null: the active build of $project)
// Returns: project, id, status
OPTIONAL MATCH (:Project {name: $project})-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (build:Build {id: b})
RETURN build.project AS project, build.id AS id, build.status AS status
