// The column nodes of the project named one of $names, in any of its builds, from the index on
// (project, name): the labels a mistyped column name may be close to, to be bounded before the
// few that may be suggested are read with the build (list_column_names_of_keys). With $needs,
// only those whose model's value reaches their name's need (the others cannot be suggested).
// One row, `rows`: every row collected in one list.
// Parameters: $project, $names (list of column names), $needs (map: column name -> number, or null), $values (map: model unique id -> number, or null)
// Returns: rows (list of [unique_id, name, key])
MATCH (c:Column)
WHERE c.project = $project AND c.name IN $names
  AND ($needs IS NULL OR $values[c.unique_id] >= $needs[c.name])
RETURN collect([c.unique_id, c.name, c.key]) AS rows
