// The names of the columns the analysis gave each analyzed model or snapshot of a build (those
// with a lineage type on their HAS), in the model's order: with the build's records, what a
// search over the build's names needs, without reading their lineage. As of build $build_id,
// or the project's active build when null.
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $project, $build_id (int or null)
// Returns: unique_id, columns (list of names)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND m.resource_type IN ['model', 'snapshot']
  AND s.status IS NOT NULL AND s.status <> ''
WITH b, m
ORDER BY m.unique_id
RETURN collect({
  unique_id: m.unique_id,
  columns: COLLECT { MATCH (m)-[h:HAS]->(c:Column)
                     WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND h.kind IS NOT NULL AND h.kind <> ''
                     RETURN c.name ORDER BY h.position, c.key }
}) AS rows
