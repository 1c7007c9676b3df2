// Forget a project, first step: delete its columns with their relationships (column edges,
// HAS, conditions, inputs of consumers), in batches of their own transactions, before its
// models: a model's DETACH DELETE would otherwise take every HAS of its columns with it, and
// thousands of models at once hold millions of relationships in one transaction's memory.
// Parameters: $project
// Returns: deleted
MATCH (c:Column {project: $project})
CALL (c) {
  DETACH DELETE c
} IN TRANSACTIONS OF 2000 ROWS
RETURN count(*) AS deleted
