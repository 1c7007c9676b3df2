// Create a running build of a project.
// Parameters: $project, $build (map: id, started_at, host, pid, dialect, manifest_sha256,
//             catalog_sha256, sqlglot_version, catalog_version, hashing_code, full, masking_functions, ...)
// Returns: id
MATCH (p:Project {name: $project})
CREATE (b:Build)
SET b = $build, b.project = $project, b.status = 'running', b.heartbeat_at = $build.started_at
CREATE (b)-[:OF]->(p)
RETURN b.id AS id
