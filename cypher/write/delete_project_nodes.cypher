// Forget a project, second step (after delete_project_columns): delete its models,
// consumers, tests and BI fields, charts and dashboards, and any column left, with their relationships, in batches of their own
// transactions. Other projects in the database are not touched.
// Parameters: $project
// Returns: deleted
CALL () {
  // each label by its own project index (or label scan: consumers are few), not every node
  MATCH (n:Model {project: $project}) RETURN n
  UNION ALL
  MATCH (n:Column {project: $project}) RETURN n
  UNION ALL
  MATCH (n:SemanticModel {project: $project}) RETURN n
  UNION ALL
  MATCH (n:Test {project: $project}) RETURN n
  UNION ALL
  MATCH (n:Metric {project: $project}) RETURN n
  UNION ALL
  MATCH (n:Exposure {project: $project}) RETURN n
  UNION ALL
  MATCH (n:SavedQuery {project: $project}) RETURN n
  UNION ALL
  MATCH (n:BIField {project: $project}) RETURN n
  UNION ALL
  MATCH (n:Chart {project: $project}) RETURN n
  UNION ALL
  MATCH (n:Dashboard {project: $project}) RETURN n
}
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(*) AS deleted
