package digest

import (
	"fmt"

	"github.com/mcpbind/mcpbind/internal/jsonscan"
)

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
	depth, deepest := 0, 0
	jsonscan.Outside(raw, func(c byte) bool {
		switch c {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
		return deepest <= MaxDepth
	})
	if deepest > MaxDepth {
		return fmt.Errorf("digest: JSON nested more than %d levels deep", MaxDepth)
	}
	return nil
}
