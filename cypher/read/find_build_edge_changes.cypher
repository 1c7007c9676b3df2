// Column edges (FEEDS) and condition edges (CONDITIONS) of a project that began or ended
// after build $from_build and up to build $to_build: the raw material of a build diff.
// Each part seeks its relationships in an index: `since` in catalog_feeds_since_model and
// catalog_conditions_since_clause (hence `model` / `clause` IS NOT NULL, which every such
// relationship has), `until` in catalog_*_until; the project is checked on what they find.
// The FEEDS parts say so with a hint: on a database of many projects the planner would
// otherwise start from the project's columns and expand every edge of each.
// Parameters: $project, $from_build, $to_build
// Returns: kind, up, down, model, since, until, expr, type, resolved, clause
MATCH (u:Column)-[r:FEEDS]->(d:Column)
USING INDEX r:FEEDS(since, model)
WHERE r.since > $from_build AND r.since <= $to_build AND r.model IS NOT NULL AND d.project = $project
RETURN 'feeds' AS kind, u.key AS up, d.key AS down, r.model AS model, r.since AS since, r.until AS until,
       r.expr AS expr, r.type AS type, r.resolved AS resolved, null AS clause
UNION ALL
MATCH (u:Column)-[r:FEEDS]->(d:Column)
USING INDEX r:FEEDS(until)
WHERE r.until > $from_build AND r.until <= $to_build AND d.project = $project
RETURN 'feeds' AS kind, u.key AS up, d.key AS down, r.model AS model, r.since AS since, r.until AS until,
       r.expr AS expr, r.type AS type, r.resolved AS resolved, null AS clause
UNION ALL
MATCH (c:Column)-[r:CONDITIONS]->(m:Model)
WHERE r.since > $from_build AND r.since <= $to_build AND r.clause IS NOT NULL AND m.project = $project
RETURN 'conditions' AS kind, c.key AS up, null AS down, m.key AS model, r.since AS since, r.until AS until,
       null AS expr, null AS type, null AS resolved, r.clause AS clause
UNION ALL
MATCH (c:Column)-[r:CONDITIONS]->(m:Model)
WHERE r.until > $from_build AND r.until <= $to_build AND m.project = $project
RETURN 'conditions' AS kind, c.key AS up, null AS down, m.key AS model, r.since AS since, r.until AS until,
       null AS expr, null AS type, null AS resolved, r.clause AS clause
