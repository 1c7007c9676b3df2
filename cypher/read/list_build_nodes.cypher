// The dbt nodes (models, sources, seeds, snapshots) of a build by name alone: what finding one
// by its name (`catalog mcp`'s model) and suggesting close names need, without their records.
// As of build $build_id, or the project's active build when null.
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $project, $build_id (int or null)
// Returns: unique_id, resource_type, name (as users type it: orders, shop.orders for a source), status (its analysis's; external: another project's)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
WITH m, s ORDER BY m.unique_id
RETURN collect({unique_id: m.unique_id, resource_type: m.resource_type, name: m.name, status: s.status}) AS rows
