// Garbage collection, after write/delete_old_relationships: delete a project's model and column
// nodes that no kept build sees (no relationship is left on them). Nothing is deleted while a
// build of the project is running (it may have created nodes it has not linked yet); each batch
// checks again in its own transaction.
// Parameters: $project
// Returns: deleted
MATCH (n)
WHERE (n:Model OR n:Column) AND n.project = $project AND NOT EXISTS { (n)--() }
CALL (n) {
  WITH n
  WHERE NOT EXISTS { (n)--() } AND NOT EXISTS { MATCH (b:Build {project: $project, status: 'running'}) }
  DELETE n
  RETURN 1 AS gone
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(gone) AS deleted
