// The consumers of a build (semantic models, metrics, exposures, saved queries) as their
// records were read from the manifest for that build (the JSON on their DEFINES). Read by
// `catalog explore` to rebuild a stored build's consumers and their lineage.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: unique_id, resource_type (semantic_model, metric, exposure, saved_query), record (JSON)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[r:DEFINES]->(n)
WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
RETURN n.unique_id AS unique_id, n.resource_type AS resource_type, r.record AS record
ORDER BY unique_id
