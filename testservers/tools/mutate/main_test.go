package main

import (
	"regexp"
	"slices"
	"testing"
)

// TestMutants lists the mutants of a small function: every operator swap,
// each half of a && b dropped, and !c made c; a function the -func pattern
// does not match yields none.
func TestMutants(t *testing.T) {
	src := []byte(`package p

func rule(a, b, c bool, n int) bool {
	return a && b || !c && n < 3
}

func other(x int) bool { return x == 1 }
`)
	ms, err := mutants("p.go", src, regexp.MustCompile(`^rule$`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.kind+" "+string(src[:m.start])[len("package p\n\nfunc rule(a, b, c bool, n int) bool {\n\treturn "):]+m.repl+string(src[m.end:len(src)-len("\n}\n\nfunc other(x int) bool { return x == 1 }\n")]))
	}
	want := []string{
		"INVERT_LOGICAL a && b && !c && n < 3",
		"DROP_OPERAND a && b",
		"DROP_OPERAND !c && n < 3",
		"INVERT_LOGICAL a || b || !c && n < 3",
		"DROP_OPERAND a || !c && n < 3",
		"DROP_OPERAND b || !c && n < 3",
		"REMOVE_NOT a && b || c && n < 3",
		"INVERT_LOGICAL a && b || !c || n < 3",
		"DROP_OPERAND a && b || !c",
		"DROP_OPERAND a && b || n < 3",
		"CONDITIONALS_NEGATION a && b || !c && n >= 3",
		"CONDITIONALS_BOUNDARY a && b || !c && n <= 3",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("mutants:\n%q\nwant:\n%q", got, want)
	}
	if _, err := mutants("p.go", src, regexp.MustCompile(`^none$`)); err == nil {
		t.Error("no matching function: no error")
	}
}
