// Which of these column nodes exist, whatever build sees them (garbage collection removes
// those no kept build sees).
// Parameters: $keys (list of column keys)
// Returns: key
UNWIND $keys AS key
MATCH (c:Column {key: key})
RETURN c.key AS key
ORDER BY key
