// Columns (HAS) of a project that began or ended after build $from_build and up to build
// $to_build: columns added, removed, or whose type, documentation, tags or PII flag changed.
// `since` is sought in catalog_has_since_position (hence `position` IS NOT NULL, which every
// HAS has), `until` in catalog_has_until (what began in the range is not asked again), each
// with a hint, so that the plan does not depend on how many other projects the database holds.
// Parameters: $project, $from_build, $to_build
// Returns: unique_id, column, since, until, data_type, description, tags, meta, pii
CALL () {
  MATCH (m:Model)-[h:HAS]->(c:Column)
  USING INDEX h:HAS(since, position)
  WHERE h.since > $from_build AND h.since <= $to_build AND h.position IS NOT NULL AND m.project = $project
  RETURN m, h, c
  UNION ALL
  MATCH (m:Model)-[h:HAS]->(c:Column)
  USING INDEX h:HAS(until)
  WHERE h.until > $from_build AND h.until <= $to_build AND m.project = $project
    AND NOT (h.since > $from_build AND h.since <= $to_build)
  RETURN m, h, c
}
RETURN m.unique_id AS unique_id, c.name AS column, h.since AS since, h.until AS until, h.data_type AS data_type,
       h.description AS description, h.tags AS tags, h.meta AS meta, h.pii AS pii
ORDER BY unique_id, column, since
