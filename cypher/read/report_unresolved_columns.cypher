// Columns whose origin the analysis could not prove, as of a build: every column of a model
// whose analysis failed (it may carry an earlier build's lineage), columns with an unproved
// upstream edge (resolved = false), and columns with no upstream edge in a partial or
// unresolved model (in a resolved model such a column has no upstream column: a literal...).
// The per-column reason is not stored: the model's reason is returned with each column.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: unique_id, model, column, model_status, reason, kind (analysis_failed|unproved_edge|no_edge), expr
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND m.resource_type IN ['model', 'snapshot']
MATCH (m)-[h:HAS]->(c:Column)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
WITH m, s, c, [(c)<-[f:FEEDS]-(:Column) WHERE f.since <= b AND (f.until IS NULL OR f.until > b) | f] AS ins
WITH m, s, c, ins, [f IN ins WHERE f.resolved = false] AS unproved
WHERE s.status = 'failed' OR size(unproved) > 0 OR (size(ins) = 0 AND s.status IN ['partial', 'unresolved'])
RETURN m.unique_id AS unique_id, m.name AS model, c.name AS column, s.status AS model_status, s.reason AS reason,
       CASE WHEN s.status = 'failed' THEN 'analysis_failed' WHEN size(unproved) > 0 THEN 'unproved_edge'
            ELSE 'no_edge' END AS kind,
       head([f IN unproved | f.expr]) AS expr
ORDER BY model, unique_id, column
