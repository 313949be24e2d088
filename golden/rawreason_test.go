package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/gen"
	"github.com/mcpbind/mcpbind/ir"
)

// goldenPackages builds the IR of every server of every golden bundle and
// calls f with it and the parsed types.go generated from it.
func goldenPackages(t *testing.T, f func(t *testing.T, p *ir.Package, types *ast.File)) {
	t.Helper()
	g, err := gen.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases(t) {
		b, err := bundle.Load(c.bundle)
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Servers {
			srv := &b.Servers[i]
			t.Run(c.name+"/"+srv.ID, func(t *testing.T) {
				p, err := ir.BuildServer(srv, ir.PackageName(srv.ID), ir.DefaultConfig())
				if err != nil {
					t.Fatal(err)
				}
				files, err := g.Package(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, file := range files {
					if file.Name != "types.go" {
						continue
					}
					af, err := parser.ParseFile(token.NewFileSet(), file.Name, file.Content, parser.ParseComments)
					if err != nil {
						t.Fatal(err)
					}
					f(t, p, af)
				}
			})
		}
	}
}

// TestEveryRawFallbackSaysWhy: wherever raw JSON stands for a schema
// mcpbind could not type (a struct field, a map value, an array item, a
// union variant, the extra properties, a tuple's rest, a named type), the
// generated comment of that field or type carries its one-line "mcpbind:"
// reason, as the README promises.
func TestEveryRawFallbackSaysWhy(t *testing.T) {
	goldenPackages(t, func(t *testing.T, p *ir.Package, types *ast.File) {
		decls := map[string]*ast.GenDecl{}
		fields := map[string]*ast.Field{} // "Type.Field"
		for _, d := range types.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				decls[ts.Name.Name] = gd
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, fl := range st.Fields.List {
						for _, n := range fl.Names {
							fields[ts.Name.Name+"."+n.Name] = fl
						}
					}
				}
			}
		}
		checked := 0
		check := func(where string, doc *ast.CommentGroup, typ *ir.Type) {
			want := typ.RawDoc()
			if want == nil {
				return
			}
			checked++
			if doc == nil || !strings.Contains(doc.Text(), want[0]) {
				t.Errorf("%s is raw JSON but its comment does not say why (want %q):\n%s", where, want[0], doc.Text())
			}
		}
		for _, typ := range p.Types {
			field := func(name string, ft *ir.Type) {
				fl := fields[typ.Name+"."+name]
				if fl == nil {
					t.Errorf("%s.%s is not in types.go", typ.Name, name)
					return
				}
				check(typ.Name+"."+name, fl.Doc, ft)
			}
			for _, f := range typ.Fields {
				field(f.Name, f.Type)
			}
			if typ.Union != nil {
				for _, v := range typ.Union.Variants {
					field(v.Name, v.Type)
				}
			}
			if typ.ExtraName != "" {
				field(typ.ExtraName, typ.Extra)
			}
			if typ.Kind == ir.KindTuple && typ.Elem != nil {
				field("Rest", typ.Elem)
			}
			if typ.Kind != ir.KindStruct && typ.Kind != ir.KindTuple && typ.Kind != ir.KindUnion {
				u := *typ
				u.Name = ""
				check("type "+typ.Name, decls[typ.Name].Doc, &u)
			}
		}
		if p.Name == "typing" && checked < 9 {
			t.Errorf("golden/typing has %d raw fallbacks with a reason, want its 9 (a field, a map value, an array item, a union variant, extras, a tuple's rest, a named map, a named result, an object kept as a map)", checked)
		}
	})
}

// TestEveryTypeIsUsed: every named type the IR declares is reached from a
// tool's arguments or result. A type built for a schema and then dropped
// (a map's nullable value kept as raw JSON) would still be declared, and
// shared under its name with another field that has the same schema.
func TestEveryTypeIsUsed(t *testing.T) {
	goldenPackages(t, func(t *testing.T, p *ir.Package, _ *ast.File) {
		used := map[*ir.Type]bool{}
		var walk func(x *ir.Type)
		walk = func(x *ir.Type) {
			if x == nil || used[x] {
				return
			}
			used[x] = true
			for c := range x.Children() {
				walk(c)
			}
		}
		for _, tool := range p.Tools {
			walk(tool.Args)
			walk(tool.Result)
		}
		for _, x := range p.Types {
			if !used[x] {
				t.Errorf("type %s is declared but no tool uses it", x.Name)
			}
		}
	})
}
