// Columns (HAS) of a project that began or ended after build $from_build and up to build
// $to_build: columns added, removed, or whose type, documentation, tags or PII flag changed.
// Parameters: $project, $from_build, $to_build
// Returns: unique_id, column, since, until, data_type, description, tags, meta, pii
MATCH (m:Model {project: $project})-[h:HAS]->(c:Column)
WHERE (h.since > $from_build AND h.since <= $to_build) OR (h.until > $from_build AND h.until <= $to_build)
RETURN m.unique_id AS unique_id, c.name AS column, h.since AS since, h.until AS until, h.data_type AS data_type,
       h.description AS description, h.tags AS tags, h.meta AS meta, h.pii AS pii
ORDER BY unique_id, column, since
