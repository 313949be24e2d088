package golden

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCommentsNameDeclaredTypes parses every golden package and checks
// that each Go name a sentence written by mcpbind mentions is declared in
// it: the first line of every type's doc ("DataItem is the type of the
// items of Chart.Data."), the doc of every constant group ("The values of
// Sort.") and every "mcpbind:" line. A capitalized word there (outside a
// quoted tool name or a "#/json/pointer") is a declared type, function,
// variable or constant, and "Type.Name" is a field or method of the
// declared type; only the words of english are not Go names.
func TestCommentsNameDeclaredTypes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("*", "*", "*.go"))
	dirs := uniqueDirs(files)
	if len(dirs) == 0 {
		t.Fatal("no generated golden packages")
	}
	// The capitalized words of mcpbind's own sentences that are not Go names.
	english := map[string]bool{"Go": true, "JSON": true, "MCP": true, "The": true}
	checked := 0
	for _, dir := range dirs {
		pkg, files, members := parseGenerated(t, dir)
		check := func(where, line string) {
			checked++
			for _, name := range mentionedNames(line) {
				typ, member, qualified := strings.Cut(name, ".")
				switch {
				case !qualified && (english[name] || members[name] != nil):
				case qualified && members[typ] != nil && members[typ][member]:
				default:
					t.Errorf("%s: %s: %q names %s, which the package does not declare", dir, where, line, name)
				}
			}
		}
		for _, typ := range pkg.Types {
			first, _, _ := strings.Cut(typ.Doc, "\n")
			check("type "+typ.Name, first)
			for _, c := range typ.Consts {
				check("constants of "+typ.Name, c.Doc)
			}
		}
		for _, line := range mcpbindLines(files) {
			check("comment", line)
		}
	}
	if checked == 0 {
		t.Fatal("no comment checked")
	}
}

// mentionedNames returns the capitalized Go names in a comment line, with
// quoted strings and JSON pointers ("#/properties/Foo") left out.
func mentionedNames(line string) []string {
	line = quoted.ReplaceAllString(line, "")
	line = pointer.ReplaceAllString(line, "")
	return goName.FindAllString(line, -1)
}

var (
	quoted  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	pointer = regexp.MustCompile(`#\S*`)
	goName  = regexp.MustCompile(`\b\p{Lu}[\pL\pN_]*(?:\.\p{Lu}[\pL\pN_]*)?`)
)

// parseGenerated parses the generated package in dir and returns its
// documentation, its files and, for every package-level name, the fields and methods
// declared on it (an empty set for a name that has none).
func parseGenerated(t *testing.T, dir string) (*doc.Package, []*ast.File, map[string]map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "example.com/"+filepath.Base(dir), doc.AllDecls|doc.PreserveAST)
	if err != nil {
		t.Fatal(err)
	}
	members := map[string]map[string]bool{}
	declare := func(names ...string) {
		for _, n := range names {
			if members[n] == nil {
				members[n] = map[string]bool{}
			}
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			declare(v.Names...)
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	for _, f := range pkg.Funcs {
		declare(f.Name)
	}
	for _, typ := range pkg.Types {
		declare(typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		for _, f := range typ.Funcs {
			declare(f.Name)
		}
		for _, m := range typ.Methods {
			members[typ.Name][m.Name] = true
		}
		for _, spec := range typ.Decl.Specs {
			ts := spec.(*ast.TypeSpec)
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						members[typ.Name][n.Name] = true
					}
				}
			}
		}
	}
	return pkg, files, members
}

// mcpbindLines returns the comment lines of files that mcpbind writes
// about a value it keeps raw ("mcpbind: …").
func mcpbindLines(files []*ast.File) []string {
	var lines []string
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if text, ok := strings.CutPrefix(c.Text, "// mcpbind: "); ok {
					lines = append(lines, text)
				}
			}
		}
	}
	return lines
}
