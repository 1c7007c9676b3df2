// The current (open) relationships owned by some models of a project: the columns they
// have, the edges feeding those columns, the conditions on them and their dependencies.
// A build compares them with the new analysis and closes or creates only the difference.
// One row, `rows`: every row collected in one list (one Bolt record instead of thousands).
// Parameters: $keys (list of model keys)
// Returns: model, kind (has|feeds|conditions|depends_on), id (element id), a, b, expr, type, resolved, clause,
//          props (the properties of a HAS relationship: the column's in that build)
UNWIND $keys AS key
MATCH (m:Model {key: key})
CALL (m) {
  MATCH (m)-[r:HAS]->(c:Column) WHERE r.until IS NULL
  RETURN 'has' AS kind, elementId(r) AS id, c.key AS a, null AS b, null AS expr, null AS type, null AS resolved, null AS clause,
         properties(r) AS props
  UNION ALL
  MATCH (m)-[:HAS]->(d:Column)
  WITH DISTINCT d
  MATCH (d)<-[r:FEEDS]-(u:Column) WHERE r.until IS NULL
  RETURN 'feeds' AS kind, elementId(r) AS id, u.key AS a, d.key AS b, r.expr AS expr, r.type AS type, r.resolved AS resolved, null AS clause, null AS props
  UNION ALL
  MATCH (c:Column)-[r:CONDITIONS]->(m) WHERE r.until IS NULL
  RETURN 'conditions' AS kind, elementId(r) AS id, c.key AS a, null AS b, null AS expr, null AS type, null AS resolved, r.clause AS clause, null AS props
  UNION ALL
  MATCH (m)-[r:DEPENDS_ON]->(p:Model) WHERE r.until IS NULL
  RETURN 'depends_on' AS kind, elementId(r) AS id, p.key AS a, null AS b, null AS expr, null AS type, null AS resolved, null AS clause,
         null AS props
}
RETURN collect({model: m.key, kind: kind, id: id, a: a, b: b, expr: expr, type: type, resolved: resolved, clause: clause,
                props: props}) AS rows
