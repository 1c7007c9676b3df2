// Upsert columns with their current type and documentation.
// Parameters: $rows (list of {key, props}), props: project, unique_id, name, data_type, description, ...
// Returns: count
UNWIND $rows AS row
MERGE (c:Column {key: row.key})
SET c += row.props
RETURN count(*) AS count
