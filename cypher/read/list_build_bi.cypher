// Every BI field, chart and dashboard of a build (catalog build --bi), with its tool, the tool's
// own id, file, line, a field's status and reason, and what it reads: a field the columns that
// FEED it, a chart the fields it SHOWS, a dashboard the charts it HOLDS and the fields it SHOWS.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: kind (bi_field, chart, dashboard), key, tool, tool_id, name, label, field_kind (a field's dimension, metric, ...; a chart's chart or tile),
//   file, line, status, reason, expr,
//   reads (list of {key, type, expr}: a FEEDS, SHOWS or HOLDS relationship's other end and its type or role)
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[d:DEFINES]->(n)
WHERE (n:BIField OR n:Chart OR n:Dashboard) AND d.since <= b AND (d.until IS NULL OR d.until > b)
WITH b, n, d,
     COLLECT { MATCH (c:Column)-[f:FEEDS]->(n) WHERE f.since <= b AND (f.until IS NULL OR f.until > b)
               RETURN {key: c.key, type: f.type, expr: f.expr} AS r ORDER BY r.key } +
     COLLECT { MATCH (n)-[s:SHOWS|HOLDS]->(x) WHERE s.since <= b AND (s.until IS NULL OR s.until > b)
               RETURN {key: x.key, type: toLower(type(s)), expr: s.role} AS r ORDER BY r.key } AS reads
RETURN n.resource_type AS kind, n.key AS key, n.tool AS tool, n.tool_id AS tool_id, n.name AS name, d.label AS label, d.kind AS field_kind,
       d.file AS file, d.line AS line, d.status AS status, d.reason AS reason, d.expr AS expr, reads
ORDER BY kind, key
