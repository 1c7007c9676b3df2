// Take the project's write lock (concurrent builds of one project queue here) and say
// what is going on: the active build, builds still marked running, the next build id and
// the version of the catalog's schema (constraints and indexes) in this database.
// Build ids are unique in the whole database (a counter on the :Catalog node).
// Parameters: $project, $now (ISO timestamp)
// Returns: active (map of the active Build's properties, or null), running (list of {id, host, pid, heartbeat_at}), next_id, schema_version
MERGE (p:Project {name: $project})
SET p.locked_at = $now
MERGE (k:Catalog {name: 'catalog'})
SET k.next_build_id = coalesce(k.next_build_id, 0) + 1
WITH p, k
OPTIONAL MATCH (p)-[:ACTIVE]->(a:Build)
OPTIONAL MATCH (r:Build {project: $project, status: 'running'})
RETURN a {.*} AS active,
       [x IN collect(r) WHERE x IS NOT NULL | x {.id, .host, .pid, .heartbeat_at}] AS running,
       k.next_build_id AS next_id, k.schema_version AS schema_version
