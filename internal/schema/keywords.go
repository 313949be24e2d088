// Keyword classes: what each JSON Schema keyword holds, in every dialect
// mcpbind reads (draft-04 to 2020-12), so that every walk agrees on what a
// sub-schema is. Functions rather than tables: no mutable state.

package schema

// SingleKeyword reports whether keyword k holds one schema.
func SingleKeyword(k string) bool {
	switch k {
	case "additionalProperties", "additionalItems", "items", "contains", "propertyNames", "not", "if", "then",
		"else", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return true
	}
	return false
}

// ArrayKeyword reports whether keyword k holds an array of schemas ("items" holds
// one in draft 2019-09 and earlier).
func ArrayKeyword(k string) bool {
	switch k {
	case "allOf", "anyOf", "oneOf", "prefixItems", "items":
		return true
	}
	return false
}

// MapKeyword reports whether keyword k holds an object whose member values are
// schemas.
func MapKeyword(k string) bool {
	switch k {
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return true
	}
	return false
}

// DefaultMaxDepth is the schema nesting depth mcpbind allows unless told
// otherwise (--max-schema-depth): far above what real servers send (a
// handful of levels; a few dozen is already rare), and low enough that a
// hostile schema cannot make generate, diff or validate slow or hungry.
// The root is depth 0; each sub-schema is one deeper than the schema that
// holds it.
const DefaultMaxDepth = 1000
