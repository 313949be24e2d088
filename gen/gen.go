// Package gen renders the IR of a server (ir.Package) into Go source files
// through the embedded templates of templates/, then formats them with
// go/format. It makes no naming or typing decisions: those are the IR's
// (package ir).
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
	"sync"
	"text/template"

	"github.com/mcpbind/mcpbind/internal/rawjson"
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
	return NewWithTemplates(templates.FS)
}

// NewWithTemplates parses the *.tmpl files of fsys instead of the embedded
// ones: fsys must define the same named blocks as templates/. It exists so
// that tests can render through broken or hostile templates and see the
// generator refuse their output (FormatError, UnsafeOutputError).
func NewWithTemplates(fsys fs.FS) (*Generator, error) {
	t, err := template.New("mcpbind").Funcs(template.FuncMap{"doc": doc, "inline": inline, "outputFields": outputFields, "stringSlice": stringSlice, "typeInfo": typeInfo, "toolFields": toolFields, "pinnedTools": pinnedTools, "serverTool": serverTool, "legacyOutput": legacyOutput, "runtimeGuard": runtimeGuard}).ParseFS(fsys, "*.tmpl")
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
	return g.packageFiles(p, false, SDKMCPGo)
}

// PackageWithServer is Package plus server.go (generate --server): the
// Handler interface and the Register function that serves the package's
// tools on an mcp-go server through composition.Serve.
func (g *Generator) PackageWithServer(p *ir.Package) ([]File, error) {
	return g.packageFiles(p, true, SDKMCPGo)
}

// PackageWithServerOn is PackageWithServer with server.go for sdk: on
// go-sdk, Register takes a *mcp.Server and serves through gosdk.Serve.
func (g *Generator) PackageWithServerOn(p *ir.Package, sdk SDK) ([]File, error) {
	return g.packageFiles(p, true, sdk)
}

// SDK is an MCP SDK a generated server.go serves on (generate --sdk).
type SDK uint8

const (
	// SDKMCPGo is github.com/mark3labs/mcp-go: Register(s
	// *server.MCPServer, …) through composition.Serve (the default).
	SDKMCPGo SDK = iota
	// SDKGoSDK is the official github.com/modelcontextprotocol/go-sdk:
	// Register(s *mcp.Server, …) through composition/gosdk.Serve.
	SDKGoSDK
)

// String is the SDK's name as --sdk takes it.
func (s SDK) String() string {
	switch s {
	case SDKMCPGo:
		return "mcp-go"
	case SDKGoSDK:
		return "go-sdk"
	}
	return "SDK(" + strconv.Itoa(int(s)) + ")"
}

// ParseSDK returns the SDK named name ("mcp-go" or "go-sdk", as
// SDK.String writes them); the error names the choices for any other.
func ParseSDK(name string) (SDK, error) {
	for _, s := range []SDK{SDKMCPGo, SDKGoSDK} {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown SDK %s: want %q or %q", strconv.Quote(name), SDKMCPGo.String(), SDKGoSDK.String())
}

func (g *Generator) packageFiles(p *ir.Package, withServer bool, sdk SDK) ([]File, error) {
	// Each generated file, the template block that renders it and the
	// packages it imports.
	type file struct {
		name, block string
		imports     []string
	}
	files := []file{
		{"client.go", "file/client", clientImports(p)},
		{"types.go", "file/types", typesImports(p)},
		{"schemas.go", "file/schemas", []string{importBindimpl}},
	}
	switch {
	case withServer && sdk == SDKGoSDK:
		files = append(files, file{"server.go", "file/server-gosdk", serverImportsGoSDK(p)})
	case withServer:
		files = append(files, file{"server.go", "file/server", serverImports(p)})
	}
	// Render and format the files concurrently; each goroutine writes only
	// its own slot, so the output order stays fixed.
	out := make([]File, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			out[i], errs[i] = g.render(p, f.name, f.block, f.imports, sdk)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first file's error, as when rendering in turn
		}
	}
	planned := map[string][]string{}
	for _, f := range files {
		planned[f.name] = f.imports
	}
	if err := verify(p, out, planned); err != nil { // fail closed: see UnsafeOutputError
		return nil, err
	}
	return out, nil
}

