package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateRefusesHandWrittenFiles: generate does not replace a file of
// the package folder that lacks the generated-code header (exit 2, nothing
// written, the message names the file and --force); with --force it does,
// and a folder of generated files is replaced without --force.
func TestGenerateRefusesHandWrittenFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "golden", "sqlite-explorer", "bundle.json")
	pkgDir := filepath.Join(dir, "sqliteexplorer")
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(pkgDir, "types.go")
	const handWritten = "package sqliteexplorer\n\n// My own types.\n"
	if err := os.WriteFile(mine, []byte(handWritten), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runInProcess([]string{"generate", good, "-o", dir}, nil)
	if code != exitInput || !strings.Contains(stderr, mine) || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d, want %d naming %s and --force; stderr: %s", code, exitInput, mine, stderr)
	}
	if data, _ := os.ReadFile(mine); string(data) != handWritten {
		t.Fatalf("the hand-written file changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(pkgDir, "client.go")); !os.IsNotExist(err) {
		t.Fatalf("client.go was written although generate refused: %v", err)
	}
	if _, stderr, code := runInProcess([]string{"generate", good, "-o", dir, "--force"}, nil); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runInProcess([]string{"generate", good, "-o", dir}, nil); code != 0 {
		t.Fatalf("regenerating over generated files: exit %d: %s", code, stderr)
	}
}
