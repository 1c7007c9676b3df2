// Undo what a dead (failed) build wrote, first half: the relationships it created are deleted,
// 10,000 per transaction (a 5,000-model build creates about 700,000: one transaction for all
// of them went past Neo4j's transaction memory limit). Readers never see them: they belong to
// a build after the active one. Run again after an interruption, it deletes what is left.
// Then write/reopen_build_relationships. The active build is untouched by construction (its
// edges have since <= active id < the dead build's id).
// Parameters: $build_id
// Returns: deleted
MATCH ()-[r:FEEDS|HAS|CONDITIONS|DEPENDS_ON|CONTAINS|DEFINES|INPUT_OF|RECORDS|TESTS|SHOWS|HOLDS]->()
WHERE r.since = $build_id
CALL (r) {
  DELETE r
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS deleted
