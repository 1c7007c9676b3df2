// Create the columns that new edges of a build start or end at, when no node exists yet,
// with their identity only: key, project, unique_id, model_name, name.
// Parameters: $rows (list of {node}), node: key, project, unique_id, model_name, name
// Returns: count
UNWIND $rows AS row
MERGE (c:Column {key: row.node.key})
ON CREATE SET c = row.node
RETURN count(*) AS count
