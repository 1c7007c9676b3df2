// The given dbt nodes and every node that depends on them at any depth (DEPENDS_ON), in a
// build: all that can read their columns. As of build $build_id, or the project's active build
// when null.
// Parameters: $project, $keys (list of model keys), $build_id (int or null)
// Returns: unique_id
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $keys AS key
MATCH (start:Model {key: key})
CALL (start, b) {
  // a breadth-first expansion that visits each node once (Neo4j prunes the paths)
  MATCH (start)<-[ds:DEPENDS_ON*1..]-(d:Model)
  WHERE all(r IN ds WHERE r.since <= b AND (r.until IS NULL OR r.until > b))
  RETURN d AS n
  UNION
  RETURN start AS n
}
RETURN DISTINCT n.unique_id AS unique_id
ORDER BY unique_id
