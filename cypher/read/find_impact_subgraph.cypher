// Impact analysis in one read: the start columns and every column downstream of them at any
// depth (or up to $max_depth hops), as of build $build_id (the project's active build when
// null), each with its names and its column edges (FEEDS) in that build. The caller walks
// this subgraph for one shortest path to each column and for the columns that only
// pass-throughs and renames reach, and asks for consumers (metrics, exposures, ...) only from
// the columns flagged as read by one. Everything in one row.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $max_depth (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: columns (list of [key, unique_id, model, name, feeds, consumed, project]; feeds: list of [downstream key, type, expr, resolved];
//          consumed: true when the column is INPUT_OF a semantic model, metric or exposure, or FEEDS a BI field, in that build)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS start_key
MATCH (start:Column {key: start_key})
CALL (start, b) {
  // any depth: a breadth-first expansion that visits each column once (Neo4j prunes the paths)
  MATCH (start)-[rs:FEEDS*1..]->(d:Column)
  WHERE $max_depth IS NULL AND all(r IN rs WHERE r.since <= coalesce($builds[endNode(r).project], b) AND (r.until IS NULL OR r.until > coalesce($builds[endNode(r).project], b)))
  RETURN d AS c
  UNION
  // up to $max_depth hops: a path length cannot be a parameter of the expansion above
  MATCH path = ANY SHORTEST (start)((x)-[r:FEEDS]->(y) WHERE r.since <= coalesce($builds[y.project], b) AND (r.until IS NULL OR r.until > coalesce($builds[y.project], b))){1,}(d:Column)
  WHERE $max_depth IS NOT NULL AND length(path) <= $max_depth
  RETURN d AS c
  UNION
  RETURN start AS c
}
WITH DISTINCT b, c
ORDER BY c.key
RETURN collect([c.key, c.unique_id, c.model_name, c.name,
                [(c)-[f:FEEDS]->(d:Column) WHERE f.since <= coalesce($builds[d.project], b) AND (f.until IS NULL OR f.until > coalesce($builds[d.project], b))
                 | [d.key, f.type, f.expr, f.resolved]],
                EXISTS { (c)-[i:INPUT_OF]->(x) WHERE i.since <= coalesce($builds[x.project], b) AND (i.until IS NULL OR i.until > coalesce($builds[x.project], b)) }
                OR EXISTS { (c)-[i:FEEDS]->(x:BIField) WHERE i.since <= coalesce($builds[x.project], b) AND (i.until IS NULL OR i.until > coalesce($builds[x.project], b)) },
                c.project]) AS columns
