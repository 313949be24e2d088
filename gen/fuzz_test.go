package gen

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/ir"
	"github.com/mcpbind/mcpbind/testservers/gencheck"
	"github.com/mcpbind/mcpbind/testservers/servecheck"
)

// compositionStub and bindimplStub declare the part of packages
// composition and composition/bindimpl that generated code uses, so the
// fuzz target can type-check output without loading the real packages (and
// their dependencies) on every input. TestStubMatchesGolden keeps them
// honest: the golden packages must type-check against them too.
const compositionStub = `package composition
import (
	"context"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)
type Session struct{}
type Result struct{}
func (s *Session) Invoke(ctx context.Context, tool *bindimpl.Tool, args any, out any) error { return nil }
type Caller interface { Invoke(ctx context.Context, tool *bindimpl.Tool, args any, out any) error }
type Registry struct{}
func (r *Registry) Server(id string) Caller { return nil }
type Nullable[T any] = bindimpl.Nullable[T]
type Pins struct { Digest, ProtocolVersion string; Tools []*bindimpl.Tool }
type ServedTool = bindimpl.ServedTool
type ServerOption struct{}
func Serve(s *server.MCPServer, tools []bindimpl.ServedTool, opts ...ServerOption) error { return nil }
func NotImplemented(name string) error { return nil }
func Forwarding(c Caller, tools ...string) ServerOption { return ServerOption{} }
`

const bindimplStub = `package bindimpl
import (
	"context"
	"reflect"
)
const SupportPackageIsVersion1 = true
type Output struct{ PlainObject, CanBeObject, HasResultProperty, AlwaysWraps bool }
type SchemaSet struct{}
func NewSchemaSet(docs map[string]string) *SchemaSet { return nil }
type Tool struct { Name string; Output Output; Schemas *SchemaSet; Types *Types; InputDoc, OutputDoc string; ResultPointer string; ReadOnly, Idempotent bool; Digest string }
type TypeInfo struct { Doc, Pointer string; Base reflect.Type; Required []string; Closed bool; Extra string; Defaults map[string]string; Tag, TagValue string; Union UnionBy; UnionTag string; Cases []string; Tuple, MinItems int; Raw bool }
type UnionBy uint8
const ( _ UnionBy = iota; UnionByTag; UnionByKind; UnionByRequired )
func Describe[T any](info TypeInfo) TypeInfo { return info }
func TypeOf[T any]() reflect.Type { return nil }
type Types struct{}
func NewTypes(schemas *SchemaSet, infos ...TypeInfo) *Types { return nil }
func (t *Types) Marshal(v any) ([]byte, error) { return nil, nil }
func (t *Types) Unmarshal(data []byte, v any) error { return nil }
func (t *Types) Validate(v any) error { return nil }
type Nullable[T any] struct { Value T; Set, Null bool }
type Invoker interface { Invoke(ctx context.Context, tool *Tool, args any, out any) error }
func CallAs[T any](ctx context.Context, c Invoker, tool *Tool, args any) (T, error) { var zero T; return zero, nil }
type ServedTool struct{}
func (st ServedTool) WithLegacyOutputSchema(outputSchema string) ServedTool { return st }
func Handle[A, R any](tool Tool, toolJSON string, f func(context.Context, A) (R, error)) ServedTool { return ServedTool{} }
func HandleNoArgs[R any](tool Tool, toolJSON string, f func(context.Context) (R, error)) ServedTool { return ServedTool{} }
`

// goSDKStub and goSDKMCPStub are the parts of composition/gosdk and of
// go-sdk's mcp package that server.go uses with --sdk go-sdk.
const goSDKStub = `package gosdk
import (
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)
type ServerOption struct{}
func Serve(s *mcp.Server, tools []bindimpl.ServedTool, opts ...ServerOption) error { return nil }
`

const goSDKMCPStub = `package mcp
type Server struct{}
`

// mcpServerStub is the part of mcp-go's server package that server.go
// (generate --server) uses.
const mcpServerStub = `package server
type MCPServer struct{}
`

// checker type-checks generated packages against the composition stub and
// the standard library (from source, cached per checker).
type checker struct {
	fset *token.FileSet
	std  types.ImporterFrom
	comp *types.Package
	bind *types.Package
	srv  *types.Package
	// gosdk and mcp are composition/gosdk and go-sdk's mcp package.
	gosdk, mcp *types.Package
}

