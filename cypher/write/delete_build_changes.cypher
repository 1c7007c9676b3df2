// Undo what a dead (failed) build wrote: relationships it created are deleted, relationships
// it closed are open again. The active build is untouched by construction (its edges have
// since <= active id < the dead build's id, or were closed by a later build only).
// Parameters: $build_id
// Returns: deleted, reopened
CALL (){
  MATCH ()-[r:FEEDS|HAS|CONDITIONS|DEPENDS_ON|CONTAINS|DEFINES|INPUT_OF|RECORDS]->() WHERE r.since = $build_id
  DELETE r
  RETURN count(*) AS deleted
}
CALL (){
  MATCH ()-[r:FEEDS|HAS|CONDITIONS|DEPENDS_ON|CONTAINS|DEFINES|INPUT_OF|RECORDS]->() WHERE r.until = $build_id
  REMOVE r.until
  RETURN count(*) AS reopened
}
RETURN deleted, reopened