// render executes one file template and formats the result once. The
// imports are decided by the IR (clientImports, typesImports), so there is
// nothing to resolve: they are only ordered and grouped the way goimports
// orders them (standard library, then the rest, a blank line between),
// and formatFile formats the file once (twice when wrapLiterals splits a
// long literal).
func (g *Generator) render(p *ir.Package, name, block string, imps []string, sdk SDK) (File, error) {
	imps = goimportsOrder(imps)
	var buf bytes.Buffer
	data := fileData{Package: p, Imports: imps, GoSDK: sdk == SDKGoSDK}
	if err := g.tmpl.ExecuteTemplate(&buf, block, data); err != nil {
		return File{}, fmt.Errorf("render %s: %w", name, err)
	}
	src, err := formatFile(name, separateImportGroups(buf.Bytes(), imps))
	if err != nil {
		return File{}, err
	}
	if src, _, err = wrapLiterals(name, src); err != nil {
		return File{}, err
	}
	return File{Name: name, Content: src}, nil
}

// importGroup is goimports' group of an import path: 0 for the standard
// library, 1 for a path whose first element has a dot, 2 for appengine.
func importGroup(path string) int {
	switch first, _, _ := strings.Cut(path, "/"); {
	case strings.HasPrefix(path, "appengine"):
		return 2
	case strings.Contains(first, "."):
		return 1
	}
	return 0
}

// goimportsOrder sorts import paths by group, then path.
func goimportsOrder(imps []string) []string {
	imps = slices.Clone(imps)
	slices.SortStableFunc(imps, func(a, b string) int {
		if ga, gb := importGroup(a), importGroup(b); ga != gb {
			return ga - gb
		}
		return strings.Compare(a, b)
	})
	return imps
}

// separateImportGroups inserts a blank line before the first import of
// each group after the first in the import block of src, as goimports
// does; src lists imps one per line, in goimportsOrder.
func separateImportGroups(src []byte, imps []string) []byte {
	start := bytes.Index(src, []byte("\nimport ("))
	if start < 0 {
		return src
	}
	for i := len(imps) - 1; i > 0; i-- {
		if importGroup(imps[i]) == importGroup(imps[i-1]) {
			continue
		}
		line := []byte("\n\t" + strconv.Quote(imps[i]) + "\n")
		at := bytes.Index(src[start:], line)
		if at < 0 {
			continue
		}
		at += start + 1
		src = slices.Insert(slices.Clip(src), at, '\n')
	}
	return src
}

// fileData is what a file template renders: the package and the import
// paths the file needs.
type fileData struct {
	*ir.Package
	Imports []string
	// GoSDK: server.go serves on go-sdk (generate --server --sdk go-sdk).
	GoSDK bool
}

// RuntimeVersion is the version of the mcpbind runtime (composition/bindimpl) that generated
// code needs: client.go references bindimpl.SupportPackageIsVersionN
// for it (runtimeGuard), so a package built against an older runtime fails
// to build. Bump it, and add the constant to composition/bindimpl, when the
// templates start using something of composition that older runtimes lack
// (see bindimpl.SupportPackageIsVersion1).
const RuntimeVersion = 1

// runtimeGuard renders the constant generated code references for
// RuntimeVersion.
func runtimeGuard() string {
	return "bindimpl.SupportPackageIsVersion" + strconv.Itoa(RuntimeVersion)
}

// The import paths generated code uses.
const (
	importContext     = "context"
	importJSON        = "encoding/json"
	importComposition = "github.com/mcpbind/mcpbind/composition"
	importBindimpl    = "github.com/mcpbind/mcpbind/composition/bindimpl"
	importMCPServer   = "github.com/mark3labs/mcp-go/server"
	importGoSDKMCP    = "github.com/modelcontextprotocol/go-sdk/mcp"
	importGoSDK       = "github.com/mcpbind/mcpbind/composition/gosdk"
)

