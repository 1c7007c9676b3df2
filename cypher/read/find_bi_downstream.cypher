// The BI fields the given columns FEED, the charts and dashboards that SHOW those fields and the
// dashboards that HOLD those charts, each with one path from the column and its tool, the
// tool's own id, file and line (a field's status and reason too). As of build $build_id, or
// the project's active build when null.
// Parameters: $project, $column_keys (list of column keys), $build_id (int or null), $builds (map: project name -> build id, the build each other project is read as of, dbt Mesh; {} for none)
// Returns: start, key, project, unique_id, name, kind (bi_field, chart, dashboard), tool, tool_id,
//   label, file, line, status, reason, depth, hops (list of {from, to, type, expr})
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
UNWIND $column_keys AS start_key
MATCH (start:Column {key: start_key})-[f:FEEDS]->(field:BIField)
WITH start, f, field, coalesce($builds[field.project], b) AS fb
WHERE f.since <= fb AND (f.until IS NULL OR f.until > fb)
CALL (start, f, field, fb) {
  RETURN field AS hit, 1 AS depth, [{from: start.key, to: field.key, type: f.type, expr: f.expr}] AS hops
  UNION ALL
  MATCH (field)<-[s:SHOWS]-(x)
  WHERE s.since <= fb AND (s.until IS NULL OR s.until > fb)
  RETURN x AS hit, 2 AS depth,
         [{from: start.key, to: field.key, type: f.type, expr: f.expr}, {from: field.key, to: x.key, type: 'shows', expr: s.role}] AS hops
  UNION ALL
  MATCH (field)<-[s:SHOWS]-(c:Chart)<-[h:HOLDS]-(d:Dashboard)
  WHERE s.since <= fb AND (s.until IS NULL OR s.until > fb) AND h.since <= fb AND (h.until IS NULL OR h.until > fb)
  RETURN d AS hit, 3 AS depth,
         [{from: start.key, to: field.key, type: f.type, expr: f.expr}, {from: field.key, to: c.key, type: 'shows', expr: s.role},
          {from: c.key, to: d.key, type: 'holds', expr: null}] AS hops
}
MATCH (:Project {name: hit.project})-[def:DEFINES]->(hit)
WHERE def.since <= fb AND (def.until IS NULL OR def.until > fb)
RETURN start.key AS start, hit.key AS key, hit.project AS project, hit.unique_id AS unique_id, hit.name AS name,
       hit.resource_type AS kind, hit.tool AS tool, hit.tool_id AS tool_id, def.label AS label, def.file AS file,
       def.line AS line, def.status AS status, def.reason AS reason, depth, hops
ORDER BY depth, key, start
