package ir

import (
	"fmt"

	"github.com/mcpbind/mcpbind/internal/schema"
)

// DefaultMaxSchemaDepth is the schema nesting depth Config.MaxSchemaDepth
// allows when it is zero: far above what real servers send (their
// schemas nest a handful of levels; a few dozen is already rare), and low
// enough that a hostile schema cannot make generate, diff or validate
// slow or hungry. bundle's schema checks use the same default.
const DefaultMaxSchemaDepth = schema.DefaultMaxDepth

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
