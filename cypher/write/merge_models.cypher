// Upsert dbt nodes (models, sources, seeds, snapshots) with their current documentation.
// Every dbt node carries the :Model label; sources, seeds and snapshots get a second label.
// Parameters: $rows (list of {key, props}), props: project, unique_id, name, resource_type, ...
// Returns: count
UNWIND $rows AS row
MERGE (m:Model {key: row.key})
SET m += row.props
FOREACH (_ IN CASE WHEN row.props.resource_type = 'source' THEN [1] ELSE [] END | SET m:Source)
FOREACH (_ IN CASE WHEN row.props.resource_type = 'seed' THEN [1] ELSE [] END | SET m:Seed)
FOREACH (_ IN CASE WHEN row.props.resource_type = 'snapshot' THEN [1] ELSE [] END | SET m:Snapshot)
RETURN count(*) AS count
