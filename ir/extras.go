package ir

import (
	"strings"

	"github.com/mcpbind/mcpbind/internal/schema"
)

// extrasWanted reports whether a struct whose schema n does not declare
// "additionalProperties" still gets a field for the properties it has no
// field for: when the schema has "patternProperties", or the struct is part
// of a tool's outputSchema, whose values come from the server and must
// round-trip. Argument types the user builds carry no such field unless the
// schema asks for one (README "Generated code").
func (ts *typeSession) extrasWanted(n *schema.Node) bool {
	return n.S.PatternProperties != nil || strings.HasSuffix(ts.docKey, "#outputSchema")
}
