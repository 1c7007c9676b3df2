// Every name a column node of the project has, in any of its builds: the names a mistyped
// column is compared with first, from the index on (project, name) alone. A name no column
// of the build asked has is only compared: what an answer shows is read with the build
// (list_column_names_named, list_column_names_by_model).
// Parameters: $project
// Returns: names
MATCH (c:Column)
WHERE c.project = $project AND c.name IS NOT NULL
RETURN collect(DISTINCT c.name) AS names
