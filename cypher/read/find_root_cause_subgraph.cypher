// Root cause in one read: the asked nodes (columns, or a metric, exposure or saved query) and
// every node upstream of them at any depth (or up to $max_depth hops), as of build $build_id
// (the project's active build when null), each with what feeds it in that build: the column
// edges (FEEDS) into a column, and the reads (INPUT_OF) into a consumer. The caller walks this
// subgraph from each asked node for one shortest path to each column, by the one tie-break
// rule of catalog/walks.py. Everything in one row.
// Parameters: $project, $keys (list of node keys), $build_id (int or null), $max_depth (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: nodes (list of [key, unique_id, model, name, resource_type, project, is_column, feeders];
//          resource_type: of a column's model or source, null for a semantic model's and for consumers;
//          feeders: list of [upstream key, type, expr, resolved])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $keys AS start_key
MATCH (start {key: start_key}) WHERE start:Column OR start:Metric OR start:Exposure OR start:SavedQuery
CALL (start, b) {
  // any depth: a breadth-first expansion that visits each node once (Neo4j prunes the paths)
  MATCH (start)<-[rs:FEEDS|INPUT_OF*1..]-(u)
  WHERE $max_depth IS NULL AND all(r IN rs WHERE r.since <= coalesce($builds[endNode(r).project], b) AND (r.until IS NULL OR r.until > coalesce($builds[endNode(r).project], b)))
  RETURN u AS n
  UNION
  // up to $max_depth hops: a path length cannot be a parameter of the expansion above
  MATCH path = ANY SHORTEST (start)((y)<-[r:FEEDS|INPUT_OF]-(x) WHERE r.since <= coalesce($builds[y.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[y.project], b))){1,}(u)
  WHERE $max_depth IS NOT NULL AND length(path) <= $max_depth
  RETURN u AS n
  UNION
  RETURN start AS n
}
WITH DISTINCT b, n
OPTIONAL MATCH (m:Model {key: n.project + '/' + n.unique_id}) WHERE n:Column
ORDER BY n.key
RETURN collect([n.key, n.unique_id, n.model_name, n.name, m.resource_type, n.project, n:Column,
                [(x)-[f:FEEDS|INPUT_OF]->(n) WHERE f.since <= coalesce($builds[n.project], b) AND (f.until IS NULL OR f.until > coalesce($builds[n.project], b))
                 | [x.key, f.type, f.expr, CASE type(f) WHEN 'INPUT_OF' THEN true ELSE f.resolved END]]]) AS nodes
