// Descriptions an undocumented column could inherit: for every model or snapshot column with
// no description in the build, the nearest documented upstream columns reached only through
// passthrough and renamed edges (the value is copied unchanged), through undocumented columns
// only. Descriptions are the columns' in that build (on their HAS relationships).
// One row per (column, documented ancestor), with the distance and the hop types.
// Parameters: $project, $build_id (int or null: the active build)
// Returns: key, unique_id, model, column, from_key, from_unique_id, from_model, from_column, description, distance, types
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH p, coalesce($build_id, active.id) AS b
MATCH (p)-[s:CONTAINS]->(m:Model)
WHERE s.since <= b AND (s.until IS NULL OR s.until > b) AND m.resource_type IN ['model', 'snapshot']
MATCH (m)-[h:HAS]->(c:Column)
WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND trim(coalesce(h.description, '')) = ''
MATCH path = ANY SHORTEST
  (c)((:Column)<-[r:FEEDS WHERE r.since <= b AND (r.until IS NULL OR r.until > b) AND r.type IN ['passthrough', 'renamed']]-
      (x:Column WHERE NOT EXISTS { (:Model)-[xh:HAS]->(x) WHERE xh.since <= b AND (xh.until IS NULL OR xh.until > b)
                                                            AND trim(coalesce(xh.description, '')) <> '' })){0,}
  (:Column)<-[last:FEEDS WHERE last.since <= b AND (last.until IS NULL OR last.until > b) AND last.type IN ['passthrough', 'renamed']]-
  (u:Column WHERE EXISTS { (:Model)-[uh:HAS]->(u) WHERE uh.since <= b AND (uh.until IS NULL OR uh.until > b)
                                                  AND trim(coalesce(uh.description, '')) <> '' })
MATCH (:Model)-[uh:HAS]->(u)
WHERE uh.since <= b AND (uh.until IS NULL OR uh.until > b)
RETURN c.key AS key, m.unique_id AS unique_id, c.model_name AS model, c.name AS column,
       u.key AS from_key, u.unique_id AS from_unique_id, u.model_name AS from_model, u.name AS from_column,
       uh.description AS description, length(path) AS distance,
       reverse([rel IN relationships(path) | rel.type]) AS types
ORDER BY model, unique_id, column, distance, from_key
