// Forget a project, second step (after delete_project_columns): delete its models,
// consumers and tests, and any column left, with their relationships, in batches of their own
// transactions. Other projects in the database are not touched.
// Parameters: $project
// Returns: deleted
MATCH (n)
WHERE (n:Model OR n:Column OR n:SemanticModel OR n:Metric OR n:Exposure OR n:SavedQuery OR n:Test) AND n.project = $project
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(*) AS deleted
