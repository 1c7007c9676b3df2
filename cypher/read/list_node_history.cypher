// Everything every stored build recorded of some columns or consumers (metric, exposure, saved
// query), unfiltered by build: the raw material of `catalog history`, which compares each build
// with the one before. Per node: its presence (the HAS of its model or semantic model, or the
// DEFINES of a consumer) with its properties, what fed it (FEEDS into a column, INPUT_OF into
// a consumer) and, for a model's column, the model's states (CONTAINS). Each node is sought in
// the key index of its label.
// Parameters: $project, $keys (list of node keys)
// Returns: key, presence (list of maps: since, until and the properties), inputs (list of {up, since, until, expr, type, resolved}),
//          states (list of {since, until, status, reason})
UNWIND $keys AS k
CALL (k) {
  MATCH (n:Column {key: k}) RETURN n
  UNION
  MATCH (n:Metric {key: k}) RETURN n
  UNION
  MATCH (n:Exposure {key: k}) RETURN n
  UNION
  MATCH (n:SavedQuery {key: k}) RETURN n
}
RETURN n.key AS key,
       [(o)-[h:HAS|DEFINES]->(n) | properties(h)] AS presence,
       [(u)-[f:FEEDS|INPUT_OF]->(n) | f {up: u.key, .since, .until, .expr, .type, .resolved}] AS inputs,
       [(:Project {name: $project})-[s:CONTAINS]->(:Model {key: n.project + '/' + n.unique_id}) WHERE n:Column |
        s {.since, .until, .status, .reason}] AS states
