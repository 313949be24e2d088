package gosdk_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestOnlyThisPackageLinksGoSDK: composition and the mcpbind command link
// no go-sdk package (mcp-go users do not link go-sdk); composition/gosdk
// does, which shows the listing sees it.
func TestOnlyThisPackageLinksGoSDK(t *testing.T) {
	const goSDK = "github.com/modelcontextprotocol/go-sdk"
	deps := func(pkgs ...string) []string {
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{"list", "-deps"}, pkgs...)...)
		cmd.Dir = testenv.ModuleRoot(t)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", strings.Join(pkgs, " "), err)
		}
		var hits []string
		for _, p := range strings.Fields(string(out)) {
			if p == goSDK || strings.HasPrefix(p, goSDK+"/") {
				hits = append(hits, p)
			}
		}
		return hits
	}
	if hits := deps("./composition", "./cmd/mcpbind"); len(hits) != 0 {
		t.Errorf("composition or cmd/mcpbind links go-sdk: %v", hits)
	}
	if hits := deps("./composition/gosdk"); len(hits) == 0 {
		t.Errorf("go list -deps ./composition/gosdk lists no go-sdk package; the check above sees nothing")
	}
}
