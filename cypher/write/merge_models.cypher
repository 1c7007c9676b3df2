// Create dbt nodes (models, sources, seeds, snapshots) that a build needs, with their identity
// only: key, project, unique_id, name, resource_type (all given by the key). What can change
// from build to build is on the build's CONTAINS relationship, never on the node.
// Every dbt node carries the :Model label; sources, seeds and snapshots get a second label.
// Parameters: $rows (list of {node}), node: key, project, unique_id, name, resource_type
// Returns: count
UNWIND $rows AS row
MERGE (m:Model {key: row.node.key})
SET m = row.node
FOREACH (_ IN CASE WHEN row.node.resource_type = 'source' THEN [1] ELSE [] END | SET m:Source)
FOREACH (_ IN CASE WHEN row.node.resource_type = 'seed' THEN [1] ELSE [] END | SET m:Seed)
FOREACH (_ IN CASE WHEN row.node.resource_type = 'snapshot' THEN [1] ELSE [] END | SET m:Snapshot)
RETURN count(*) AS count
