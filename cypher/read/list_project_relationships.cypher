// Every relationship out of one project's nodes (see list_project_nodes), with its type
// and properties. benchmarks/bulk_import.py writes these for neo4j-admin's bulk import.
// Parameters: $project
// Returns: start, end (elementIds), type, props
MATCH (n)
WHERE n.project = $project OR (n:Project AND n.name = $project)
MATCH (n)-[r]->(m)
RETURN elementId(n) AS start, elementId(m) AS end, type(r) AS type, properties(r) AS props
