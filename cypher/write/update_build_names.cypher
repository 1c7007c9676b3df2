// A build's names (see write/create_build_names), made from those of the build it replaces
// ($previous_id) and what this build changed: the relationships it created (since = $build_id)
// or closed (until = $build_id). Exactly what write/create_build_names makes: a column name
// that a changed relationship touches is looked up again in the build (through the index on
// (project, name)), every other name is the previous build's; a model whose CONTAINS changed
// is taken out and put back when the build contains it. The build sees the previous one's
// relationships and those it created, less those it closed: no other build of the project ran
// beside it (the project's lock), and a dead one's writes were undone before it started.
// No row when the previous build has no names, or when more than $share of its models or of its
// names changed (the lookups would cost more): then write/create_build_names makes them.
// A source's or seed's model key is `<project>/<unique id>` (catalog/store/keys.py).
// Parameters: $project, $build_id, $previous_id, $share (number, 0 to 1)
// Returns: column_names (how many), models (how many), looked_up (names looked up again)
MATCH (p:Project {name: $project})
MATCH (b:Build {id: $build_id, project: $project})
MATCH (:Build {id: $previous_id, project: $project})-[:NAMES]->(old:BuildNames)
CALL (p) {
  MATCH (p)-[s:CONTAINS]->(m:Model)
  WHERE s.since = $build_id OR s.until = $build_id
  RETURN collect(CASE WHEN s.until = $build_id THEN m.unique_id END) AS gone_ids,
         collect(CASE WHEN s.since = $build_id AND s.until IS NULL THEN [m.unique_id, m.name] END) AS new_models,
         collect(DISTINCT m) AS changed_models
}
WITH p, b, old, gone_ids, new_models, changed_models
WHERE size(changed_models) <= $share * size(old.unique_ids)
// the columns whose name may have come or gone
CALL (changed_models) {
  CALL (changed_models) {
    // every column a changed model had or has
    UNWIND changed_models AS m
    MATCH (m)-[:HAS]->(c:Column)
    RETURN c
    UNION
    UNWIND changed_models AS m
    MATCH (c:Column)
    WHERE m.resource_type IN ['source', 'seed'] AND c.key STARTS WITH m.key + '.' AND c.unique_id = m.unique_id
    RETURN c
    UNION
    // each relationship index needs a predicate on each of its properties (see schema/create_constraints)
    MATCH ()-[h:HAS]->(c:Column) WHERE h.since = $build_id AND h.position IS NOT NULL
    RETURN c
    UNION
    MATCH ()-[h:HAS]->(c:Column) WHERE h.until = $build_id
    RETURN c
    UNION
    // a source's or seed's column only SQL names comes and goes with what it feeds
    MATCH (c:Column)-[f:FEEDS]->() WHERE f.since = $build_id AND f.model IS NOT NULL
    RETURN c
    UNION
    MATCH (c:Column)-[f:FEEDS]->() WHERE f.until = $build_id
    RETURN c
    UNION
    // a BI field's FEEDS carry no `model`: found from the project's BI fields
    MATCH (c:Column)-[f:FEEDS]->(d:BIField) WHERE d.project = $project AND f.since = $build_id
    RETURN c
    UNION
    MATCH (c:Column)-[f:CONDITIONS]->() WHERE f.since = $build_id AND f.clause IS NOT NULL
    RETURN c
    UNION
    MATCH (c:Column)-[f:CONDITIONS]->() WHERE f.until = $build_id
    RETURN c
  }
  RETURN collect(DISTINCT c.name) AS looked_up
}
WITH p, b, old, gone_ids, new_models, looked_up
WHERE size(looked_up) <= $share * size(old.column_names)
// each name looked up: held by a column of the build as write/create_build_names asks
CALL (p, looked_up) {
  UNWIND looked_up AS name
  WITH name
  WHERE EXISTS {
    MATCH (c:Column {project: $project, name: name})
    WHERE EXISTS {
        MATCH (m:Model)-[h:HAS]->(c)
        WHERE h.since <= $build_id AND (h.until IS NULL OR h.until > $build_id)
        MATCH (p)-[s:CONTAINS]->(m)
        WHERE s.since <= $build_id AND (s.until IS NULL OR s.until > $build_id)
      }
      OR (EXISTS { MATCH (c)-[f:FEEDS|CONDITIONS]->() WHERE f.since <= $build_id AND (f.until IS NULL OR f.until > $build_id) }
        AND EXISTS {
          MATCH (m:Model {key: $project + '/' + c.unique_id})
          WHERE m.resource_type IN ['source', 'seed'] AND c.key STARTS WITH m.key + '.' AND c.unique_id = m.unique_id
            AND NOT EXISTS { MATCH (m)-[h:HAS]->(c) WHERE h.since <= $build_id AND (h.until IS NULL OR h.until > $build_id) }
          MATCH (p)-[s:CONTAINS]->(m)
          WHERE s.since <= $build_id AND (s.until IS NULL OR s.until > $build_id)
        })
  }
  RETURN collect(name) AS held
}
CALL (old, looked_up, held) {
  WITH [x IN looked_up WHERE NOT x IN held] AS gone
  UNWIND old.column_names + held AS name
  WITH DISTINCT name, gone
  WHERE NOT name IN gone
  WITH name ORDER BY name
  RETURN collect(name) AS column_names
}
CALL (old, gone_ids, new_models) {
  UNWIND [i IN range(0, size(old.unique_ids) - 1) WHERE NOT old.unique_ids[i] IN gone_ids | [old.unique_ids[i], old.model_names[i]]] + new_models AS model
  WITH model ORDER BY model[0]
  RETURN collect(model[0]) AS unique_ids, collect(model[1]) AS model_names
}
CREATE (b)-[:NAMES]->(n:BuildNames {project: $project, build_id: b.id})
SET n.column_names = column_names, n.unique_ids = unique_ids, n.model_names = model_names
RETURN size(column_names) AS column_names, size(unique_ids) AS models, size(looked_up) AS looked_up
