// Garbage collection, after write/delete_old_relationships: delete a project's model and column
// nodes that no kept build sees (no relationship is left on them). Nothing is deleted while a
// build of the project is running (it may have created nodes it has not linked yet); each batch
// checks again in its own transaction.
// Parameters: $project
// Returns: deleted
CALL () {
  // each label in its project index, not every node of the database
  MATCH (n:Model {project: $project}) WHERE NOT EXISTS { (n)--() } RETURN n
  UNION ALL
  MATCH (n:Column {project: $project}) WHERE NOT EXISTS { (n)--() } RETURN n
}
CALL (n) {
  WITH n
  WHERE NOT EXISTS { (n)--() } AND NOT EXISTS { MATCH (b:Build {project: $project, status: 'running'}) }
  DELETE n
  RETURN 1 AS gone
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(gone) AS deleted
