// Package gen renders the IR of a server (ir.Package) into Go source files
// through the embedded templates of templates/, then formats them with
// golang.org/x/tools/imports. It makes no naming or typing decisions: those
// are the IR's (DESIGN §1).
package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	t, err := template.New("mcpbind").Funcs(template.FuncMap{"doc": doc, "outputFields": outputFields}).ParseFS(templates.FS, "*.tmpl")
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
	// Each generated file and the template block that renders it.
	files := []struct{ name, block string }{
		{"client.go", "file/client"},
		{"types.go", "file/types"},
	}
	out := make([]File, 0, len(files))
	for _, f := range files {
		var buf bytes.Buffer
		if err := g.tmpl.ExecuteTemplate(&buf, f.block, p); err != nil {
			return nil, fmt.Errorf("render %s: %w", f.name, err)
		}
		src, err := imports.Process(f.name, buf.Bytes(), &imports.Options{Comments: true, TabIndent: true, TabWidth: 8, FormatOnly: false})
		if err != nil {
			return nil, &FormatError{File: f.name, Raw: buf.Bytes(), Err: err}
		}
		out = append(out, File{Name: f.name, Content: src})
	}
	return out, nil
}

// Write writes files into dir, creating it. Each file is written to a
// temporary file and renamed, so a reader never sees a partial file and a
// failure leaves the earlier file in place. Callers render every file
// before writing any, so a rendering error writes nothing.
func Write(dir string, fs []File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range fs {
		if err := bundle.WriteFile(filepath.Join(dir, f.Name), f.Content); err != nil {
			return err
		}
	}
	return nil
}

// WriteDump writes the raw source of a FormatError beside its target as
// <file>.dump and returns its path.
func WriteDump(dir string, err error) (string, bool) {
	var fe *FormatError
	if !errors.As(err, &fe) {
		return "", false
	}
	if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
		return "", false
	}
	path := filepath.Join(dir, fe.File+".dump")
	if werr := os.WriteFile(path, fe.Raw, 0o644); werr != nil {
		return "", false
	}
	return path, true
}

// doc renders comment lines as Go line comments ("// text", "//" for blank
// lines). Every line is prefixed, so no text can end the comment early.
func doc(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if l == "" {
			b.WriteString("//")
			continue
		}
		b.WriteString("// ")
		b.WriteString(l)
	}
	return b.String()
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
