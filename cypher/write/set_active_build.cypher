// Make a finished build the project's active one, in one step: readers switch from the
// previous build to this one at commit. Fails (returns nothing) unless the build is still running.
// Parameters: $project, $build_id, $summary (map of counts and timings), $now
// Returns: id, previous_id
MATCH (p:Project {name: $project})
MATCH (b:Build {id: $build_id, status: 'running'})
OPTIONAL MATCH (p)-[old:ACTIVE]->(prev:Build)
SET prev.status = 'superseded'
DELETE old
CREATE (p)-[:ACTIVE]->(b)
SET b += $summary, b.status = 'active', b.finished_at = $now
RETURN b.id AS id, prev.id AS previous_id
