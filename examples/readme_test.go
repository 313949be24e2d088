package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/internal/testenv"
)

// TestReadmeQuickStart compiles the Go of the README's "Quick start"
// against a package generated, as the README says, from a bundle of
// @modelcontextprotocol/server-everything (golden/everything/bundle.json,
// under the package name a fresh export gives).
func TestReadmeQuickStart(t *testing.T) {
	root := testenv.ModuleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, quick, ok := strings.Cut(string(readme), "\n## Quick start\n")
	if !ok {
		t.Fatal("README.md has no Quick start section")
	}
	_, code, ok := strings.Cut(quick, "\n```go\n")
	if ok {
		code, _, ok = strings.Cut(code, "\n```\n")
	}
	if !ok || strings.Contains(quick[:strings.Index(quick, code)], "\n## ") {
		t.Fatal("the Quick start section has no Go block")
	}
	if n := strings.Count(code, "\n") + 1; n > 14 {
		t.Errorf("the Quick start's Go is %d lines; keep it short", n)
	}

	dir, err := os.MkdirTemp(filepath.Join(root, "examples"), "readme-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("run", "./cmd/mcpbind", "generate", "--package", "mcpserverseverything", "golden/everything/bundle.json", "-o", dir)
	pkg := "github.com/mcpbind/mcpbind/examples/" + filepath.Base(dir)
	main := "package main\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"log\"\n\n\t\"github.com/mcpbind/mcpbind/composition\"\n\t\"" +
		pkg + "/mcpserverseverything\"\n)\n\nfunc main() {\n" + code + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	run("vet", "./examples/"+filepath.Base(dir))
}
