// The column nodes of the project named one of $names, in any of its builds, from the index on
// (project, name): the labels a mistyped column name may be close to, to be bounded before the
// few that may be suggested are read with the build (list_column_names_of_keys).
// One row, `rows`: every row collected in one list.
// Parameters: $project, $names (list of column names)
// Returns: rows (list of [unique_id, name, key])
MATCH (c:Column)
WHERE c.project = $project AND c.name IN $names
RETURN collect([c.unique_id, c.name, c.key]) AS rows
