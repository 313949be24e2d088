package gen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/ir"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

func loadGolden(tb testing.TB, name string) *bundle.Bundle {
	tb.Helper()
	b, err := bundle.Load(filepath.Join("..", "golden", name, "bundle.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestFormatErrorDumpsRawSource renders through a template that produces
// invalid Go: generation must fail with the position, naming server and
// tool, and the raw source must be written into the package's folder as
// <file>.dump, never into the -o folder itself nor creating it.
func TestFormatErrorDumpsRawSource(t *testing.T) {
	broken := fstest.MapFS{
		"broken.tmpl": {Data: []byte(`{{define "file/client"}}package {{.Name}}
func broken( {{end}}{{define "file/types"}}package {{.Name}}{{end}}`)},
	}
	g, err := NewWithTemplates(broken)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Bundle(loadGolden(t, "hostile"), Options{})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.File != "client.go" || !strings.Contains(err.Error(), "client.go:2:") {
		t.Fatalf("err = %v, want a FormatError for client.go with its position", err)
	}
	var pe *PackageError
	if !errors.As(err, &pe) || pe.Server != "hostile" || pe.Tool == "" || !strings.Contains(err.Error(), `server "hostile", tool `) {
		t.Fatalf("err = %v, want a PackageError naming server and tool", err)
	}
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	if path, ok := WriteDump(missing, err); ok {
		t.Fatalf("WriteDump into a missing -o folder wrote %s", path)
	}
	if _, serr := os.Stat(missing); !os.IsNotExist(serr) {
		t.Fatalf("WriteDump created the -o folder: %v", serr)
	}
	path, ok := WriteDump(dir, err)
	if !ok || path != filepath.Join(dir, pe.Package, "client.go.dump") {
		t.Fatalf("WriteDump = %q, %v; want it in the package folder", path, ok)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), "func broken(") {
		t.Fatalf("dump holds %q", raw)
	}
}

func TestPackageOptionNeedsOneServerAndAValidName(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b := loadGolden(t, "hostile")
	if _, err := g.Bundle(b, Options{Package: "type"}); err == nil || !strings.Contains(err.Error(), "not a valid Go package name") {
		t.Fatalf("--package type: %v", err)
	}
	outs, err := g.Bundle(b, Options{Package: "notes"})
	if err != nil || outs[0].Package != "notes" || !strings.Contains(string(outs[0].Files[0].Content), "\npackage notes\n") {
		t.Fatalf("--package notes: %v", err)
	}
	two := &bundle.Bundle{BundleVersion: 1, Servers: []bundle.Server{b.Servers[0], b.Servers[0]}}
	two.Servers[1].ID = "hostile2"
	if _, err := g.Bundle(two, Options{Package: "notes"}); err == nil {
		t.Fatal("--package with two servers: no error")
	}
}

// TestBadSchemaNamesServerToolAndPointer: an external $ref cannot be typed;
// the error must say where it is.
func TestBadSchemaNamesServerToolAndPointer(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tool, err := bundle.NewTool([]byte(`{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"$ref":"other.json#/x"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b := &bundle.Bundle{BundleVersion: 1, Servers: []bundle.Server{{ID: "srv", Tools: []bundle.Tool{tool}}}}
	_, err = g.Bundle(b, Options{})
	var ie *ir.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `server "srv", tool "t", inputSchema#/properties/a/properties/b`) {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkGenerateEverything measures bundle → IR → templates →
// imports.Process for the server-everything bundle (13 tools).
func BenchmarkGenerateEverything(b *testing.B) {
	g, err := New()
	if err != nil {
		b.Fatal(err)
	}
	bun := loadGolden(b, "everything")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Bundle(bun, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate1000Tools measures generation of a synthetic bundle of
// 1,000 tools, each with a nested input object, an enum, a union and an
// array-of-objects result (issue 3's scale check).
func BenchmarkGenerate1000Tools(b *testing.B) {
	benchGenerate(b, syntheticTools(b, 1000))
}

// TestBundleFailsClosed renders through templates that add a top-level
// declaration the IR did not plan (testenv.UnplannedTemplates): Bundle must
// refuse with an UnsafeOutputError naming types.go and return no output,
// with and without server.go.
func TestBundleFailsClosed(t *testing.T) {
	g, err := NewWithTemplates(testenv.UnplannedTemplates(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, server := range []bool{false, true} {
		outs, err := g.Bundle(loadGolden(t, "sqlite-explorer"), Options{Server: server})
		var ue *UnsafeOutputError
		if !errors.As(err, &ue) || ue.File != "types.go" || !strings.Contains(ue.What, "Injected") || outs != nil {
			t.Fatalf("server %t: %d outputs, err = %v; want no output and an UnsafeOutputError for types.go naming Injected", server, len(outs), err)
		}
	}
}
