package main

import (
	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/ir"
)

// addMaxSchemaDepthFlag registers --max-schema-depth, the nesting depth of
// sub-schemas beyond which a schema is refused with its server, tool and
// JSON pointer (ir.Config.MaxSchemaDepth, bundle.CheckOptions).
func addMaxSchemaDepthFlag(cmd *cobra.Command, depth *int) {
	cmd.Flags().IntVar(depth, "max-schema-depth", ir.DefaultMaxSchemaDepth,
		"refuse a schema whose sub-schemas nest deeper than `N` levels")
}
