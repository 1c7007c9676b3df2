// One project stored in this database.
// Parameters: $project
// Returns: name, history_from (the oldest build `catalog gc` kept when it deleted older ones, or null)
MATCH (p:Project {name: $project})
// read by name from the map: no "property key does not exist" warning before any gc set it
RETURN p.name AS name, properties(p)['history_from'] AS history_from
