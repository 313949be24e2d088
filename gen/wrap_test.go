package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestWrapLiteralsKeepsTheConstant: a file whose literals are long in
// several ways (JSON with commas, base64 without, multi-byte runes,
// escapes, invalid UTF-8, two literals on one line, a long key, short
// literals that fill a line) comes out
// of wrapLiterals with every line within MaxLineColumns, gofmt-clean, and
// each literal the same Go constant as before.
func TestWrapLiteralsKeepsTheConstant(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 6))
	alphabet := []string{"a", "Z", "0", ",", "\"", "\\", "\n", "\t", "é", "名", "😀", "\x00", "\xff", "\u202e", " ", "{", "}"}
	long := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	values := []string{
		strings.Repeat(`{"type":"object","properties":{"a":{"type":"string"}}},`, 40),
		strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAYAAADgdz34", 30),
		strings.Repeat("名前", 300),
		long(3000), long(500), long(201), long(45),
	}
	var src strings.Builder
	src.WriteString("package p\n\nfunc f(a, b string) string { return a + b }\n\nvar m = map[string]string{\n")
	for i, v := range values {
		fmt.Fprintf(&src, "\t%q: %q,\n", fmt.Sprint("key", i), v)
	}
	fmt.Fprintf(&src, "\t%q: %q,\n", strings.Repeat("k", 150), values[0])
	fmt.Fprintf(&src, "\t\"call\": f(%q, %q),\n", values[1], values[3])
	// Literals too short to cut, on a line too long for them: they move.
	medium := strings.Repeat("m", 70)
	fmt.Fprintf(&src, "\t\"medium\": f(f(%q, %q), f(%q, %q)),\n}\n", medium, medium, medium, medium)
	in, err := formatFile("p.go", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	out, changed, err := wrapLiterals("p.go", in)
	if err != nil || !changed {
		t.Fatalf("wrapLiterals: changed %v, %v", changed, err)
	}
	for i, line := range strings.Split(string(out), "\n") {
		if c := columns([]byte(line)); c > MaxLineColumns {
			t.Errorf("line %d is %d columns: %.80s…", i+1, c, line)
		}
	}
	if again, err := formatFile("p.go", out); err != nil || !bytes.Equal(again, out) {
		t.Errorf("wrapped file is not gofmt-clean (%v)", err)
	}
	before, after := literalValues(t, in), literalValues(t, out)
	if len(before) != len(values)+3 || len(after) != len(before) {
		t.Fatalf("%d values before, %d after", len(before), len(after))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("value %d changed: %.60q… became %.60q…", i, before[i], after[i])
		}
	}
}

// literalValues type-checks src and returns the constant values of m's
// entries, in order (a call's constant arguments joined).
func literalValues(t *testing.T, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	var vals []string
	value := func(e ast.Expr) string {
		tv := info.Types[e]
		if tv.Value == nil {
			t.Fatalf("%T is not a constant", e)
		}
		return constant.StringVal(tv.Value)
	}
	lit := f.Decls[1].(*ast.GenDecl).Specs[0].(*ast.ValueSpec).Values[0].(*ast.CompositeLit)
	for _, e := range lit.Elts {
		kv := e.(*ast.KeyValueExpr)
		if call, ok := kv.Value.(*ast.CallExpr); ok {
			var args []string
			ast.Inspect(call, func(n ast.Node) bool {
				if e, ok := n.(ast.Expr); ok && info.Types[e].Value != nil {
					args = append(args, value(e))
					return false
				}
				return true
			})
			vals = append(vals, value(kv.Key)+"="+strings.Join(args, "|"))
			continue
		}
		vals = append(vals, value(kv.Key)+"="+value(kv.Value))
	}
	return vals
}

// TestCutQuotedConcatenates: whatever the string and widths, the pieces
// are quoted strings that concatenate to it, within their widths.
func TestCutQuotedConcatenates(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 17))
	for range 2000 {
		b := make([]byte, rng.IntN(600))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				b[i] = "a,\"\\é"[rng.IntN(6)]
			}
		}
		v := string(b)
		first, width, reserve := rng.IntN(200), minPiece+rng.IntN(160), rng.IntN(60)
		pieces := cutQuoted(v, first, width, reserve)
		var joined strings.Builder
		for i, p := range pieces {
			u, err := strconv.Unquote(p)
			if err != nil {
				t.Fatalf("piece %q: %v", p, err)
			}
			joined.WriteString(u)
			if limit := width; i > 0 && len(p) > limit && len([]rune(u)) > 1 {
				t.Errorf("piece %d of %d is %d columns, over %d", i, len(pieces), len(p), limit)
			}
		}
		if joined.String() != v {
			t.Fatalf("pieces of %q join to %q", v, joined.String())
		}
	}
}
