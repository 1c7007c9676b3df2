// The column nodes of the project among $keys, in any of its builds, from the unique index on
// key: the labels a mistyped column name may be close to, when the pairs of a column name and a
// model that may reach the bar are few enough to be looked up one by one (else
// list_column_keys_named or list_column_keys_of_models read them by name or by model). One row,
// `rows`: every row collected in one list.
// Parameters: $keys (list of column keys, `<project>/<unique_id>.<column>`)
// Returns: rows (list of [unique_id, name, key])
UNWIND $keys AS key
MATCH (c:Column {key: key})
RETURN collect([c.unique_id, c.name, c.key]) AS rows
