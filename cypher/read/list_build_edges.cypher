// Every column edge (FEEDS), condition edge (CONDITIONS) and model dependency (DEPENDS_ON)
// of a project's models in a build: the whole lineage of that build.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: kind (feeds|conditions|depends_on), up, down, model, expr, type, resolved, clause
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
CALL (m, b) {
  MATCH (m)-[h:HAS]->(d:Column)<-[r:FEEDS]-(u:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'feeds' AS kind, u.key AS up, d.key AS down, r.model AS model, r.expr AS expr, r.type AS type,
         r.resolved AS resolved, null AS clause
  UNION ALL
  MATCH (c:Column)-[r:CONDITIONS]->(m)
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'conditions' AS kind, c.key AS up, null AS down, m.key AS model, null AS expr, null AS type,
         null AS resolved, r.clause AS clause
  UNION ALL
  MATCH (m)-[r:DEPENDS_ON]->(parent:Model)
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'depends_on' AS kind, m.key AS up, parent.key AS down, m.key AS model, null AS expr, null AS type,
         null AS resolved, null AS clause
}
RETURN kind, up, down, model, expr, type, resolved, clause
ORDER BY kind, up, down, model, clause
