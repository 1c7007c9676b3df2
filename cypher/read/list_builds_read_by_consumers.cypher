// The builds of $project that builds of other projects read (dbt Mesh): each entry of a
// consumer build's `upstream` (`platform=12`; build ids are unique in the database) that names
// a build of $project. `catalog gc` keeps them and `catalog forget` refuses while any is read.
// Failed consumer builds read nothing anyone sees.
// Parameters: $project
// Returns: build_id, consumer, consumer_build
MATCH (c:Build)
WHERE c.project <> $project AND c.status <> 'failed' AND size(coalesce(c.upstream, [])) > 0
UNWIND c.upstream AS entry
WITH c, toInteger(split(entry, '=')[-1]) AS id
MATCH (b:Build {id: id})
WHERE b.project = $project
RETURN b.id AS build_id, c.project AS consumer, c.id AS consumer_build
ORDER BY build_id, consumer, consumer_build
