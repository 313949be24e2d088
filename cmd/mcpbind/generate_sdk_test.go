package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateSDK: --sdk go-sdk writes the server.go of the golden case
// generated with it (golden/sqlite-explorer-gosdk), byte for byte; the
// default and --sdk mcp-go write the mcp-go one; an unknown SDK, or --sdk
// without --server, is a usage error.
func TestGenerateSDK(t *testing.T) {
	bundle := filepath.Join("..", "..", "golden", "sqlite-explorer", "bundle.json")
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{nil, "sqlite-explorer"},
		{[]string{"--sdk", "mcp-go"}, "sqlite-explorer"},
		{[]string{"--sdk", "go-sdk"}, "sqlite-explorer-gosdk"},
	} {
		dir := t.TempDir()
		args := append([]string{"generate", "--server", bundle, "-o", dir}, tc.args...)
		if _, stderr, code := runInProcess(args, nil); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		got, err := os.ReadFile(filepath.Join(dir, "sqliteexplorer", "server.go"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "golden", tc.golden, "sqliteexplorer", "server.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%q: server.go is not golden/%s's", tc.args, tc.golden)
		}
	}
	for _, args := range [][]string{
		{"generate", "--server", "--sdk", "grpc", bundle, "-o", t.TempDir()},
		{"generate", "--sdk", "go-sdk", bundle, "-o", t.TempDir()},
	} {
		_, stderr, code := runInProcess(args, nil)
		if code != exitInput || !strings.Contains(stderr, "--sdk") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error about --sdk", args, code, stderr)
		}
	}
}
