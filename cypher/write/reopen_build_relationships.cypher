// Undo what a dead (failed) build wrote, second half: the relationships it closed are open
// again, 10,000 per transaction. Readers of the active build already see them open (they
// were closed after it). Run again after an interruption, it reopens what is left.
// Parameters: $build_id
// Returns: reopened
MATCH ()-[r:FEEDS|HAS|CONDITIONS|DEPENDS_ON|CONTAINS|DEFINES|INPUT_OF|RECORDS|TESTS|SHOWS|HOLDS]->()
WHERE r.until = $build_id
CALL (r) {
  REMOVE r.until
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS reopened
