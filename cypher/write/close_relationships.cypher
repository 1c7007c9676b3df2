// Relationships that end with this build (removed or replaced): they stay readable for
// earlier builds. Identified by the element ids a read returned in the same build.
// Parameters: $build_id, $ids (list of relationship element ids)
// Returns: count
UNWIND $ids AS id
MATCH ()-[r]->() WHERE elementId(r) = id AND r.until IS NULL
SET r.until = $build_id
RETURN count(*) AS count
