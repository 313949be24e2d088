package golden

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedDocsAreTrue checks what the generated doc comments claim:
// every type they name ("X is the type of Parent.Field") is declared in the
// package, no comment promises a required-property check on a struct
// without required properties, and no default value is cut ("…").
func TestGeneratedDocsAreTrue(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("*", "*", "*.go"))
	if len(files) == 0 {
		t.Fatal("no generated golden files")
	}
	typeOf := regexp.MustCompile(`is the type of (.*)\.$`)
	for _, dir := range uniqueDirs(files) {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		declared := map[string]bool{}
		var comments []string
		for _, p := range pkgs {
			for _, f := range p.Files {
				for _, d := range f.Decls {
					if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
						for _, s := range g.Specs {
							declared[s.(*ast.TypeSpec).Name.Name] = true
						}
					}
				}
				for _, cg := range f.Comments {
					for _, c := range cg.List {
						comments = append(comments, c.Text)
					}
				}
			}
		}
		for _, c := range comments {
			if strings.Contains(c, "required property is missing") {
				t.Errorf("%s: %s", dir, c)
			}
			if strings.Contains(c, "Default:") && strings.Contains(c, "…") {
				t.Errorf("%s: a cut default: %s", dir, c)
			}
			m := typeOf.FindStringSubmatch(c)
			if m == nil {
				continue
			}
			for _, use := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' }) {
				if !strings.Contains(use, ".") { // "and", "the items of"
					continue
				}
				parent, _, _ := strings.Cut(use, ".")
				if !declared[parent] {
					t.Errorf("%s: %q names %s, which the package does not declare", dir, c, parent)
				}
			}
		}
	}
}

func uniqueDirs(files []string) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, f := range files {
		if d := filepath.Dir(f); !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}
