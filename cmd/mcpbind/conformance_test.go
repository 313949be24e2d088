package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/internal/testenv"
)

// TestConformance runs the client scenarios of @modelcontextprotocol/
// conformance (npm, pinned in testservers/package.json) with `mcpbind call`
// as the client under test. The suite's test servers listen on 127.0.0.1
// (testservers/conformance-loopback.cjs); on Node.js 20 the suite needs
// fs.globSync from testservers/globsync-polyfill.cjs. A missing node or
// package fails the test.
func TestConformance(t *testing.T) {
	root := testenv.ModuleRoot(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the MCP conformance suite needs node, which is missing from PATH: install Node.js 20 or later, then run `npm ci --prefix testservers` (.ci/run does it)")
	}
	suite := filepath.Join(root, "testservers", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("@modelcontextprotocol/conformance is missing (%v): run `npm ci --prefix testservers` (.ci/run does it)", err)
	}
	bin := testenv.Build(t, "./cmd/mcpbind")

	// scenarios are the client scenarios of the MCP conformance suite
	// that `mcpbind call` must pass, with the call that each one's test server
	// expects. The suite appends the server's URL to the command.
	//
	// Every scenario runs with default negotiation. tools_call's server is
	// built on the TypeScript SDK, which refuses server/discover; the
	// servers of initialize and sse-retry answer every unknown method,
	// server/discover among them, with an empty result, which composition
	// does not take for a 2026-07-28 server (no supportedVersions), so it
	// falls back to initialize as a legacy client must.
	scenarios := []struct {
		name string
		call []string
	}{
		{"initialize", []string{"--list"}},
		{"tools_call", []string{"add_numbers", "--args", `{"a":2,"b":3}`}},
		{"sse-retry", []string{"test_reconnection"}},
	}

	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			// The suite splits the command at spaces and runs it with a
			// shell, so each word is quoted for the shell.
			words := []string{shellQuote(bin), "call"}
			for _, a := range sc.call {
				words = append(words, shellQuote(a))
			}
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node,
				"--require", filepath.Join(root, "testservers", "globsync-polyfill.cjs"),
				"--require", filepath.Join(root, "testservers", "conformance-loopback.cjs"),
				suite, "client",
				"--command", strings.Join(words, " "),
				"--scenario", sc.name,
				"--timeout", "60000",
				"-o", out)
			cmd.Dir = root
			output, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("conformance client --scenario %s: %v", sc.name, err)
			}
			checks := readChecks(t, out)
			passed := 0
			for _, c := range checks {
				switch c.Status {
				case "SUCCESS":
					passed++
				case "FAILURE", "WARNING":
					t.Errorf("check %s: %s: %s %s", c.ID, c.Status, c.Description, c.ErrorMessage)
				}
			}
			if passed == 0 {
				t.Errorf("no check passed")
			}
			if t.Failed() {
				t.Logf("conformance output:\n%s", output)
			} else {
				t.Logf("%d checks passed", passed)
			}
		})
	}
}

// check is one entry of the suite's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads the checks.json the suite wrote into a folder of dir.
func readChecks(t *testing.T, dir string) []check {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("want one checks.json under %s, found %v", dir, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []check
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	return checks
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
