// Every INPUT_OF relationship of a build: what its semantic models, metrics, exposures and saved
// queries read (the report walks them in memory from the columns that feed them).
// Parameters: $project, $build_id (int or null: the active build)
// Returns: up (key of a column or metric), down (key of a semantic model's column, metric, exposure or saved query), kind (semantic_model, metric, exposure, saved_query), name
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
MATCH (u)-[r:INPUT_OF]->(d {project: $project})
WHERE r.since <= b AND (r.until IS NULL OR r.until > b)
RETURN u.key AS up, d.key AS down,
       CASE WHEN d:Column THEN 'semantic_model' ELSE d.resource_type END AS kind,
       CASE WHEN d:Column THEN split(d.model_name, ':')[-1] + '.' + d.name ELSE d.name END AS name
ORDER BY up, down
