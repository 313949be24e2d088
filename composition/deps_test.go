package composition_test

import (
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestLinks: what a program does not use must not cost it a dependency (and
// the init work and binary size of one). A program that uses only a
// generated client (the sqlite-explorer golden package) and
// composition.Connect links neither YAML (composition/serverconfig reads
// servers.yaml), nor the diff engine (composition/pinning classifies pinned
// tools' changes with it), nor the official Go SDK (composition/gosdk);
// neither does the mcpbind command link go-sdk. The packages that do use
// them link them, which shows the listing sees them. A failure names the
// chain of imports from the program to the package, from `go list -deps`.
func TestLinks(t *testing.T) {
	const (
		yaml     = "github.com/goccy/go-yaml"
		tooldiff = "github.com/mcpbind/mcpbind/internal/tooldiff"
		goSDK    = "github.com/modelcontextprotocol/go-sdk"
	)
	client := []string{
		"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer", // the generated client
		"github.com/mcpbind/mcpbind/composition",                           // Connect
	}
	for _, tc := range []struct {
		name    string
		program []string
		links   bool
		pkgs    []string
	}{
		{"a generated client and Connect", client, false, []string{yaml, tooldiff, goSDK}},
		{"the mcpbind command", []string{"github.com/mcpbind/mcpbind/cmd/mcpbind"}, false, []string{goSDK}},
		{"serverconfig", []string{"github.com/mcpbind/mcpbind/composition/serverconfig"}, true, []string{yaml}},
		{"pinning", []string{"github.com/mcpbind/mcpbind/composition/pinning"}, true, []string{tooldiff}},
		{"gosdk", []string{"github.com/mcpbind/mcpbind/composition/gosdk"}, true, []string{goSDK}},
	} {
		imports := testenv.Imports(t, tc.program...)
		for _, p := range tc.pkgs {
			chain := testenv.ImportChain(tc.program, imports, p)
			switch {
			case chain != nil && !tc.links:
				t.Errorf("%s links %s:\n  %s", tc.name, p, strings.Join(chain, "\n  → "))
			case chain == nil && tc.links:
				t.Errorf("%s does not link %s: the listing no longer sees the package the other cases look for", tc.name, p)
			}
		}
	}
}
