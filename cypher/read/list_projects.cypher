// The dbt projects stored in this database, with their active build.
// Parameters: none
// Returns: name, active_build_id
MATCH (p:Project)
OPTIONAL MATCH (p)-[:ACTIVE]->(b:Build)
RETURN p.name AS name, b.id AS active_build_id
ORDER BY name
