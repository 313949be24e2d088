// Package gen renders the IR of a server (ir.Package) into Go source files
// through the embedded templates of templates/, then formats them with
// golang.org/x/tools/imports. It makes no naming or typing decisions: those
// are the IR's (package ir).
package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"golang.org/x/tools/imports"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/ir"
	"github.com/mcpbind/mcpbind/templates"
)

// File is one generated Go source file.
type File struct {
	// Name is the file name inside the package folder ("client.go").
	Name string
	// Content is the formatted source.
	Content []byte
}

// Generator renders IR packages. It parses the templates once; a Generator
// is safe for concurrent use.
type Generator struct {
	tmpl *template.Template
}

// New parses the embedded templates.
func New() (*Generator, error) {
	return newGenerator(templates.FS)
}

// newGenerator parses the *.tmpl files of fsys (tests pass broken ones).
func newGenerator(fsys fs.FS) (*Generator, error) {
	t, err := template.New("mcpbind").Funcs(template.FuncMap{"doc": doc, "inline": inline, "outputFields": outputFields, "stringSlice": stringSlice, "typeInfo": typeInfo, "toolFields": toolFields}).ParseFS(fsys, "*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("parse templates: %w", err)
	}
	return &Generator{tmpl: t}, nil
}

// FormatError is returned when generated source does not format: a bug in
// mcpbind. Raw holds the unformatted source so it can be inspected.
type FormatError struct {
	// File is the file name the source was meant for.
	File string
	// Raw is the unformatted source.
	Raw []byte
	// Err is the formatter's error; it carries line:column positions.
	Err error
}

// Error says which file failed and where.
func (e *FormatError) Error() string {
	return fmt.Sprintf("generated %s does not format (an mcpbind bug): %v", e.File, e.Err)
}

// Unwrap returns the formatter's error.
func (e *FormatError) Unwrap() error { return e.Err }

// Package renders p into formatted Go files, in a fixed order. The output is
// a pure function of p: the same IR gives the same bytes.
func (g *Generator) Package(p *ir.Package) ([]File, error) {
	// Each generated file, the template block that renders it and the
	// packages it imports.
	files := []struct {
		name, block string
		imports     []string
	}{
		{"client.go", "file/client", clientImports(p)},
		{"types.go", "file/types", typesImports(p)},
		{"schemas.go", "file/schemas", []string{importComposition}},
	}
	out := make([]File, 0, len(files))
	planned := map[string][]string{}
	for _, f := range files {
		planned[f.name] = f.imports
		var buf bytes.Buffer
		data := fileData{Package: p, Imports: f.imports}
		if err := g.tmpl.ExecuteTemplate(&buf, f.block, data); err != nil {
			return nil, fmt.Errorf("render %s: %w", f.name, err)
		}
		src, err := imports.Process(f.name, buf.Bytes(), &imports.Options{Comments: true, TabIndent: true, TabWidth: 8, FormatOnly: true})
		if err != nil {
			return nil, &FormatError{File: f.name, Raw: buf.Bytes(), Err: err}
		}
		out = append(out, File{Name: f.name, Content: src})
	}
	if err := verify(p, out, planned); err != nil { // fail closed: see UnsafeOutputError
		return nil, err
	}
	return out, nil
}

// fileData is what a file template renders: the package and the import
// paths the file needs.
type fileData struct {
	*ir.Package
	Imports []string
}

// The import paths generated code uses.
const (
	importContext     = "context"
	importJSON        = "encoding/json"
	importComposition = "github.com/mcpbind/mcpbind/composition"
)

// clientImports lists what client.go needs. Imports are decided here, in
// one place, from the IR, so imports.Process only formats (FormatOnly): it
// never has to search the environment for a package, which keeps output
// independent of the machine.
func clientImports(p *ir.Package) []string {
	imps := []string{importComposition}
	if len(p.Tools) > 0 {
		imps = append(imps, importContext)
	}
	for _, t := range p.Tools {
		if t.Result != nil && t.Result.UsesRawJSON() {
			imps = append(imps, importJSON)
		}
		imps = append(imps, t.Result.ExprImports()...)
	}
	return sortedUnique(imps)
}

// typesImports lists what types.go needs: composition for the types
// table, encoding/json for raw JSON in declarations, and the format
// table's imports.
func typesImports(p *ir.Package) []string {
	imps := []string{importComposition}
	for _, t := range p.Types {
		imps = append(imps, t.DeclImports()...)
		if typeUsesRawJSON(t) {
			imps = append(imps, importJSON)
		}
	}
	return sortedUnique(imps)
}

func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// Write writes files into dir, creating it. Each file is written to a
// temporary file and renamed, so a reader never sees a partial file and a
// failure leaves the earlier file in place. Callers render every file
// before writing any, so a rendering error writes nothing.
func Write(dir string, files []File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := bundle.WriteFile(filepath.Join(dir, f.Name), f.Content); err != nil {
			return err
		}
	}
	return nil
}

// WriteDump writes the raw source of a FormatError as <file>.dump into
// the folder of the package that failed, outDir/<package> (the error must
// be a *PackageError), and returns its path. It never writes into outDir
// itself and never creates outDir: when outDir does not exist it writes
// nothing and returns false.
func WriteDump(outDir string, err error) (string, bool) {
	var fe *FormatError
	var pe *PackageError
	if !errors.As(err, &fe) || !errors.As(err, &pe) {
		return "", false
	}
	if st, serr := os.Stat(outDir); serr != nil || !st.IsDir() {
		return "", false
	}
	dir := filepath.Join(outDir, pe.Package)
	if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
		return "", false
	}
	path := filepath.Join(dir, fe.File+".dump")
	if werr := os.WriteFile(path, fe.Raw, 0o644); werr != nil {
		return "", false
	}
	return path, true
}

// toolFields renders the fields of the composition.Tool literal that
// describes t, on one line; strings are quoted with strconv.Quote and unset
// fields are left out.
func toolFields(t *ir.Tool) string {
	f := []string{"Name: " + strconv.Quote(t.Name)}
	if o := outputFields(t.Output); t.Result != nil && o != "" {
		f = append(f, "Output: composition.Output{"+o+"}")
	}
	f = append(f, "Types: types")
	if t.InputDoc != "" {
		f = append(f, "InputDoc: "+strconv.Quote(t.InputDoc))
	}
	if t.OutputDoc != "" {
		f = append(f, "OutputDoc: "+strconv.Quote(t.OutputDoc))
	}
	if t.NaturalPointer != "" {
		f = append(f, "ResultPointer: "+strconv.Quote(t.NaturalPointer))
	}
	return strings.Join(f, ", ")
}

// outputFields renders the set fields of a composition.Output literal
// ("PlainObject: true, CanBeObject: true"); unset ones are left to their
// zero value.
func outputFields(o ir.Output) string {
	var set []string
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"PlainObject", o.PlainObject},
		{"CanBeObject", o.CanBeObject},
		{"HasResultProperty", o.HasResultProperty},
		{"AlwaysWraps", o.AlwaysWraps},
	} {
		if f.on {
			set = append(set, f.name+": true")
		}
	}
	return strings.Join(set, ", ")
}

// stringSlice renders a Go []string literal.
func stringSlice(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}
