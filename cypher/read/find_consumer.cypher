// A consumer named by a user (`metric:order_total`, `exposure:sales`, `saved_query:weekly`,
// `chart:SLUG`, `dashboard:SLUG`, `bi_field:TOOL_ID`, or its unique id), defined in build $build_id or the project's active build when null.
// Parameters: $project, $resource_type (metric, exposure, saved_query, bi_field, chart, dashboard), $name (lower case), $build_id (int or null)
// Returns: key, unique_id, name, resource_type
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[r:DEFINES]->(n {resource_type: $resource_type})
WHERE r.since <= b AND (r.until IS NULL OR r.until > b) AND (toLower(n.name) = $name OR toLower(n.unique_id) = $name OR toLower(n.tool_id) = $name)
RETURN n.key AS key, n.unique_id AS unique_id, n.name AS name, n.resource_type AS resource_type
ORDER BY key
