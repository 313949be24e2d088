package ir

import (
	"strings"
	"testing"
)

// TestDefaultFactNeverCuts: a default is shown whole or only described,
// never cut mid-value (a cut URL reads as another URL).
func TestDefaultFactNeverCuts(t *testing.T) {
	url := `"https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md"`
	if got := defaultFact([]byte(url)); got != "Default: "+url+"." {
		t.Errorf("got %q", got)
	}
	long := `"` + strings.Repeat("x", 300) + `"`
	if got := defaultFact([]byte(long)); strings.Contains(got, "x") || !strings.Contains(got, "302-byte") {
		t.Errorf("got %q", got)
	}
}
