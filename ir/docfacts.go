package ir

import "strconv"

// maxDefaultInDoc is the longest "default" (compact JSON, in bytes) that a
// field's doc comment shows in full.
const maxDefaultInDoc = 200

// defaultFact is the doc comment line for a property's "default" (compact
// JSON): the whole value, never a cut one (a cut URL or string would read
// as a different value); a longer value is only described, since the
// schema in schemas.go holds it.
func defaultFact(compact []byte) string {
	if len(compact) <= maxDefaultInDoc {
		return "Default: " + string(compact) + "."
	}
	return "Default: a " + strconv.Itoa(len(compact)) + "-byte value (see the schema)."
}
