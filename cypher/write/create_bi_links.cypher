// What BI charts and dashboards show, from this build on: a chart SHOWS a field (role:
// dimension, metric, filter, sort, table_calculation, custom_dimension, ...), a dashboard HOLDS a
// chart and SHOWS the fields its own filters name.
// Parameters: $build_id, $rows (list of {kind: shows|holds, up, down, role}: chart or dashboard key, field or chart key)
// Returns: count
UNWIND $rows AS row
MATCH (u {key: row.up}) WHERE u:Chart OR u:Dashboard
MATCH (d {key: row.down}) WHERE d:BIField OR d:Chart
FOREACH (_ IN CASE WHEN row.kind = 'shows' THEN [1] ELSE [] END |
  CREATE (u)-[:SHOWS {since: $build_id, role: row.role}]->(d))
FOREACH (_ IN CASE WHEN row.kind = 'holds' THEN [1] ELSE [] END |
  CREATE (u)-[:HOLDS {since: $build_id}]->(d))
RETURN count(*) AS count
