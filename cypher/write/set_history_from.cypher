// Garbage collection, before anything is deleted: record on the project that its history is
// known from build $keep_from on, when a finished build older than that is about to go (never
// moved back by a later gc that keeps more).
// Parameters: $project, $keep_from (id of the oldest build kept)
// Returns: history_from
MATCH (p:Project {name: $project})
WHERE EXISTS { MATCH (b:Build {project: $project}) WHERE b.id < $keep_from AND b.status IN ['active', 'superseded'] }
SET p.history_from = CASE WHEN coalesce(p.history_from, 0) > $keep_from THEN p.history_from ELSE $keep_from END
RETURN p.history_from AS history_from
