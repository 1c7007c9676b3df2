// Every node of one project: its Project node and every node that names it in `project`
// (builds, models, columns, semantic models, metrics, ...), with labels and properties.
// benchmarks/bulk_import.py writes these for neo4j-admin's bulk import of the same graph.
// Parameters: $project
// Returns: id (elementId), labels, props
MATCH (n)
WHERE n.project = $project OR (n:Project AND n.name = $project)
RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props
