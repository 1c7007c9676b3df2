// The first columns of a build's dbt nodes that a search matches, in the order the search
// ranks them, and how many match in all: what is sent back is bounded by the page ($upto),
// however many match. Which columns match is chosen by the caller from the build's node names
// and the project's column names (catalog/mcp/questions.py): for each of $asks, the columns of
// its nodes named one of its names (every column when its names are null), found from the
// index on (project, name) when it says so (`by_name`), else from its nodes. The names and the
// nodes are the keys of maps, looked up as such (a list would be scanned for each column); the
// nodes are the build's (the caller read them), so they need no check of CONTAINS.
// A node's columns are those the analysis gave it when it has any, else those it declares: a
// node none of whose matching columns is analyzed is asked whether it has any (the others are).
// As of build $build_id, or the project's active build when null.
// Each column is ranked by its label, the node's name, a dot and its name, in lower case as
// Python lowers them: $parts[unique_id] is [the node's name lowered and a dot, its order form];
// $unusual[name], [lowered, order form] for the names that are not ASCII (toLower lowers
// ASCII as Python does). 0: the label is $q; 1: it ends with $q after a dot; 2: $q is first
// found at its start or after '.' or '_'; 3: elsewhere; 4: it holds the letters of $q in
// order only. Then by its length, then by the label: Neo4j orders strings by UTF-16 code
// units, Python by code points, so the order form, which sorts in Neo4j as the label does in
// Python (`label_forms` in catalog/mcp/questions.py), is sorted.
// The columns are grouped by label, the groups in order; the first $upto groups are sent (as
// many columns at least, with every column of the last label: the caller orders those by key),
// their columns' keys read for them alone. No ORDER BY ... LIMIT: a row of a list unwound is
// weighed as the whole list by Neo4j's memory pool, which a Top of such rows overflows.
// Parameters: $project, $build_id (int or null), $asks (list of {names, nodes, by_name}: a map whose keys are column names, or null; a map whose keys are the nodes' unique ids; whether to start from the names), $parts, $unusual, $q (the query lowered), $upto
// Returns: total (how many columns match), rows (list of [rank, length, order form, list of [key, unique_id, name]])
MATCH (p:Project {name: $project})
OPTIONAL MATCH (p)-[:ACTIVE]->(active:Build)
WITH coalesce($build_id, active.id) AS b
CALL (b) {
  UNWIND $asks AS ask
  CALL (b, ask) {
    WITH ask WHERE ask.by_name
    UNWIND keys(ask.names) AS name
    MATCH (c:Column)
    WHERE c.project = $project AND c.name = name AND ask.nodes[c.unique_id] IS NOT NULL
    MATCH (c)<-[h:HAS]-()
    WHERE h.since <= b AND (h.until IS NULL OR h.until > b)
    RETURN c.unique_id AS uid, h, c, name
    UNION ALL
    WITH ask WHERE NOT ask.by_name
    UNWIND keys(ask.nodes) AS uid
    MATCH (:Model {key: $project + '/' + uid})-[h:HAS]->(c)
    WITH b, ask, uid, h, c, c.name AS name
    WHERE CASE WHEN ask.names IS NULL OR ask.names[name] IS NOT NULL THEN h.since <= b AND (h.until IS NULL OR h.until > b) ELSE false END
    RETURN uid, h, c, name
  }
  WITH b, uid, collect([h.kind, c, name]) AS found
  WITH b, uid, found, any(f IN found WHERE f[0] IS NOT NULL AND f[0] <> '') AS some
  CALL (b, uid, some) {
    WITH uid WHERE NOT some
    OPTIONAL MATCH (:Model {key: $project + '/' + uid})-[h:HAS]->()
    WHERE h.since <= b AND (h.until IS NULL OR h.until > b) AND h.kind IS NOT NULL AND h.kind <> ''
    RETURN count(h) > 0 AS other
  }
  UNWIND [f IN found WHERE NOT (some OR other) OR (f[0] IS NOT NULL AND f[0] <> '')] AS f
  RETURN uid, f[1] AS c, f[2] AS name
  UNION ALL
  UNWIND $asks AS ask
  UNWIND keys(ask.sources) AS uid
  MATCH (c:Column)
  WHERE c.key STARTS WITH $project + '/' + uid + '.' AND c.unique_id = uid
  WITH b, ask, uid, c, c.name AS name
  WHERE CASE WHEN ask.names IS NULL OR ask.names[name] IS NOT NULL
    THEN NOT EXISTS { MATCH (:Model {key: $project + '/' + uid})-[h:HAS]->(c) WHERE h.since <= b AND (h.until IS NULL OR h.until > b) }
      AND EXISTS { MATCH (c)-[f:FEEDS|CONDITIONS]->() WHERE f.since <= b AND (f.until IS NULL OR f.until > b) }
    ELSE false END
  RETURN uid, c, name
}
WITH c, $parts[uid] AS part, coalesce($unusual[name], [toLower(name), toLower(name)]) AS name
WITH c, part[0] + name[0] AS label, part[1] + name[1] AS order
WITH c, label, order, size(label) AS length,
     CASE WHEN label CONTAINS $q THEN size(split(label, $q)[0]) ELSE -1 END AS at
WITH CASE
    WHEN label = $q THEN 0
    WHEN at < 0 THEN 4
    WHEN at > 0 AND at + size($q) = length AND substring(label, at - 1, 1) = '.' THEN 1
    WHEN at = 0 OR substring(label, at - 1, 1) IN ['.', '_'] THEN 2
    ELSE 3
  END AS rank, length, order, collect(c) AS same
ORDER BY rank, length, order
WITH collect([rank, length, order, same]) AS labels
RETURN reduce(n = 0, l IN labels | n + size(l[3])) AS total,
       [l IN labels[..$upto] | [l[0], l[1], l[2], [c IN l[3] | [c.key, c.unique_id, c.name]]]] AS rows
