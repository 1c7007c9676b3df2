// Record that this database has the catalog's constraints and indexes of a version.
// Parameters: $version
// Returns: version
MERGE (k:Catalog {name: 'catalog'})
SET k.schema_version = $version
RETURN k.schema_version AS version
