// The dbt nodes of a build written in one file (dbt's original_file_path, relative to its
// package's folder): the model, snapshot, seed or analysis of a .sql file, the sources of a
// YAML file; with $path null, every node with a file. `catalog lsp` reads them to know which
// node a file is.
// Parameters: $project, $build_id (int or null: the active build), $path (or null)
// Returns: path, unique_id, resource_type, in path then unique id order
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND s.path IS NOT NULL AND ($path IS NULL OR s.path = $path)
RETURN s.path AS path, m.unique_id AS unique_id, m.resource_type AS resource_type
ORDER BY path, unique_id
