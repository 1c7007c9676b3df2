// The dbt nodes of a build written in one file (dbt's original_file_path, relative to its
// package's folder): the model, snapshot, seed or analysis of a .sql file, the sources of a
// YAML file. `catalog lsp` asks it of the file it is asked about.
// Parameters: $project, $build_id (int or null: the active build), $path
// Returns: unique_id, resource_type, in unique id order
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND s.path = $path
RETURN m.unique_id AS unique_id, m.resource_type AS resource_type
ORDER BY unique_id
