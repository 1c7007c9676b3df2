// Mark builds failed (their process died or raised). Never touches the active build.
// Parameters: $ids (list of build ids), $reason, $now
// Returns: id
UNWIND $ids AS id
MATCH (b:Build {id: id})
WHERE b.status = 'running'
SET b.status = 'failed', b.error = $reason, b.finished_at = coalesce(b.finished_at, $now)
RETURN b.id AS id
