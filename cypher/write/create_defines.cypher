// A consumer (semantic model, metric, exposure, saved query) or a test in a build, from this build on,
// with its properties in that build (description, type, label, url, maturity, owner, expr, ...;
// a test's kind, test and model).
// Parameters: $project, $build_id, $rows (list of {key, props})
// Returns: count
MATCH (p:Project {name: $project})
UNWIND $rows AS row
MATCH (n {key: row.key}) WHERE n:SemanticModel OR n:Metric OR n:Exposure OR n:SavedQuery OR n:Test
CREATE (p)-[r:DEFINES]->(n)
SET r = row.props, r.since = $build_id
RETURN count(*) AS count
