// Changes the password of the user who runs it, from $old to $new; run on the system database.
// The local server's first start with authentication sets its generated password this way
// (a new system database gives user neo4j the password neo4j, to be changed before any use).
// Parameters: $old (the current password), $new (at least 8 characters)
// Returns: nothing
ALTER CURRENT USER SET PASSWORD FROM $old TO $new
