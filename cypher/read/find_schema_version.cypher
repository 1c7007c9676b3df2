// The version of the catalog's constraints and indexes in this database.
// Parameters: none
// Returns: version
MATCH (k:Catalog {name: 'catalog'})
RETURN k.schema_version AS version
