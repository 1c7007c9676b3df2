// A build's names as write/create_build_names packed them: the distinct names of its columns,
// its models' unique ids and names (two lists in the same order). No row for a build stored
// before builds kept their names. As of build $build_id, or the project's active build when null.
// Parameters: $project, $build_id (int or null)
// Returns: column_names, unique_ids, model_names
OPTIONAL MATCH (:Project {name: $project})-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (:Build {id: b, project: $project})-[:NAMES]->(n:BuildNames)
RETURN n.column_names AS column_names, n.unique_ids AS unique_ids, n.model_names AS model_names
