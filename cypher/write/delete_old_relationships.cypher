// Garbage collection: delete a project's relationships that no kept build can see (they
// ended at or before the oldest kept build). Runs in batches of its own transactions.
// Each type with an index on `until` is sought in it (not every relationship of the database
// scanned); the others from the project's nodes they end at, each label in its project index
// or, for the few consumers, by label.
// Parameters: $project, $keep_from (id of the oldest build kept)
// Returns: deleted
CALL () {
  MATCH ()-[r:FEEDS]->(n) WHERE r.until <= $keep_from AND n.project = $project RETURN r
  UNION ALL
  MATCH ()-[r:HAS]->(n) WHERE r.until <= $keep_from AND n.project = $project RETURN r
  UNION ALL
  MATCH ()-[r:CONDITIONS]->(n) WHERE r.until <= $keep_from AND n.project = $project RETURN r
  UNION ALL
  MATCH ()-[r:DEPENDS_ON]->(n) WHERE r.until <= $keep_from AND n.project = $project RETURN r
  UNION ALL
  MATCH ()-[r:CONTAINS]->(n) WHERE r.until <= $keep_from AND n.project = $project RETURN r
  UNION ALL
  MATCH ()-[r:RECORDS]->(n:Model {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:TESTS|INPUT_OF]->(n:Column {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES]->(n:Test {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES]->(n:SemanticModel {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES|INPUT_OF]->(n:Metric {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES|INPUT_OF]->(n:Exposure {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES|INPUT_OF]->(n:SavedQuery {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES|SHOWS]->(n:BIField {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES|HOLDS]->(n:Chart {project: $project}) WHERE r.until <= $keep_from RETURN r
  UNION ALL
  MATCH ()-[r:DEFINES]->(n:Dashboard {project: $project}) WHERE r.until <= $keep_from RETURN r
}
CALL (r) {
  DELETE r
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS deleted
