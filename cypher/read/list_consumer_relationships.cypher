// The open relationships of a project's consumers, tests and BI fields, charts and dashboards (until not set): what a build compares
// with what it wants, to close the ones that changed and create the new ones.
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $project
// Returns: id, kind, a, b, props
CALL () {
  MATCH (:Project {name: $project})-[r:DEFINES]->(n)
  WHERE r.until IS NULL
  RETURN elementId(r) AS id, 'defines' AS kind, n.key AS a, null AS b, properties(r) AS props
  UNION ALL
  MATCH (s:SemanticModel {project: $project})-[r:HAS]->(c:Column)
  WHERE r.until IS NULL
  RETURN elementId(r) AS id, 'has' AS kind, s.key AS a, c.key AS b, properties(r) AS props
  UNION ALL
  MATCH (t:Test {project: $project})-[r:TESTS]->(c:Column)
  WHERE r.until IS NULL
  RETURN elementId(r) AS id, 'tests' AS kind, t.key AS a, c.key AS b, properties(r) AS props
  UNION ALL
  MATCH (u)-[r:INPUT_OF]->(d {project: $project})
  WHERE r.until IS NULL
  RETURN elementId(r) AS id, 'input_of' AS kind, u.key AS a, d.key AS b, properties(r) AS props
  UNION ALL
  MATCH (c:Column)-[r:FEEDS]->(f:BIField {project: $project})
  WHERE r.until IS NULL
  RETURN elementId(r) AS id, 'bi_feeds' AS kind, c.key AS a, f.key AS b, properties(r) AS props
  UNION ALL
  MATCH (x {project: $project})-[r:SHOWS|HOLDS]->(y)
  WHERE r.until IS NULL AND (x:Chart OR x:Dashboard)
  RETURN elementId(r) AS id, toLower(type(r)) AS kind, x.key AS a, y.key AS b, properties(r) AS props
}
WITH id, kind, a, b, props
ORDER BY kind, a, b
RETURN collect({id: id, kind: kind, a: a, b: b, props: props}) AS rows
