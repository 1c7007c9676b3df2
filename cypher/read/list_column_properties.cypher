// Every column of the dbt nodes of a build with its properties in that build: its identity
// from the node, everything else from its HAS relationship of that build.
// One row, `rows`: every row collected in one list (one Bolt record instead of hundreds of thousands).
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
WITH m, h, c
ORDER BY m.unique_id, h.position, c.key
RETURN collect({
  key: c.key, unique_id: m.unique_id, model: c.model_name, name: c.name,
  display_name: coalesce(h.display_name, c.name), position: h.position, data_type: h.data_type,
  description: h.description, tags: h.tags, meta: h.meta, pii: coalesce(h.pii, false),
  declared: coalesce(h.declared, false), in_catalog: coalesce(h.in_catalog, false),
  kind: h.kind, expr: h.expr, resolved: h.resolved, reason: h.reason
}) AS rows
