package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/ir"
)

// addMaxSchemaDepthFlag registers --max-schema-depth, the nesting depth of
// sub-schemas beyond which typing a schema fails with its server, tool and
// JSON pointer (ir.Config.MaxSchemaDepth).
func addMaxSchemaDepthFlag(cmd *cobra.Command, depth *int) {
	cmd.Flags().IntVar(depth, "max-schema-depth", ir.DefaultMaxSchemaDepth,
		fmt.Sprintf("fail on a schema whose sub-schemas nest deeper than `N` levels (default %d)", ir.DefaultMaxSchemaDepth))
}
