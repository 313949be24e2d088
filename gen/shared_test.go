package gen

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// TestRepeatedToolMembersDeclaredOnce: in the server.go of the github
// golden bundle (85 tools, their icon sets repeated), a tool member value
// that several tools hold alike (found here from the bundle, not from the
// IR) is spelled out once in the file, as a constant, and the tools'
// objects name that constant; the file holds each set once.
func TestRepeatedToolMembersDeclaredOnce(t *testing.T) {
	b := loadGolden(t, "github")
	count := map[string]int{}
	for _, tool := range b.Servers[0].Tools {
		members, err := rawjson.Members(tool.Raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range members {
			var c bytes.Buffer
			if err := json.Compact(&c, m.Value); err != nil {
				t.Fatal(err)
			}
			if m.Key == "icons" {
				count[c.String()]++
			}
		}
	}
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	outs, err := g.Bundle(b, Options{Server: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", fileContent(outs[0].Files, "server.go"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Every run of string literals of the file, concatenated ("…" + "…"),
	// with a constant's name ending a run.
	var runs []string
	var run strings.Builder
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.BinaryExpr:
			walk(e.X)
			walk(e.Y)
		case *ast.BasicLit:
			if s, err := strconv.Unquote(e.Value); err == nil && e.Kind == token.STRING {
				run.WriteString(s)
			}
		default:
			runs = append(runs, run.String())
			run.Reset()
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var exprs []ast.Expr
		switch n := n.(type) {
		case *ast.CallExpr:
			exprs = n.Args
		case *ast.ValueSpec:
			exprs = n.Values
		default:
			return true
		}
		for _, e := range exprs {
			walk(e)
			runs = append(runs, run.String())
			run.Reset()
		}
		return true
	})
	repeated := 0
	for value, n := range count {
		if n < 2 {
			continue
		}
		repeated++
		found := 0
		for _, r := range runs {
			found += strings.Count(r, value)
		}
		if found != 1 {
			t.Errorf("an icon set %d tools hold is spelled out %d times in server.go, want once", n, found)
		}
	}
	if repeated == 0 {
		t.Fatal("the github bundle has no repeated icon sets")
	}
}
