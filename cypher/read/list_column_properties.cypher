// Every column of the dbt nodes of a build with its properties in that build: its identity
// from the node, everything else from its HAS relationship of that build.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: key, unique_id, model, name, display_name, position, data_type, description, tags, meta, pii, declared, in_catalog,
//          kind, expr, resolved, reason (the analysis's lineage of a model's column; null for sources and seeds)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
MATCH (m)-[h:HAS]->(c:Column)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
RETURN c.key AS key, m.unique_id AS unique_id, c.model_name AS model, c.name AS name,
       coalesce(h.display_name, c.name) AS display_name, h.position AS position, h.data_type AS data_type,
       h.description AS description, h.tags AS tags, h.meta AS meta, coalesce(h.pii, false) AS pii,
       coalesce(h.declared, false) AS declared, coalesce(h.in_catalog, false) AS in_catalog,
       h.kind AS kind, h.expr AS expr, h.resolved AS resolved, h.reason AS reason
ORDER BY unique_id, position, key
