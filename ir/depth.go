package ir

import (
	"fmt"
	"strconv"

	"github.com/mcpbind/mcpbind/internal/schemakw"
)

// DefaultMaxSchemaDepth is the schema nesting depth Config.MaxSchemaDepth
// allows when it is zero: far above what real servers send (their
// schemas nest a handful of levels; a few dozen is already rare), and low
// enough that a hostile schema cannot make generate, diff or validate
// slow or hungry. bundle's schema checks use the same default.
const DefaultMaxSchemaDepth = schemakw.DefaultMaxDepth

// maxSchemaDepth returns the limit cfg sets: MaxSchemaDepth, or
// DefaultMaxSchemaDepth when it is zero or less.
func (cfg Config) maxSchemaDepth() int {
	if cfg.MaxSchemaDepth > 0 {
		return cfg.MaxSchemaDepth
	}
	return DefaultMaxSchemaDepth
}

// DepthError is a schema nested deeper than the configured limit.
type DepthError struct {
	// Max is the limit in force: the schema at the error's pointer is at
	// depth Max+1 (the root is depth 0; each sub-schema is one deeper than
	// the schema that holds it).
	Max int
}

// Error formats as "the schema nests deeper than 1000 levels (the limit;
// raise it with --max-schema-depth)".
func (e *DepthError) Error() string {
	return fmt.Sprintf("the schema nests deeper than %d levels (the limit; raise it with --max-schema-depth)", e.Max)
}

// tooDeep returns the JSON pointer of the first sub-schema of the schema
// v nested more than max levels deep, in document order, or ok=false when
// there is none. A sub-schema is a value in a schema position: below a
// keyword such as properties, items, anyOf or $defs. Each value is visited
// once; the pointer is built only for the schema found.
func tooDeep(v *jvalue, max int) (ptr string, ok bool) {
	tokens, ok := deeper(v, 0, max)
	if !ok {
		return "", false
	}
	var p string
	for i := len(tokens) - 1; i >= 0; i-- {
		p = child(p, tokens[i])
	}
	return p, true
}

// deeper walks the schema v at depth; on finding a schema beyond max it
// returns the pointer's tokens, innermost first.
func deeper(v *jvalue, depth, max int) ([]string, bool) {
	if depth > max {
		return []string{}, true
	}
	if v.kind != jObject {
		return nil, false
	}
	isSchema := func(c *jvalue) bool { return c.kind == jObject || c.kind == jBool }
	for _, m := range v.members {
		switch {
		case singleSchemaKeyword(m.key) && isSchema(m.val):
			if t, ok := deeper(m.val, depth+1, max); ok {
				return append(t, m.key), true
			}
		case arraySchemaKeyword(m.key) && m.val.kind == jArray:
			for i, e := range m.val.elems {
				if t, ok := deeper(e, depth+1, max); ok {
					return append(t, strconv.Itoa(i), m.key), true
				}
			}
		case mapSchemaKeyword(m.key) && m.val.kind == jObject:
			for _, pm := range m.val.members {
				if t, ok := deeper(pm.val, depth+1, max); ok {
					return append(t, pm.key, m.key), true
				}
			}
		}
	}
	return nil, false
}
