// Delete the names of build $build_id (write/create_build_names): a failed build's, undone.
// Parameters: $build_id
// Returns: deleted
MATCH (:Build {id: $build_id})-[:NAMES]->(n:BuildNames)
DETACH DELETE n
RETURN count(*) AS deleted
