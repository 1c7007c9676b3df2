// The lineage of every model of a build as the analysis gave it, named by unique ids and
// column names (not keys): the upstream columns of each column (FEEDS), the columns used in
// each model's conditions (CONDITIONS) and each model's parents (DEPENDS_ON). Read by
// `catalog export` and `catalog explore` to rebuild the analysis's records of a stored build.
// One row, `rows`: every row collected in one list (one Bolt record instead of hundreds of thousands).
// Parameters: $project, $build_id (int or null: the active build)
// Returns: kind (feeds|conditions|depends_on), unique_id (the downstream model), column (its column, for feeds),
//          up_unique_id, up_column (the upstream column; null for depends_on), clause (for conditions)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
CALL (m, b) {
  MATCH (m)-[h:HAS]->(d:Column)<-[r:FEEDS]-(u:Column)
  WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'feeds' AS kind, d.name AS column, u.unique_id AS up_unique_id, u.name AS up_column, null AS clause
  UNION ALL
  MATCH (c:Column)-[r:CONDITIONS]->(m)
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'conditions' AS kind, null AS column, c.unique_id AS up_unique_id, c.name AS up_column, r.clause AS clause
  UNION ALL
  MATCH (m)-[r:DEPENDS_ON]->(parent:Model)
  WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
  RETURN 'depends_on' AS kind, null AS column, parent.unique_id AS up_unique_id, null AS up_column, null AS clause
}
WITH kind, m.unique_id AS unique_id, column, up_unique_id, up_column, clause
ORDER BY kind, unique_id, column, up_unique_id, up_column, clause
RETURN collect({kind: kind, unique_id: unique_id, column: column, up_unique_id: up_unique_id, up_column: up_column,
                clause: clause}) AS rows
