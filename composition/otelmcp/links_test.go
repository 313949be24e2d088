package otelmcp_test

import (
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestLinksOpenTelemetry: OpenTelemetry costs only the programs that ask
// for it. A program made of a generated client and composition, of the
// go-sdk binding, of composition's server side, or the mcpbind command
// links no go.opentelemetry.io package; this package does (which shows
// the listing sees it). A failure names the chain of imports.
func TestLinksOpenTelemetry(t *testing.T) {
	const otel = "go.opentelemetry.io"
	for _, tc := range []struct {
		program []string
		links   bool
	}{
		{[]string{"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer", "github.com/mcpbind/mcpbind/composition"}, false},
		{[]string{"github.com/mcpbind/mcpbind/composition/gosdk", "github.com/mcpbind/mcpbind/composition/serverconfig", "github.com/mcpbind/mcpbind/composition/pinning"}, false},
		{[]string{"github.com/mcpbind/mcpbind/cmd/mcpbind"}, false},
		{[]string{"github.com/mcpbind/mcpbind/composition/otelmcp"}, true},
	} {
		name := strings.Join(tc.program, " + ")
		chain := testenv.ImportChain(tc.program, testenv.Imports(t, tc.program...), otel)
		switch {
		case chain != nil && !tc.links:
			t.Errorf("%s links %s:\n  %s", name, otel, strings.Join(chain, "\n  → "))
		case chain == nil && tc.links:
			t.Errorf("%s does not link %s: the listing no longer sees it", name, otel)
		}
	}
}
