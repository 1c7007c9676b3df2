// One project stored in this database.
// Parameters: $project
// Returns: name
MATCH (p:Project {name: $project})
RETURN p.name AS name
