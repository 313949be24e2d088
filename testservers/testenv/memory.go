package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// ServerMemory returns the command line of the npm package
// @modelcontextprotocol/server-memory served over stdio: node and
// [<root>/testservers/node_modules/@modelcontextprotocol/server-memory/dist/index.js].
// The server keeps its knowledge graph in the file named by the environment
// variable MEMORY_FILE_PATH (a relative path is taken against its dist
// folder). It fails the test (never skips) when node is not on PATH or the
// package is not installed.
func ServerMemory(t testing.TB) (command string, args []string) {
	t.Helper()
	node := nodeCommand(t, "@modelcontextprotocol/server-memory")
	script := filepath.Join(ModuleRoot(t), "testservers", "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("testenv: @modelcontextprotocol/server-memory is missing (%v): %s", err, npmInstall)
	}
	return node, []string{script}
}