// clientImports lists what client.go needs. Imports are decided here, in
// one place, from the IR, so imports.Process only formats (FormatOnly): it
// never has to search the environment for a package, which keeps output
// independent of the machine.
func clientImports(p *ir.Package) []string {
	imps := []string{importComposition, importBindimpl}
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

// serverImports lists what server.go needs: what the Handler's method
// signatures need (as client.go), bindimpl for the served tools and
// mcp-go's server package.
func serverImports(p *ir.Package) []string {
	return sortedUnique(append(clientImports(p), importMCPServer))
}

// serverImportsGoSDK lists what server.go needs on go-sdk: what the
// Handler's method signatures need (as client.go), bindimpl for the served
// tools, go-sdk's mcp package and composition/gosdk.
func serverImportsGoSDK(p *ir.Package) []string {
	return sortedUnique(append(clientImports(p), importGoSDKMCP, importGoSDK))
}

// serverTool renders t's tool object, as the bundle holds it, as a Go
// string constant for bindimpl.Handle: a literal, joined with the
// constants of the package's SharedMembers where the object holds one; its outputSchema is the one the
// IR decided to list toward 2026-07-28 sessions (Tool.ListedOutputSchema,
// when set). An inputSchema or outputSchema
// member that is byte for byte the tool's document in schemas.go (the
// schema needed no normalization) is left out: the runtime takes it from
// the package's SchemaSet, so the schema is in the package once.
func serverTool(p *ir.Package, t *ir.Tool) (string, error) {
	kept, err := p.ServedMembers(t)
	if err != nil {
		return "", err
	}
	shared := map[[2]string]string{}
	for _, m := range p.SharedMembers {
		shared[[2]string{m.Key, m.JSON}] = m.Const
	}
	// The object as rawjson.Object writes it, with each shared member's
	// value replaced by its constant: "{…\"icons\":" + iconsX + ",…}".
	var expr []string
	var text strings.Builder
	text.WriteByte('{')
	for i, m := range kept {
		one, err := rawjson.Object([]rawjson.Member{m})
		if err != nil {
			return "", fmt.Errorf("tool %q: %w", t.Name, err)
		}
		member := string(one[1 : len(one)-1]) // "key":value
		if i > 0 {
			text.WriteByte(',')
		}
		key := string(rawjson.Key(m.Key))
		value := member[len(key)+1:]
		if c, ok := shared[[2]string{m.Key, value}]; ok {
			text.WriteString(key + ":")
			expr = append(expr, strconv.Quote(text.String()), c)
			text.Reset()
			continue
		}
		text.WriteString(member)
	}
	text.WriteByte('}')
	expr = append(expr, strconv.Quote(text.String()))
	return strings.Join(expr, " + "), nil
}

// legacyOutput renders the call that gives a served tool the outputSchema
// the IR decided to list toward sessions before 2026-07-28
// (".WithLegacyOutputSchema(…)"), or "" when the tool is listed alike in
// both eras.
func legacyOutput(t *ir.Tool) string {
	if t.LegacyOutputSchema == nil {
		return ""
	}
	return ".WithLegacyOutputSchema(" + strconv.Quote(string(t.LegacyOutputSchema)) + ")"
}

// typesImports lists what types.go needs: bindimpl for the types table,
// composition for a composition.Nullable field, encoding/json for raw JSON
// in declarations, and the format table's imports.
func typesImports(p *ir.Package) []string {
	imps := []string{importBindimpl}
	for _, t := range p.Types {
		imps = append(imps, t.DeclImports()...)
		for _, f := range t.Fields {
			if f.Wrap == ir.WrapNullable {
				imps = append(imps, importComposition)
			}
		}
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

// toolFields renders the fields of the bindimpl.Tool literal that
// describes t, on one line; strings are quoted with strconv.Quote and unset
// fields are left out.
func toolFields(t *ir.Tool) string {
	f := []string{"Name: " + strconv.Quote(t.Name)}
	if o := outputFields(t.Output); t.Result != nil && o != "" {
		f = append(f, "Output: bindimpl.Output{"+o+"}")
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
	if t.ReadOnly {
		f = append(f, "ReadOnly: true")
	}
	if t.Idempotent {
		f = append(f, "Idempotent: true")
	}
	if t.Digest != "" {
		f = append(f, "Digest: "+strconv.Quote(t.Digest))
	}
	return strings.Join(f, ", ")
}

// pinnedTools renders the addresses of the descriptor variables of the
// tools that have a digest as the elements of a slice literal:
// "\n\t\t&toolA, &toolB,…," packed into lines of about 100 columns; "" when
// no tool has one.
func pinnedTools(tools []*ir.Tool) string {
	var b strings.Builder
	col := 100
	for _, t := range tools {
		if t.Digest == "" {
			continue
		}
		name := "&" + t.DescriptorVar() + ","
		if col+len(name)+1 > 100 {
			b.WriteString("\n\t\t")
			col = 16
		} else {
			b.WriteString(" ")
			col++
		}
		b.WriteString(name)
		col += len(name)
	}
	return b.String()
}

// outputFields renders the set fields of a bindimpl.Output literal
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
