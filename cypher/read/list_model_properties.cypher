// Every dbt node (model, snapshot, seed, source) of a build with its properties in that build:
// its identity from the node, everything else from its CONTAINS relationship of that build.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: unique_id, name, resource_type, package, materialized, relation_name, database, schema, identifier, sql,
//          description, tags, meta, access, path, language, status, reason, carried_over
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
RETURN m.unique_id AS unique_id, m.name AS name, m.resource_type AS resource_type, s.package AS package,
       s.materialized AS materialized, s.relation_name AS relation_name, s.database AS database, s.schema AS schema,
       s.identifier AS identifier, s.sql AS sql, s.description AS description, s.tags AS tags,
       s.meta AS meta, s.access AS access, s.path AS path, s.language AS language, s.status AS status,
       s.reason AS reason, coalesce(s.carried_over, false) AS carried_over
ORDER BY unique_id
