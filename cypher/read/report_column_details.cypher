// Some columns of a build as the report shows them, all in one row: names, and from the
// column's HAS relationship of that build its description, PII flag, tags and meta, and how
// many models it conditions (WHERE, JOIN, GROUP BY, ...) in that build.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null: the active build)
// Returns: columns (list of [key, unique_id, model, column, model_unique_id, description, pii, tags, meta, conditions])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS key
MATCH (c:Column {key: key})
WITH DISTINCT b, c ORDER BY c.key
WITH b, c, head([(m:Model)-[h:HAS]->(c) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) | [m, h]]) AS has
RETURN collect([c.key, c.unique_id, c.model_name, c.name, has[0].unique_id, has[1].description, coalesce(has[1].pii, false),
                has[1].tags, has[1].meta,
                COUNT { (c)-[k:CONDITIONS]->(:Model) WHERE k.since <= b AND (k.until IS NULL OR k.until > b) }]) AS columns
