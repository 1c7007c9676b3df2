// The nodes of a build one node depends on (its parents) and those that depend on it (its
// children), by DEPENDS_ON, both in that build. `catalog lsp` reads these and the node itself
// to answer about the node's file.
// Parameters: $project, $build_id (int or null: the active build), $unique_id
// Returns: parents, children (lists of unique ids, sorted); no row when the build has no such node
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model {key: $project + '/' + $unique_id})
WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
RETURN COLLECT {
         MATCH (m)-[d:DEPENDS_ON]->(u:Model)<-[c:CONTAINS]-(p)
         WHERE d.since <= b AND (d.until IS NULL OR d.until > b) AND c.since <= b AND (c.until IS NULL OR c.until > b)
         RETURN DISTINCT u.unique_id AS uid ORDER BY uid
       } AS parents,
       COLLECT {
         MATCH (m)<-[d:DEPENDS_ON]-(k:Model)<-[c:CONTAINS]-(p)
         WHERE d.since <= b AND (d.until IS NULL OR d.until > b) AND c.since <= b AND (c.until IS NULL OR c.until > b)
         RETURN DISTINCT k.unique_id AS uid ORDER BY uid
       } AS children
