// A consumer (semantic model, metric, exposure, saved query) or a test in a build, from this build on,
// with its properties in that build (description, type, label, url, maturity, owner, expr, ...;
// a test's kind, test and model; a BI field's, chart's or dashboard's tool, tool_id, file, line, status, ...).
// Parameters: $project, $build_id, $rows (list of {key, props})
// Returns: count
MATCH (p:Project {name: $project})
UNWIND $rows AS row
MATCH (n {key: row.key}) WHERE n:SemanticModel OR n:Metric OR n:Exposure OR n:SavedQuery OR n:Test OR n:BIField OR n:Chart OR n:Dashboard
CREATE (p)-[r:DEFINES]->(n)
SET r = row.props, r.since = $build_id
RETURN count(*) AS count
