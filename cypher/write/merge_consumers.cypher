// Create the nodes of a project's consumers and tests, when none exists yet, with their identity only:
// key, project, unique_id, name, resource_type (and a BI node's tool and tool_id).
// label: SemanticModel, Metric, Exposure, SavedQuery, Test, BIField, Chart or Dashboard.
// Parameters: $rows (list of {label, node})
// Returns: count
UNWIND $rows AS row
FOREACH (_ IN CASE WHEN row.label = 'SemanticModel' THEN [1] ELSE [] END |
  MERGE (n:SemanticModel {key: row.node.key}) ON CREATE SET n = row.node)
FOREACH (_ IN CASE WHEN row.label = 'Metric' THEN [1] ELSE [] END |
  MERGE (n:Metric {key: row.node.key}) ON CREATE SET n = row.node)
FOREACH (_ IN CASE WHEN row.label = 'Exposure' THEN [1] ELSE [] END |
  MERGE (n:Exposure {key: row.node.key}) ON CREATE SET n = row.node)
FOREACH (_ IN CASE WHEN row.label = 'SavedQuery' THEN [1] ELSE [] END |
  MERGE (n:SavedQuery {key: row.node.key}) ON CREATE SET n = row.node)
FOREACH (_ IN CASE WHEN row.label = 'Test' THEN [1] ELSE [] END |
  MERGE (n:Test {key: row.node.key}) ON CREATE SET n = row.node)
FOREACH (_ IN CASE WHEN row.label = 'BIField' THEN [1] ELSE [] END |
  MERGE (n:BIField {key: row.node.key}) ON CREATE SET n = row.node)
FOREACH (_ IN CASE WHEN row.label = 'Chart' THEN [1] ELSE [] END |
  MERGE (n:Chart {key: row.node.key}) ON CREATE SET n = row.node)
FOREACH (_ IN CASE WHEN row.label = 'Dashboard' THEN [1] ELSE [] END |
  MERGE (n:Dashboard {key: row.node.key}) ON CREATE SET n = row.node)
RETURN count(*) AS count
