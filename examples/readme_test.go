package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
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

// TestReadmeFacts checks the README's lines that state a fact of this
// repository, so they cannot drift from it: every //go:generate line runs
// mcpbind through the tool directive (`go run` of the command fails from
// another module); the Node.js minimum is the one .ci/run enforces; the Go
// minimum of the tool directive section is the module's go line; and the
// Development section counts and names every golden bundle.
func TestReadmeFacts(t *testing.T) {
	root := testenv.ModuleRoot(t)
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme := read("README.md")

	n := 0
	for line := range strings.Lines(readme) {
		if strings.HasPrefix(line, "//go:generate ") {
			n++
			if !strings.HasPrefix(line, "//go:generate go tool mcpbind ") {
				t.Errorf("README: %q does not run mcpbind with `go tool mcpbind`", strings.TrimSpace(line))
			}
		}
	}
	if n < 4 {
		t.Errorf("README has %d //go:generate lines; the composing section alone has 4", n)
	}

	node := regexp.MustCompile(`Node\.js (\d+\.\d+) or later is needed`).FindStringSubmatch(read(".ci/run"))
	if node == nil {
		t.Fatal(".ci/run states no Node.js minimum")
	}
	if !strings.Contains(readme, "Node.js "+node[1]+" or later") {
		t.Errorf("README does not say Node.js %s or later, the minimum .ci/run enforces", node[1])
	}

	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(read("go.mod"))
	_, directive, _ := strings.Cut(readme, "### In your own module: the tool directive\n")
	if goLine == nil || !strings.HasPrefix(strings.TrimSpace(directive), "With Go "+goLine[1]+" or later") {
		t.Errorf("the tool directive section does not start with the module's minimum, Go %v", goLine)
	}

	bundles, err := filepath.Glob(filepath.Join(root, "golden", "*", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, dev, _ := strings.Cut(readme, "\n## Development\n")
	dev, _, _ = strings.Cut(dev, "\n- `make mutate`")
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if len(bundles) >= len(words) || !strings.Contains(dev, " "+words[len(bundles)]+" golden bundles") &&
		!strings.Contains(dev, "\n  "+words[len(bundles)]+" golden bundles") {
		t.Errorf("the Development section does not count the %d golden bundles", len(bundles))
	}
	for _, b := range bundles {
		if name := filepath.Base(filepath.Dir(b)); !strings.Contains(dev, "`"+name+"`") {
			t.Errorf("the Development section does not name the golden bundle %s", name)
		}
	}
}
