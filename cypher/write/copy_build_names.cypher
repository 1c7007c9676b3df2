// A no-change build's names (see write/create_build_names): those of the build it replaces,
// which holds the same columns and models. Nothing when that build has none (it was stored
// before builds kept their names): then write/create_build_names makes them.
// Parameters: $project, $build_id, $previous_id
// Returns: copied (1, or no row)
MATCH (:Build {id: $previous_id, project: $project})-[:NAMES]->(old:BuildNames)
MATCH (b:Build {id: $build_id, project: $project})
CREATE (b)-[:NAMES]->(n:BuildNames {project: $project, build_id: b.id})
SET n.column_names = old.column_names, n.unique_ids = old.unique_ids, n.model_names = old.model_names
RETURN 1 AS copied
