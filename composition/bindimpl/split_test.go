package bindimpl

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomJSON writes a random JSON value of about size bytes, nesting up to
// depth levels, with strings that hold brackets, quotes and escapes.
func randomJSON(b *strings.Builder, r *rand.Rand, depth, size int) {
	strs := []string{`"}]{["`, `"\"}\\"`, `"\\"`, `"a\u005d"`, `"plain"`, `""`}
	switch k := r.IntN(4); {
	case depth == 0 || size < 8 || k == 0:
		b.WriteString([]string{`1`, `-2.5e3`, `true`, `null`, strs[r.IntN(len(strs))]}[r.IntN(5)])
	case k == 1:
		b.WriteString("[ ")
		for i, n := 0, 1+r.IntN(4); i < n; i++ {
			if i > 0 {
				b.WriteString(" ,")
			}
			randomJSON(b, r, depth-1, size/n)
		}
		b.WriteString("]")
	default:
		b.WriteString("{")
		for i, n := 0, 1+r.IntN(4); i < n; i++ {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(b, "%s : ", strs[r.IntN(len(strs))])
			randomJSON(b, r, depth-1, size/n)
		}
		b.WriteString(" }")
	}
}

// TestSplitWithSpans: splitting every object and array of large random
// JSON texts, outermost first as the decoder does, gives the same members
// and items whether the ends of large containers are looked up in spans or
// scanned again.
func TestSplitWithSpans(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	recorded := 0
	for n := range 300 {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", n%3))
		randomJSON(&b, r, 2+n%40, 600+r.IntN(20000))
		text := []byte(b.String())
		if !json.Valid(text) {
			t.Fatalf("the generator wrote invalid JSON: %s", text)
		}
		text = append(text, make([]byte, n%5)...)[:len(text)] // spare capacity
		x := newSpans(text)
		var walk func(data []byte)
		walk = func(data []byte) {
			if ms, ok := splitObject(data, nil, x); ok {
				plain, _ := splitObject(data, nil, nil)
				if !slices.EqualFunc(ms, plain, func(a, b member) bool {
					return string(a.name) == string(b.name) && string(a.value) == string(b.value)
				}) {
					t.Fatalf("text %d: object members differ with spans:\n%q\n%q", n, ms, plain)
				}
				for _, m := range ms {
					walk(m.value)
				}
			}
			if items, ok := splitArray(data, nil, x); ok {
				plain, _ := splitArray(data, nil, nil)
				if !slices.EqualFunc(items, plain, func(a, b []byte) bool { return string(a) == string(b) }) {
					t.Fatalf("text %d: array items differ with spans:\n%q\n%q", n, items, plain)
				}
				for _, item := range items {
					walk(item)
				}
			}
		}
		walk(text)
		if x != nil {
			recorded += len(x.ends)
		}
	}
	if recorded == 0 {
		t.Fatal("no container end was recorded: the texts are too small to test spans")
	}
}
