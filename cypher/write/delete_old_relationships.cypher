// Garbage collection: delete a project's relationships that no kept build can see (they
// ended at or before the oldest kept build). Runs in batches of its own transactions.
// Parameters: $project, $keep_from (id of the oldest build kept)
// Returns: deleted
MATCH ()-[r:FEEDS|HAS|CONDITIONS|DEPENDS_ON|CONTAINS|DEFINES|INPUT_OF|RECORDS|TESTS]->(n)
WHERE r.until IS NOT NULL AND r.until <= $keep_from AND n.project = $project
CALL (r) {
  DELETE r
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS deleted
