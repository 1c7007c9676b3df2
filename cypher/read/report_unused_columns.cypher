// Columns nothing reads, on models that other nodes depend on: no outgoing FEEDS edge and no
// CONDITIONS edge in the build, although at least one model or snapshot depends on their
// model. Sources are left out (their unused columns are the raw data's, not the project's).
// incomplete_dependents names (sorted) the dependents whose own lineage is not fully resolved: their
// use of the column may be unknown. One row per model that has such columns, ordered by name.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: unique_id, model, resource_type, dependents, incomplete_dependents, columns (list of [column, data_type])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND m.resource_type <> 'source'
WITH p, b, m,
     [(child:Model)-[d:DEPENDS_ON]->(m) WHERE d.since <= b AND (d.until IS NULL OR d.until > b) | child] AS children
WHERE size(children) > 0
WITH b, m, size(children) AS dependents,
     COLLECT { UNWIND children AS child
               WITH child WHERE NOT EXISTS {
                 (p)-[cs:CONTAINS]->(child) WHERE cs.since <= b AND (cs.until IS NULL OR cs.until > b) AND cs.status = 'resolved'
               }
               RETURN child.name ORDER BY child.name } AS incomplete
WITH m, dependents, incomplete, COLLECT {
  MATCH (m)-[h:HAS]->(c:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
    AND NOT EXISTS { (c)-[f:FEEDS]->(:Column) WHERE f.since <= b AND (f.until IS NULL OR f.until > b) }
    AND NOT EXISTS { (c)-[k:CONDITIONS]->(:Model) WHERE k.since <= b AND (k.until IS NULL OR k.until > b) }
  RETURN [c.name, h.data_type] AS column ORDER BY column[0]
} AS columns
WHERE size(columns) > 0
RETURN m.unique_id AS unique_id, m.name AS model, m.resource_type AS resource_type, dependents,
       incomplete AS incomplete_dependents, columns
ORDER BY model, unique_id
