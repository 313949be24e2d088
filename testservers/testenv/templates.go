package testenv

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpbind/mcpbind/templates"
)

// UnplannedDecl is the top-level declaration that [UnplannedTemplates]
// adds to every generated types.go.
const UnplannedDecl = "var Injected = \"a declaration the IR did not plan\""

// UnplannedTemplates returns the embedded templates of templates/ with
// [UnplannedDecl] added after the imports of types.go, for tests that check
// that generation fails closed (gen.UnsafeOutputError) and writes nothing.
func UnplannedTemplates(t testing.TB) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(templates.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templates.FS, path)
		out[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const imports, next = "{{template \"imports\" .Imports}}\n", "{{range .Types}}"
	const anchor = imports + next
	types := string(out["types.tmpl"].Data)
	if strings.Count(types, anchor) != 1 {
		t.Fatalf("templates/types.tmpl: want one %q to inject into", anchor)
	}
	out["types.tmpl"].Data = []byte(strings.Replace(types, anchor, imports+"\n"+UnplannedDecl+"\n"+next, 1))
	return out
}
