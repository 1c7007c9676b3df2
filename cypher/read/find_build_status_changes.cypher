// Model states (CONTAINS) of a project that began or ended after build $from_build and up
// to build $to_build: models added, removed, or whose status changed between two builds.
// Parameters: $project, $from_build, $to_build
// Returns: unique_id, since, until, status, reason, carried_over
MATCH (:Project {name: $project})-[s:CONTAINS]->(m:Model)
WHERE (s.since > $from_build AND s.since <= $to_build) OR (s.until > $from_build AND s.until <= $to_build)
RETURN m.unique_id AS unique_id, s.since AS since, s.until AS until, s.status AS status, s.reason AS reason,
       s.carried_over AS carried_over
ORDER BY unique_id, since
