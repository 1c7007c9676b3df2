// A running build says it is alive.
// Parameters: $build_id, $now
// Returns: status
MATCH (b:Build {id: $build_id})
SET b.heartbeat_at = $now
RETURN b.status AS status