func newChecker(t testing.TB) *checker {
	fset := token.NewFileSet()
	c := &checker{fset: fset, std: importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)}
	sf, err := parser.ParseFile(fset, "server.go", mcpServerStub, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.srv, err = (&types.Config{Importer: c.std}).Check("github.com/mark3labs/mcp-go/server", fset, []*ast.File{sf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := parser.ParseFile(fset, "bindimpl.go", bindimplStub, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.bind, err = (&types.Config{Importer: c.std}).Check("github.com/mcpbind/mcpbind/composition/bindimpl", fset, []*ast.File{bf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := parser.ParseFile(fset, "mcp.go", goSDKMCPStub, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.mcp, err = (&types.Config{Importer: c.std}).Check("github.com/modelcontextprotocol/go-sdk/mcp", fset, []*ast.File{mf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gf, err := parser.ParseFile(fset, "gosdk.go", goSDKStub, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.gosdk, err = (&types.Config{Importer: c}).Check("github.com/mcpbind/mcpbind/composition/gosdk", fset, []*ast.File{gf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, "composition.go", compositionStub, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: c}
	c.comp, err = conf.Check("github.com/mcpbind/mcpbind/composition", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *checker) Import(path string) (*types.Package, error) {
	switch path {
	case "github.com/mcpbind/mcpbind/composition":
		return c.comp, nil
	case "github.com/mcpbind/mcpbind/composition/bindimpl":
		return c.bind, nil
	case "github.com/mark3labs/mcp-go/server":
		return c.srv, nil
	case "github.com/mcpbind/mcpbind/composition/gosdk":
		return c.gosdk, nil
	case "github.com/modelcontextprotocol/go-sdk/mcp":
		return c.mcp, nil
	}
	return c.std.ImportFrom(path, "", 0)
}

// check parses and type-checks generated files as one package.
func (c *checker) check(files []File) error {
	var asts []*ast.File
	for _, f := range files {
		a, err := parser.ParseFile(c.fset, f.Name, f.Content, parser.ParseComments)
		if err != nil {
			return err
		}
		asts = append(asts, a)
	}
	conf := types.Config{Importer: c}
	_, err := conf.Check("generated", c.fset, asts, nil)
	return err
}

// FuzzGenerate feeds mutated schemas to the generator as a tool's
// inputSchema and outputSchema, together with every other string a server
// controls: the tool's name, title and description, its
// pmcp:outputTypeName annotation, serverInfo.name and serverInfo.version,
// and the bundle's protocol version. Either the IR refuses the input with
// an *ir.Error, or the generated package parses, type-checks, declares
// only what the IR planned and holds no directive (checkOnlyPlanned, which
// does not rely on the generator's own verifier). The seed corpus (every
// schema of the golden bundles, a few shapes and the hostile strings)
// runs in every `go test`.
func FuzzGenerate(f *testing.F) {
	add := func(schema string) { f.Add(schema, "fuzz", "", "", "", "", "", "2025-06-18") }
	for _, seed := range goldenSchemas(f) {
		add(seed)
	}
	for _, seed := range []string{
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`{"allOf":[{"$ref":"#/$defs/x"},{"properties":{"y":{"const":1}}}],"$defs":{"x":{"properties":{"z":{}}}}}`,
		`{"type":"array","prefixItems":[{"type":"boolean"},{"$ref":"#"}],"items":false}`,
		`{"oneOf":[{"properties":{"k":{"const":"a"}},"required":["k"]},{"properties":{"k":{"const":"b"}},"required":["k"]}]}`,
		`{"enum":["a","A",1,null]}`, `true`, `false`, `{"type":["object","null"]}`,
		`{"$id":"https://x/y.json","$defs":{"a":{"$anchor":"n","type":"integer"}},"properties":{"r":{"$ref":"#n"}}}`,
	} {
		add(seed)
	}
	for _, h := range hostileStrings {
		f.Add(`{"type":"object","properties":{"p":{"type":"string","format":`+jsonString(h)+`}}}`, h, h, h, h, h, h, h)
	}
	g, err := New()
	if err != nil {
		f.Fatal(err)
	}
	c := newChecker(f)
	f.Fuzz(func(t *testing.T, schema, name, title, description, outputTypeName, serverName, serverVersion, protocolVersion string) {
		if !json.Valid([]byte(schema)) {
			return
		}
		in := `{"type":"object","properties":{"in":` + schema + `}}`
		raw := `{"name":` + jsonString(name) + `,"title":` + jsonString(title) + `,"description":` + jsonString(description) +
			`,"annotations":{"pmcp:outputTypeName":` + jsonString(outputTypeName) + `},"inputSchema":` + in + `,"outputSchema":` + schema + `}`
		tool, err := bundle.NewTool(json.RawMessage(raw))
		if err != nil {
			return
		}
		info, _ := json.Marshal(map[string]string{"name": serverName, "version": serverVersion})
		b := &bundle.Bundle{BundleVersion: 1, Servers: []bundle.Server{{ID: "fuzz", ServerInfo: info, ProtocolVersion: protocolVersion, Tools: []bundle.Tool{tool}}}}
		outs, err := g.Bundle(b, Options{Server: true})
		if err != nil {
			var ie *ir.Error
			if !errors.As(err, &ie) {
				t.Fatalf("tool %s: error without a location: %v", raw, err)
			}
			return
		}
		if err := c.check(outs[0].Files); err != nil {
			t.Fatalf("tool %s: generated code does not type-check: %v\n%s", raw, err, outs[0].Files[1].Content)
		}
		if err := checkOnlyPlanned(outs[0].IR, outs[0].Files); err != nil {
			t.Fatalf("tool %s: %v", raw, err)
		}
		// Decide once: what server.go hands the runtime registers on an
		// mcp-go server and lists the tool as the bundle holds it.
		served, err := servecheck.Tools(outs[0].IR, fileContent(outs[0].Files, "server.go"))
		if err != nil {
			t.Fatalf("tool %s: reading server.go: %v", raw, err)
		}
		for _, err := range servecheck.CheckListing(t.Context(), &b.Servers[0], servecheck.Era(&b.Servers[0]), served) {
			t.Errorf("tool %s: %v", raw, err)
		}
		// server.go for go-sdk type-checks too.
		outs, err = g.Bundle(b, Options{Server: true, SDK: SDKGoSDK})
		if err != nil {
			t.Fatalf("tool %s: generated for mcp-go, not for go-sdk: %v", raw, err)
		}
		if err := c.check(outs[0].Files); err != nil {
			t.Fatalf("tool %s: generated code for go-sdk does not type-check: %v\n%s", raw, err, fileContent(outs[0].Files, "server.go"))
		}
		if err := checkOnlyPlanned(outs[0].IR, outs[0].Files); err != nil {
			t.Fatalf("tool %s: go-sdk: %v", raw, err)
		}
	})
}

// fileContent returns the content of the file named name among files.
func fileContent(files []File, name string) []byte {
	for _, f := range files {
		if f.Name == name {
			return f.Content
		}
	}
	return nil
}

// jsonString encodes s as a JSON string (invalid UTF-8 becomes U+FFFD, as
// a JSON decoder would read it).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// hostileStrings are the server strings that once reached generated code
// raw, or could: line terminators before code, directives, bidi controls,
// NUL and BOM, and names that collide with generated or predeclared ones.
var hostileStrings = []string{
	"x\n}\nfunc init() { panic(1) }\n//",
	"x\r//go:generate touch pwned",
	"x\u2028func init() {}",
	"x\u2029//line a.go:1",
	"x\u0085//export f",
	"a\u202eb\u2066c\u200fd\u061ce",
	"nul\x00bom\ufeff",
	"*/ /*",
	"+build ignore",
	"error", "string", "json", "context", "_", "ServerDigest", "Foo Bar", "init", "Validate", "schemas",
}

// checkOnlyPlanned checks the generated files with gencheck.OnlyPlanned,
// which does not rely on the generator's own verifier.
func checkOnlyPlanned(p *ir.Package, files []File) error {
	in := make([]gencheck.File, len(files))
	for i, f := range files {
		in[i] = gencheck.File{Name: f.Name, Content: f.Content}
	}
	return errors.Join(gencheck.OnlyPlanned(p, in)...)
}

// TestStubMatchesGolden type-checks the golden packages against the stub,
// so the stub cannot drift from what the templates use.
func TestStubMatchesGolden(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c := newChecker(t)
	for _, name := range []string{"hostile", "everything", "sqlite-explorer"} {
		for _, sdk := range []SDK{SDKMCPGo, SDKGoSDK} {
			outs, err := g.Bundle(loadGolden(t, name), Options{Server: true, SDK: sdk})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.check(outs[0].Files); err != nil {
				t.Errorf("%s, %s: %v", name, sdk, err)
			}
		}
	}
}

// goldenSchemas returns every inputSchema and outputSchema of the golden
// bundles, as seeds.
func goldenSchemas(tb testing.TB) []string {
	matches, _ := filepath.Glob(filepath.Join("..", "golden", "*", "bundle.json"))
	var out []string
	for _, m := range matches {
		raw, err := os.ReadFile(m)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := bundle.Parse(raw, m)
		if err != nil {
			tb.Fatal(err)
		}
		for _, s := range b.Servers {
			for _, tool := range s.Tools {
				var v struct{ InputSchema, OutputSchema json.RawMessage }
				_ = json.Unmarshal(tool.Raw, &v)
				for _, sch := range []json.RawMessage{v.InputSchema, v.OutputSchema} {
					if len(sch) > 0 && !strings.Contains(string(sch), "\x00") {
						out = append(out, string(sch))
					}
				}
			}
		}
	}
	return out
}
