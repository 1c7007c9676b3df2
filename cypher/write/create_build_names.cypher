// A build's names, packed on a node of their own: the distinct names of its columns (those of
// list_columns and list_columns_known_from_sql) and its models' unique ids and names. What the
// suggestions for a mistyped column name compare first, read as one node instead of every
// column name of the project (list_project_column_names) and every model of the build
// (list_build_nodes). Written when the build becomes active, in the same transaction
// (write/set_active_build); deleted with the build.
// Parameters: $project, $build_id
// Returns: column_names (how many), models (how many)
MATCH (p:Project {name: $project})
MATCH (b:Build {id: $build_id, project: $project})
CALL (p, b) {
  MATCH (p)-[s:CONTAINS]->(m:Model)
  WHERE s.since <= b.id AND (s.until IS NULL OR s.until > b.id)
  WITH m ORDER BY m.unique_id
  RETURN collect(m.unique_id) AS unique_ids, collect(m.name) AS model_names
}
CALL (p, b) {
  // each name once, and in order (a union of collected lists, made distinct, would compare the
  // lists with each name: gigabytes)
  CALL (p, b) {
    MATCH (p)-[s:CONTAINS]->(m:Model)
    WHERE s.since <= b.id AND (s.until IS NULL OR s.until > b.id)
    MATCH (m)-[h:HAS]->(c:Column)
    WHERE h.since <= b.id AND (h.until IS NULL OR h.until > b.id)
    RETURN DISTINCT c.name AS name
    UNION
    // a source's or seed's columns that only the SQL reading them names
    MATCH (p)-[s:CONTAINS]->(m:Model)
    WHERE s.since <= b.id AND (s.until IS NULL OR s.until > b.id) AND m.resource_type IN ['source', 'seed']
    MATCH (c:Column)
    WHERE c.key STARTS WITH m.key + '.' AND c.unique_id = m.unique_id
      AND NOT EXISTS { MATCH (m)-[h:HAS]->(c) WHERE h.since <= b.id AND (h.until IS NULL OR h.until > b.id) }
      AND EXISTS { MATCH (c)-[f:FEEDS|CONDITIONS]->() WHERE f.since <= b.id AND (f.until IS NULL OR f.until > b.id) }
    RETURN DISTINCT c.name AS name
  }
  WITH name ORDER BY name
  RETURN collect(name) AS column_names
}
CREATE (b)-[:NAMES]->(n:BuildNames {project: $project, build_id: b.id})
SET n.column_names = column_names, n.unique_ids = unique_ids, n.model_names = model_names
RETURN size(column_names) AS column_names, size(unique_ids) AS models
