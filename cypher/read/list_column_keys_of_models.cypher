// The column nodes of the models $unique_ids, in any of the project's builds, from the unique
// index on the column's key (its model's key and a dot first): the labels a mistyped column
// name may be close to, to be bounded before the few that may be suggested are read with the
// build (list_column_names_of_keys). With $needs, only those whose model's value reaches their
// name's need (the others cannot be suggested).
// One row, `rows`: every row collected in one list.
// Parameters: $project, $unique_ids (list of unique ids), $needs (map: column name -> number, or null), $values (map: model unique id -> number, or null)
// Returns: rows (list of [unique_id, name, key])
UNWIND $unique_ids AS uid
MATCH (c:Column)
WHERE c.key STARTS WITH $project + '/' + uid + '.' AND c.unique_id = uid
  AND ($needs IS NULL OR $values[c.unique_id] >= $needs[c.name])
RETURN collect([c.unique_id, c.name, c.key]) AS rows
