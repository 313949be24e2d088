package serverid

import "testing"

// TestSlug: ASCII letters and digits lowercased, runs of anything else one
// '-', none at either end.
func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"sqlite-explorer":                         "sqlite-explorer",
		"@modelcontextprotocol/server-everything": "modelcontextprotocol-server-everything",
		"mcp-servers/everything":                  "mcp-servers-everything",
		"  My  Server v2 ":                        "my-server-v2",
		"Café_Bar":                                "caf-bar",
		"---":                                     "",
		"":                                        "",
		"日本":                                      "",
		"A1":                                      "a1",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
