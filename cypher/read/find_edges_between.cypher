// The column edges (FEEDS) among a set of columns, as of a build: the subgraph an impact
// answer covers, to tell columns reached only through pass-throughs and renames from
// columns that some path reaches through a calculation.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: up, down, type
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS key
MATCH (u:Column {key: key})-[r:FEEDS]->(d:Column)
WHERE r.since <= coalesce($builds[d.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[d.project], b)) AND d.key IN $column_keys
RETURN u.key AS up, d.key AS down, r.type AS type
