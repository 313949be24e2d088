package digest

import "fmt"

// MaxDepth is the deepest JSON nesting (objects and arrays) Canonical
// accepts. The RFC 8785 library copies each nested value's canonical form
// into its parent's, so its cost grows with depth times size; this bound
// keeps a hostile tool definition from costing gigabytes. It is far above
// any real tool: a schema nested ir.DefaultMaxSchemaDepth (1,000) levels
// deep through "properties" is about 2,000 JSON levels.
const MaxDepth = 2100

// checkDepth fails when raw, valid JSON, nests objects and arrays more
// than MaxDepth deep. One pass over the bytes.
func checkDepth(raw []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("digest: JSON nested more than %d levels deep", MaxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}
