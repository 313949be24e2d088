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
)

// compositionStub declares the part of package composition that generated
// code uses, so the fuzz target can type-check output without loading the
// real package (and its dependencies) on every input. TestStubMatchesGolden
// keeps it honest: the golden packages must type-check against it too.
const compositionStub = `package composition
import "context"
type Output struct{ PlainObject, CanBeObject, HasResultProperty, AlwaysWraps bool }
type SchemaSet struct{}
func NewSchemaSet(docs map[string]string) *SchemaSet { return nil }
type Tool struct { Name string; Output Output; Schemas *SchemaSet; Types *Types; InputDoc, OutputDoc string; ResultPointer string }
type Session struct{}
type Result struct{}
func (s *Session) Call(ctx context.Context, tool Tool, args any, out any) error { return nil }
func (s *Session) CallTool(ctx context.Context, tool Tool, args any) (*Result, error) { return nil, nil }
type TypeInfo struct { Doc, Pointer string; Required []string; Closed bool; Extra string; Defaults map[string]string; Tag, TagValue string; Union UnionBy; UnionTag string; Cases []string; Tuple, MinItems int; Raw bool }
type UnionBy uint8
const ( NotUnion UnionBy = iota; UnionByTag; UnionByKind; UnionByRequired )
func Describe[T any](info TypeInfo) TypeInfo { return info }
type Types struct{}
func NewTypes(schemas *SchemaSet, infos ...TypeInfo) *Types { return nil }
func (t *Types) Marshal(v any) ([]byte, error) { return nil, nil }
func (t *Types) Unmarshal(data []byte, v any) error { return nil }
func (t *Types) Validate(v any) error { return nil }
type Nullable[T any] struct { Value T; Set, Null bool }
type DigestMode int
type Option struct{}
func WithDigestCheckAt(expected, exportedAt string, mode DigestMode) Option { return Option{} }
`

// checker type-checks generated packages against the composition stub and
// the standard library (from source, cached per checker).
type checker struct {
	fset *token.FileSet
	std  types.ImporterFrom
	comp *types.Package
}

func newChecker(t testing.TB) *checker {
	fset := token.NewFileSet()
	c := &checker{fset: fset, std: importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)}
	f, err := parser.ParseFile(fset, "composition.go", compositionStub, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: c.std}
	c.comp, err = conf.Check("github.com/mcpbind/mcpbind/composition", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *checker) Import(path string) (*types.Package, error) {
	if path == "github.com/mcpbind/mcpbind/composition" {
		return c.comp, nil
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
// inputSchema and outputSchema. Either the IR refuses the schema with an
// *ir.Error, or the generated package parses and type-checks. The seed
// corpus (every schema of the golden bundles and a few shapes) runs in
// every `go test`.
func FuzzGenerate(f *testing.F) {
	for _, seed := range goldenSchemas(f) {
		f.Add(seed)
	}
	for _, seed := range []string{
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`{"allOf":[{"$ref":"#/$defs/x"},{"properties":{"y":{"const":1}}}],"$defs":{"x":{"properties":{"z":{}}}}}`,
		`{"type":"array","prefixItems":[{"type":"boolean"},{"$ref":"#"}],"items":false}`,
		`{"oneOf":[{"properties":{"k":{"const":"a"}},"required":["k"]},{"properties":{"k":{"const":"b"}},"required":["k"]}]}`,
		`{"enum":["a","A",1,null]}`, `true`, `false`, `{"type":["object","null"]}`,
		`{"$id":"https://x/y.json","$defs":{"a":{"$anchor":"n","type":"integer"}},"properties":{"r":{"$ref":"#n"}}}`,
	} {
		f.Add(seed)
	}
	g, err := New()
	if err != nil {
		f.Fatal(err)
	}
	c := newChecker(f)
	f.Fuzz(func(t *testing.T, schema string) {
		if !json.Valid([]byte(schema)) {
			return
		}
		in := `{"type":"object","properties":{"in":` + schema + `}}`
		tool, err := bundle.NewTool(json.RawMessage(`{"name":"fuzz","inputSchema":` + in + `,"outputSchema":` + schema + `}`))
		if err != nil {
			return
		}
		b := &bundle.Bundle{BundleVersion: 1, Servers: []bundle.Server{{ID: "fuzz", Tools: []bundle.Tool{tool}}}}
		outs, err := g.Bundle(b, Options{})
		if err != nil {
			var ie *ir.Error
			if !errors.As(err, &ie) {
				t.Fatalf("schema %s: error without a location: %v", schema, err)
			}
			return
		}
		if err := c.check(outs[0].Files); err != nil {
			t.Fatalf("schema %s: generated code does not type-check: %v\n%s", schema, err, outs[0].Files[1].Content)
		}
	})
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
		outs, err := g.Bundle(loadGolden(t, name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.check(outs[0].Files); err != nil {
			t.Errorf("%s: %v", name, err)
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
