// What a test reads, from this build on: a data test or unit test TESTS each column it reads
// (its column, a relationships test's target column, a unit test's expected columns, the
// columns that decide a singular test's result).
// Parameters: $build_id, $rows (list of {test, column}: the keys of a Test and a Column)
// Returns: count
UNWIND $rows AS row
MATCH (t:Test {key: row.test})
MATCH (c:Column {key: row.column})
CREATE (t)-[:TESTS {since: $build_id}]->(c)
RETURN count(*) AS count
